#include "app/gui/project/DataPreviewDialog.h"
#include "app/bridge/ProjectViews.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <thread>

namespace tbench::gui {

namespace {

constexpr int kTile = 84;  // on-screen side of one sample

QImage imageOf(const bridge::DataPreviewView& view, int i) {
  const QByteArray& bytes = view.pixels[i];
  const int stride = view.width * view.channels;
  QImage image(reinterpret_cast<const uchar*>(bytes.constData()), view.width, view.height, stride,
               view.channels == 3 ? QImage::Format_RGB888 : QImage::Format_Grayscale8);
  return image.copy();  // own the pixels
}

}  // namespace

DataPreviewDialog::DataPreviewDialog(bridge::DataPreviewer previewer, QWidget* parent)
    : QDialog(parent), previewer_(std::move(previewer)) {
  setWindowTitle(tr("Data Preview"));
  summary_ = new QLabel(this);
  summary_->setObjectName("summaryLabel");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  samples_ = new QScrollArea(this);
  samples_->setObjectName("samplesArea");
  samples_->setWidgetResizable(true);
  classes_ = new QTableWidget(0, 3, this);
  classes_->setObjectName("classTable");
  classes_->setHorizontalHeaderLabels({tr("Class"), tr("Samples"), tr("Share")});
  classes_->verticalHeader()->setVisible(false);
  classes_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  classes_->setEditTriggers(QAbstractItemView::NoEditTriggers);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(samples_);
  split->addWidget(classes_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({700, 260});

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  refresh_ = buttons->addButton(tr("Refresh"), QDialogButtonBox::ActionRole);
  refresh_->setObjectName("refreshButton");
  connect(refresh_, &QPushButton::clicked, this, [this] { refresh(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  layout->addWidget(buttons);
  resize(980, 640);
}

DataPreviewDialog::~DataPreviewDialog() {
  if (reader_.joinable()) reader_.join();
}

void DataPreviewDialog::refresh() {
  if (busy_ || !source_ || !previewer_) return;
  if (reader_.joinable()) reader_.join();  // the previous read, already delivered
  const auto [text, path] = source_();
  busy_ = true;
  refresh_->setEnabled(false);
  summary_->setText(tr("Reading the first %1 training samples…").arg(kSamples));
  // The engine may read whole files: never on the GUI thread. The result comes back through
  // the event loop; a dialog destroyed meanwhile (it joins the reader first) drops it.
  QPointer<DataPreviewDialog> self(this);
  reader_ = std::thread([self, previewer = previewer_, text = text, path = path] {
    bridge::DataPreviewView view = previewer(text, path, kSamples);
    QMetaObject::invokeMethod(qApp, [self, view = std::move(view)] {
      if (self) self->display(view);
    });
  });
}

void DataPreviewDialog::display(const bridge::DataPreviewView& view) {
  busy_ = false;
  refresh_->setEnabled(true);
  preview_ = view;
  if (!view.error.isEmpty()) {
    summary_->setText(tr("No preview: %1").arg(view.error));
    samples_->setWidget(new QWidget);
    classes_->setRowCount(0);
    emit shown();
    return;
  }
  summary_->setText(
      (view.pixels.isEmpty()
           ? tr("%1. The first %2 rows as training reads them (standardised when the source "
                "standardises):")
           : tr("%1. The first %2 samples as training reads them (augmented, normalised; "
                "each image scaled to its own range for display):"))
          .arg(view.summary)
          .arg(view.labels.size()));
  samples_->setWidget(view.pixels.isEmpty() ? rowTable(view) : imageGrid(view));
  fillClassTable(view);
  emit shown();
}

QWidget* DataPreviewDialog::imageGrid(const bridge::DataPreviewView& view) const {
  auto* grid = new QWidget;
  auto* layout = new QGridLayout(grid);
  const int columns = 7;
  for (int i = 0; i < view.pixels.size(); ++i) {
    auto* tile = new QWidget(grid);
    auto* box = new QVBoxLayout(tile);
    box->setContentsMargins(2, 2, 2, 2);
    auto* picture = new QLabel(tile);
    picture->setObjectName(QStringLiteral("sample%1").arg(i));
    const QImage image = imageOf(view, i);
    picture->setPixmap(QPixmap::fromImage(
        image.scaled(kTile, kTile, Qt::KeepAspectRatio, Qt::FastTransformation)));
    picture->setAlignment(Qt::AlignCenter);
    auto* label = new QLabel(view.labels.value(i), tile);
    label->setObjectName(QStringLiteral("sampleLabel%1").arg(i));
    label->setAlignment(Qt::AlignCenter);
    box->addWidget(picture);
    box->addWidget(label);
    layout->addWidget(tile, i / columns, i % columns);
  }
  layout->setRowStretch(layout->rowCount(), 1);
  return grid;
}

QWidget* DataPreviewDialog::rowTable(const bridge::DataPreviewView& view) const {
  const int features = view.rows.isEmpty() ? 0 : view.rows.front().size();
  auto* table = new QTableWidget(view.rows.size(), features + 1);
  table->setObjectName("rowTable");
  QStringList headers{view.classNames.isEmpty() ? tr("Target") : tr("Label")};
  for (int j = 0; j < features; ++j) {
    headers << (j < view.columns.size() ? view.columns[j] : QStringLiteral("x%1").arg(j));
  }
  table->setHorizontalHeaderLabels(headers);
  for (int r = 0; r < view.rows.size(); ++r) {
    table->setItem(r, 0, new QTableWidgetItem(view.labels.value(r)));
    for (int j = 0; j < view.rows[r].size(); ++j) {
      table->setItem(r, j + 1, new QTableWidgetItem(QString::number(view.rows[r][j], 'f', 3)));
    }
  }
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->resizeColumnsToContents();
  return table;
}

void DataPreviewDialog::fillClassTable(const bridge::DataPreviewView& view) {
  classes_->setVisible(!view.classNames.isEmpty());  // a regression has no classes
  classes_->setRowCount(view.classNames.size());
  qint64 total = 0;
  for (qint64 c : view.classCounts) total += c;
  for (int k = 0; k < view.classNames.size(); ++k) {
    classes_->setItem(k, 0, new QTableWidgetItem(view.classNames[k]));
    const bool known = k < view.classCounts.size();
    const qint64 count = known ? view.classCounts[k] : 0;
    auto* countItem = new QTableWidgetItem(known ? QString::number(count) : tr("?"));
    countItem->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    classes_->setItem(k, 1, countItem);
    auto* share = new QTableWidgetItem(
        known && total > 0 ? QStringLiteral("%1%").arg(100.0 * count / total, 0, 'f', 1) : "");
    share->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    classes_->setItem(k, 2, share);
  }
  classes_->resizeColumnsToContents();
}

}  // namespace tbench::gui
