#include "widgets/ImagePanel.h"

#include <QComboBox>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

#include "widgets/ImageView.h"

namespace tbench::ui {

QImage imageFromPixels(const QByteArray& pixels, int width, int height, int channels) {
  QImage::Format format = QImage::Format_Invalid;
  if (channels == 1) format = QImage::Format_Grayscale8;
  if (channels == 3) format = QImage::Format_RGB888;
  if (channels == 4) format = QImage::Format_RGBA8888;
  const qsizetype rowBytes = qsizetype(width) * channels;
  if (format == QImage::Format_Invalid || width <= 0 || height <= 0 ||
      pixels.size() != rowBytes * height) {
    return {};
  }
  // QImage wraps the bytes with their own row length; copy() gives it its own aligned rows.
  return QImage(reinterpret_cast<const uchar*>(pixels.constData()), width, height, rowBytes, format)
      .copy();
}

namespace {

QToolButton* toolButton(const QString& name, const QIcon& icon, const QString& tip,
                        QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setObjectName(name);
  button->setIcon(icon);
  button->setToolTip(tip);
  button->setAutoRaise(true);
  return button;
}

}  // namespace

ImagePanel::ImagePanel(QWidget* parent) : QWidget(parent) {
  combo_ = new QComboBox(this);
  combo_->setObjectName("imageStreamCombo");
  combo_->setToolTip(tr("The image to show (one per name the run puts)"));
  caption_ = new QLabel(this);
  caption_->setObjectName("imageCaption");
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  view_ = new ImageView(this);
  view_->setObjectName("imageView");
  view_->setEmptyText(
      tr("No images yet.\n\nImages a run puts (a dump_images callback, a GAN's samples) "
         "appear here, one per epoch."));

  back_ = toolButton("imageBackButton", style()->standardIcon(QStyle::SP_MediaSeekBackward),
                     tr("Previous image"), this);
  forward_ = toolButton("imageForwardButton", style()->standardIcon(QStyle::SP_MediaSeekForward),
                        tr("Next image"), this);
  latest_ = new QToolButton(this);
  latest_->setObjectName("imageLatestButton");
  latest_->setText(tr("Latest"));
  latest_->setToolTip(tr("Show the newest image and follow new ones"));
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setObjectName("imageSlider");
  slider_->setPageStep(1);
  position_ = new QLabel(this);
  position_->setObjectName("imagePositionLabel");

  caption_->setAlignment(Qt::AlignCenter);
  auto* top = new QHBoxLayout;
  auto* label = new QLabel(tr("Image:"), this);
  label->setBuddy(combo_);
  top->addWidget(label);
  top->addWidget(combo_, 1);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(back_);
  bottom->addWidget(slider_, 1);
  bottom->addWidget(forward_);
  bottom->addWidget(position_);
  bottom->addWidget(latest_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(caption_);
  layout->addWidget(view_, 1);
  layout->addLayout(bottom);

  connect(combo_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (!updating_) setCurrentStream(name);
  });
  connect(slider_, &QSlider::valueChanged, this, [this](int value) {
    if (!updating_) showImage(value);
  });
  connect(back_, &QToolButton::clicked, this, &ImagePanel::stepBack);
  connect(forward_, &QToolButton::clicked, this, &ImagePanel::stepForward);
  connect(latest_, &QToolButton::clicked, this, &ImagePanel::showLatest);
  refresh();
}

void ImagePanel::addImage(const QString& name, qint64 epoch, qint64 step, const QImage& image) {
  const bool added = !streams_.contains(name);
  Stream& s = streams_[name];
  if (added) order_.append(name);
  s.entries.append(Entry{epoch, step, image});
  if (s.entries.size() > kMaxImagesPerStream) {
    s.entries.removeFirst();
    s.index = std::max(0, s.index - 1);
  }
  if (current_.isEmpty()) current_ = name;
  if (name != current_ || following_) s.index = int(s.entries.size()) - 1;
  refresh();
  if (added) emit streamAdded(name);
}

void ImagePanel::clear() {
  streams_.clear();
  order_.clear();
  current_.clear();
  following_ = true;
  refresh();
}

int ImagePanel::loadRunDirectory(const QString& runDir) {
  clear();
  static const QRegularExpression pattern("^epoch-(\\d+)-step-(\\d+)\\.png$");
  const QDir images(QDir(runDir).filePath("images"));
  int loaded = 0;
  for (const QString& name : images.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    std::vector<std::tuple<qint64, qint64, QString>> files;  // step, epoch, path
    const QDir folder(images.filePath(name));
    for (const QString& file : folder.entryList(QDir::Files)) {
      const QRegularExpressionMatch match = pattern.match(file);
      if (match.hasMatch()) {
        files.emplace_back(match.captured(2).toLongLong(), match.captured(1).toLongLong(),
                           folder.filePath(file));
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& [step, epoch, path] : files) {
      const QImage image(path);
      if (image.isNull()) continue;  // a file being written or damaged: skip it
      addImage(name, epoch, step, image);
      ++loaded;
    }
  }
  return loaded;
}

void ImagePanel::setCurrentStream(const QString& name) {
  if (!streams_.contains(name)) return;
  current_ = name;
  following_ = true;
  Stream& s = streams_[name];
  s.index = int(s.entries.size()) - 1;
  refresh();
}

const ImagePanel::Stream* ImagePanel::stream() const {
  const auto found = streams_.constFind(current_);
  return found == streams_.constEnd() ? nullptr : &found.value();
}

int ImagePanel::imageCount() const {
  const Stream* s = stream();
  return s ? int(s->entries.size()) : 0;
}

int ImagePanel::currentIndex() const {
  const Stream* s = stream();
  return s ? s->index : -1;
}

void ImagePanel::showImage(int index) {
  if (!streams_.contains(current_)) return;
  Stream& s = streams_[current_];
  if (s.entries.isEmpty()) return;
  s.index = std::clamp(index, 0, int(s.entries.size()) - 1);
  following_ = s.index == int(s.entries.size()) - 1;
  refresh();
}

void ImagePanel::showLatest() { showImage(imageCount() - 1); }

QString ImagePanel::caption() const {
  const Stream* s = stream();
  if (!s || s->index < 0) return {};
  const Entry& e = s->entries.at(s->index);
  return tr("%1 — epoch %2, step %3").arg(current_).arg(e.epoch).arg(e.step);
}

QImage ImagePanel::currentImage() const {
  const Stream* s = stream();
  return s && s->index >= 0 ? s->entries.at(s->index).image : QImage();
}

void ImagePanel::refresh() {
  updating_ = true;
  if (combo_->count() != order_.size()) {
    combo_->clear();
    combo_->addItems(order_);
  }
  combo_->setCurrentIndex(int(order_.indexOf(current_)));
  combo_->setEnabled(!order_.isEmpty());
  const int count = imageCount();
  const int index = currentIndex();
  view_->setImage(currentImage());
  caption_->setText(caption());
  if (const Stream* s = stream(); s && index >= 0) {
    const QImage& image = s->entries.at(index).image;
    caption_->setToolTip(tr("%1 x %2 pixels").arg(image.width()).arg(image.height()));
  }
  slider_->setRange(0, std::max(0, count - 1));
  slider_->setValue(std::max(0, index));
  slider_->setEnabled(count > 1);
  back_->setEnabled(index > 0);
  forward_->setEnabled(index >= 0 && index < count - 1);
  latest_->setEnabled(index >= 0 && index < count - 1);
  position_->setText(count > 0 ? tr("%1 / %2").arg(index + 1).arg(count) : QString());
  updating_ = false;
}

}  // namespace tbench::ui
