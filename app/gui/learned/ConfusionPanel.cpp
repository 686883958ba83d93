#include "app/gui/learned/ConfusionPanel.h"

#include "app/gui/learned/MisclassifiedView.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "widgets/ConfusionMatrixWidget.h"

namespace tbench::gui {

namespace {

QString percent(double ratio) {
  return ratio < 0 ? QStringLiteral("–") : QString::number(100.0 * ratio, 'f', 1) + "%";
}

}  // namespace

ConfusionPanel::ConfusionPanel(QWidget* parent) : QWidget(parent) {
  epochs_ = new QComboBox(this);
  epochs_->setObjectName("confusionEpoch");
  epochs_->setToolTip(tr("The validation pass shown; \"Latest\" follows a live run"));
  summary_ = new QLabel(this);
  summary_->setObjectName("confusionSummary");
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Epoch:"), this));
  top->addWidget(epochs_);
  top->addWidget(summary_, 1);

  matrix_ = new ui::ConfusionMatrixWidget(this);
  matrix_->setObjectName("confusionMatrix");
  classes_ = new QTableWidget(0, 4, this);
  classes_->setObjectName("confusionClasses");
  classes_->setHorizontalHeaderLabels(
      {tr("Class"), tr("Samples"), tr("Precision"), tr("Accuracy (recall)")});
  classes_->verticalHeader()->hide();
  classes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  classes_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  wrongCaption_ = new QLabel(this);
  wrongCaption_->setObjectName("misclassifiedCaption");
  wrongCaption_->setWordWrap(true);
  wrong_ = new MisclassifiedView(this);
  auto* wrongBox = new QWidget(this);
  auto* wrongLayout = new QVBoxLayout(wrongBox);
  wrongLayout->setContentsMargins(0, 0, 0, 0);
  wrongLayout->addWidget(wrongCaption_);
  wrongLayout->addWidget(wrong_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(matrix_);
  split->addWidget(classes_);
  split->addWidget(wrongBox);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setStretchFactor(2, 2);
  connect(wrong_, &MisclassifiedView::sampleClicked, this,
          [this](qint64 index) { emit tryItRequested(runDir_, index); });

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);

  connect(epochs_, &QComboBox::activated, this, [this] { showChosen(); });
  poll_ = new QTimer(this);
  poll_->setInterval(1000);
  connect(poll_, &QTimer::timeout, this, &ConfusionPanel::refresh);
  setRunDirectory(QString());
}

void ConfusionPanel::setRunDirectory(const QString& runDir) {
  runDir_ = runDir;
  files_.clear();
  shown_ = bridge::ConfusionView();
  shownModified_ = 0;
  epochs_->clear();
  epochs_->addItem(tr("Latest"), QString());
  if (runDir.isEmpty()) {
    poll_->stop();
  } else {
    poll_->start();
  }
  refresh();
}

void ConfusionPanel::refresh() {
  const QStringList files = runDir_.isEmpty() ? QStringList() : bridge::confusionFiles(runDir_);
  if (files != files_) {
    files_ = files;
    const QString chosen = epochs_->currentData().toString();
    epochs_->clear();
    epochs_->addItem(tr("Latest"), QString());
    for (const QString& file : files_) {
      const QString epoch = QFileInfo(file).completeBaseName().section('-', 1);
      epochs_->addItem(tr("%1").arg(epoch), file);
    }
    const int again = epochs_->findData(chosen);
    epochs_->setCurrentIndex(again < 0 ? 0 : again);
  }
  showChosen();
}

void ConfusionPanel::showChosen() {
  QString file = epochs_->currentData().toString();
  if (file.isEmpty() && !files_.isEmpty()) file = files_.last();
  const qint64 modified = file.isEmpty() ? 0 : QFileInfo(file).lastModified().toMSecsSinceEpoch();
  if (file == shown_.path && modified == shownModified_ && !file.isEmpty()) return;
  shown_ = file.isEmpty() ? bridge::ConfusionView() : bridge::readConfusionFile(file);
  shownModified_ = modified;
  matrix_->setMatrix(shown_.classNames, shown_.counts);
  classes_->setRowCount(static_cast<int>(shown_.perClass.size()));
  for (int i = 0; i < shown_.perClass.size(); ++i) {
    const bridge::ClassRates& k = shown_.perClass[i];
    const QStringList cells{k.name, QString::number(k.samples), percent(k.precision),
                            percent(k.recall)};
    for (int c = 0; c < cells.size(); ++c) classes_->setItem(i, c, new QTableWidgetItem(cells[c]));
  }
  const QImage grid =
      shown_.misclassifiedImage.isEmpty() ? QImage() : QImage(shown_.misclassifiedImage);
  wrong_->setGrid(grid, shown_.misclassified, shown_.misclassifiedColumns, shown_.classNames);
  qint64 wrongTotal = 0;
  for (int t = 0; t < shown_.counts.size(); ++t)
    for (int p = 0; p < shown_.counts[t].size(); ++p)
      if (t != p) wrongTotal += shown_.counts[t][p];
  wrongCaption_->setText(
      grid.isNull() ? QString()
                    : tr("Misclassified: the first %1 of %2 wrong samples (hover a tile for its "
                         "classes; click to try it)")
                              .arg(shown_.misclassifiedCount)
                              .arg(wrongTotal) +
                          (shown_.misclassifiedFrom.isEmpty()
                               ? QString()
                               : tr("; taken from %1").arg(shown_.misclassifiedFrom)));
  if (!shown_.error.isEmpty()) {
    summary_->setText(shown_.error);
  } else if (shown_.path.isEmpty()) {
    summary_->setText(runDir_.isEmpty() ? tr("No run") : tr("No validation pass yet"));
  } else {
    summary_->setText(tr("epoch %1, step %2: accuracy %3 over %4 classes")
                          .arg(shown_.epoch)
                          .arg(shown_.globalStep)
                          .arg(percent(shown_.accuracy))
                          .arg(shown_.classNames.size()));
    emit matrixShown(shown_.epoch);
  }
}

}  // namespace tbench::gui
