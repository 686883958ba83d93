#include "app/gui/learned/TryItDialog.h"

#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>

namespace tbench::gui {

TryItDialog::TryItDialog(bridge::TryItRunner runner, const QString& checkpoint, QWidget* parent)
    : QDialog(parent), runner_(std::move(runner)) {
  setWindowTitle(tr("Try It"));
  setObjectName("tryItDialog");
  checkpoint_ = new QLineEdit(checkpoint, this);
  checkpoint_->setObjectName("tryItCheckpoint");
  auto* browseCheckpoint = new QPushButton(tr("Browse…"), this);
  connect(browseCheckpoint, &QPushButton::clicked, this, &TryItDialog::browseCheckpoint);
  auto* checkpointRow = new QHBoxLayout;
  checkpointRow->addWidget(checkpoint_, 1);
  checkpointRow->addWidget(browseCheckpoint);

  kind_ = new QComboBox(this);
  kind_->setObjectName("tryItKind");
  kind_->addItem(tr("Image file"), int(bridge::TryItQuery::Kind::ImageFile));
  kind_->addItem(tr("Dataset sample"), int(bridge::TryItQuery::Kind::DatasetSample));
  kind_->addItem(tr("CSV row"), int(bridge::TryItQuery::Kind::CsvRow));
  path_ = new QLineEdit(this);
  path_->setObjectName("tryItPath");
  browsePath_ = new QPushButton(tr("Browse…"), this);
  connect(browsePath_, &QPushButton::clicked, this, &TryItDialog::browseInput);
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(path_, 1);
  pathRow->addWidget(browsePath_);
  split_ = new QComboBox(this);
  split_->setObjectName("tryItSplit");
  split_->addItem(tr("validation"), "validation");
  split_->addItem(tr("train"), "train");
  index_ = new QSpinBox(this);
  index_->setObjectName("tryItIndex");
  index_->setRange(0, 100000000);
  topN_ = new QSpinBox(this);
  topN_->setObjectName("tryItTopN");
  topN_->setRange(1, 1000);
  topN_->setValue(5);
  classify_ = new QPushButton(tr("Classify"), this);
  classify_->setObjectName("tryItClassify");
  classify_->setDefault(true);
  connect(classify_, &QPushButton::clicked, this, &TryItDialog::classify);

  auto* form = new QFormLayout;
  form->addRow(tr("Checkpoint:"), checkpointRow);
  form->addRow(tr("Input:"), kind_);
  form->addRow(tr("File:"), pathRow);
  form->addRow(tr("Data:"), split_);
  form->addRow(tr("Sample / row:"), index_);
  form->addRow(tr("Top N:"), topN_);

  image_ = new QLabel(this);
  image_->setObjectName("tryItImage");
  image_->setFixedSize(224, 224);
  image_->setAlignment(Qt::AlignCenter);
  image_->setFrameShape(QFrame::StyledPanel);
  classes_ = new QTableWidget(0, 2, this);
  classes_->setObjectName("tryItClasses");
  classes_->setHorizontalHeaderLabels({tr("Class"), tr("Probability")});
  classes_->verticalHeader()->hide();
  classes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  classes_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  classes_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
  status_ = new QLabel(this);
  status_->setObjectName("tryItStatus");
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* answer = new QHBoxLayout;
  answer->addWidget(image_, 0, Qt::AlignTop);
  answer->addWidget(classes_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(classify_, 0, Qt::AlignRight);
  layout->addLayout(answer, 1);
  layout->addWidget(status_);
  connect(kind_, &QComboBox::currentIndexChanged, this, &TryItDialog::updateInputControls);
  updateInputControls();
  resize(640, 520);
}

TryItDialog::~TryItDialog() = default;

bridge::TryItQuery TryItDialog::query() const {
  bridge::TryItQuery q;
  q.checkpoint = checkpoint_->text().trimmed();
  q.kind = static_cast<bridge::TryItQuery::Kind>(kind_->currentData().toInt());
  q.path = path_->text().trimmed();
  q.split = split_->currentData().toString();
  q.index = index_->value();
  q.topN = topN_->value();
  return q;
}

void TryItDialog::setDatasetSample(const QString& split, qint64 index) {
  kind_->setCurrentIndex(kind_->findData(int(bridge::TryItQuery::Kind::DatasetSample)));
  const int splitIndex = split_->findData(split);
  if (splitIndex >= 0) split_->setCurrentIndex(splitIndex);
  index_->setValue(static_cast<int>(index));
}

void TryItDialog::updateInputControls() {
  const auto kind = static_cast<bridge::TryItQuery::Kind>(kind_->currentData().toInt());
  path_->setEnabled(kind != bridge::TryItQuery::Kind::DatasetSample);
  browsePath_->setEnabled(path_->isEnabled());
  split_->setEnabled(kind == bridge::TryItQuery::Kind::DatasetSample);
  index_->setEnabled(kind != bridge::TryItQuery::Kind::ImageFile);
}

void TryItDialog::browseCheckpoint() {
  const QString file = QFileDialog::getOpenFileName(this, tr("Checkpoint"), checkpoint_->text(),
                                                    tr("Checkpoints (*.pt);;All files (*)"));
  if (!file.isEmpty()) checkpoint_->setText(file);
}

void TryItDialog::browseInput() {
  const bool csv = kind_->currentData().toInt() == int(bridge::TryItQuery::Kind::CsvRow);
  const QString file =
      QFileDialog::getOpenFileName(this, csv ? tr("Table") : tr("Image"), path_->text(),
                                   csv ? tr("CSV tables (*.csv *.tsv *.txt);;All files (*)")
                                       : tr("Images (*.png *.jpg *.jpeg);;All files (*)"));
  if (!file.isEmpty()) path_->setText(file);
}

void TryItDialog::classify() {
  if (busy_) return;
  const bridge::TryItQuery q = query();
  if (q.checkpoint.isEmpty()) {
    bridge::TryItView view;
    view.error = tr("Choose a checkpoint (a model-<step>.pt file of a run).");
    showAnswer(view);
    return;
  }
  busy_ = true;
  classify_->setEnabled(false);
  status_->setText(tr("Classifying…"));
  // Restoring the network and reading a dataset sample can take seconds: never on the GUI
  // thread, and closing the dialog never waits for it (the answer of a closed dialog is
  // dropped). Qt's global pool finishes the work before the application exits.
  QPointer<TryItDialog> self(this);
  QThreadPool::globalInstance()->start([self, runner = runner_, q] {
    bridge::TryItView view = runner(q);
    QMetaObject::invokeMethod(qApp, [self, view = std::move(view)] {
      if (self) self->showAnswer(view);
    });
  });
}

void TryItDialog::showAnswer(const bridge::TryItView& view) {
  busy_ = false;
  classify_->setEnabled(true);
  result_ = view;
  classes_->setRowCount(0);
  image_->clear();
  if (!view.error.isEmpty()) {
    status_->setText(tr("<b>Cannot classify:</b> %1").arg(view.error.toHtmlEscaped()));
    emit resultShown();
    return;
  }
  if (!view.pixels.isEmpty() && (view.channels == 1 || view.channels == 3)) {
    const QImage image(reinterpret_cast<const uchar*>(view.pixels.constData()), view.width,
                       view.height, view.width * view.channels,
                       view.channels == 1 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
    image_->setPixmap(QPixmap::fromImage(
        image.scaled(image_->size() - QSize(4, 4), Qt::KeepAspectRatio, Qt::FastTransformation)));
  } else if (!view.features.isEmpty()) {
    QStringList values;
    for (double f : view.features) values << QString::number(f, 'g', 4);
    image_->setText(tr("features\n%1").arg(values.join("\n")));
  }
  classes_->setRowCount(static_cast<int>(view.top.size()));
  for (int i = 0; i < view.top.size(); ++i) {
    const bridge::TryItClassView& c = view.top[i];
    auto* name = new QTableWidgetItem(c.name);
    if (c.index == view.trueClass) name->setText(tr("%1 (true class)").arg(c.name));
    classes_->setItem(i, 0, name);
    auto* bar = new QProgressBar(classes_);
    bar->setRange(0, 1000);
    bar->setValue(static_cast<int>(c.probability * 1000 + 0.5));
    bar->setFormat(QString::number(100.0 * c.probability, 'f', 2) + "%");
    classes_->setCellWidget(i, 1, bar);
  }
  QStringList lines;
  if (view.trueClass >= 0 && view.trueClass < view.classNames.size()) {
    const bool right = !view.top.isEmpty() && view.top[0].index == view.trueClass;
    lines << tr("True class: %1 (%2)")
                 .arg(view.classNames[view.trueClass], right ? tr("predicted") : tr("missed"));
  }
  if (!view.note.isEmpty()) lines << view.note;
  status_->setText(lines.join("\n"));
  emit resultShown();
}

}  // namespace tbench::gui
