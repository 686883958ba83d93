#include "app/gui/history/ExportCheckpointDialog.h"
#include "widgets/Palette.h"

#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <exception>
#include <memory>
#include <thread>

namespace tbench::gui {
namespace {

constexpr int kPathRole = Qt::UserRole;
constexpr int kStepRole = Qt::UserRole + 1;
constexpr int kOtherRole = Qt::UserRole + 2;  // the "Other file…" entry

QString native(const QString& path) { return QDir::toNativeSeparators(path); }

QString& lastDirectoryValue() {
  static QString dir;
  return dir;
}

}  // namespace

ExportCheckpointDialog::ExportCheckpointDialog(bridge::CheckpointExporter exporter, QWidget* parent)
    : QDialog(parent), exporter_(std::move(exporter)) {
  setWindowTitle(tr("Export Checkpoint"));
  confirmOverwrite_ = [this](const QString& destination) {
    return QMessageBox::question(this, tr("Replace file?"),
                                 tr("%1 already exists.\nReplace it?").arg(native(destination)),
                                 QMessageBox::Yes | QMessageBox::No,
                                 QMessageBox::No) == QMessageBox::Yes;
  };
  pickCheckpoint_ = [this](const QString& startDir) {
    return QFileDialog::getOpenFileName(this, tr("Checkpoint to export"), startDir,
                                        tr("Checkpoints (*.pt);;All files (*)"));
  };

  runCombo_ = new QComboBox(this);
  runCombo_->setObjectName("runCombo");
  checkpointCombo_ = new QComboBox(this);
  checkpointCombo_->setObjectName("checkpointCombo");
  formatCombo_ = new QComboBox(this);
  formatCombo_->setObjectName("formatCombo");
  formatCombo_->addItem(tr("PyTorch (.pt, torch.load)"), QStringLiteral("pt"));
  formatCombo_->addItem(tr("safetensors"), QStringLiteral("safetensors"));
  formatCombo_->addItem(tr("TorchScript (torch.jit.load; network and weights, eval mode)"),
                        QStringLiteral("torchscript"));
  previousFormat_ = format();

  destinationEdit_ = new QLineEdit(this);
  destinationEdit_->setObjectName("destinationEdit");
  destinationEdit_->setMinimumWidth(380);
  auto* browse = new QPushButton(tr("Browse\u2026"), this);
  browse->setObjectName("browseDestinationButton");
  auto* destinationRow = new QHBoxLayout;
  destinationRow->addWidget(destinationEdit_, 1);
  destinationRow->addWidget(browse);

  averageBox_ = new QCheckBox(tr("The weight average (EMA) instead of the raw weights"), this);
  averageBox_->setObjectName("weightAverageBox");
  averageBox_->setToolTip(
      tr("A run trained with trainer.ema_decay keeps a moving average of its "
         "weights in every checkpoint (what its validation used)"));

  auto* form = new QFormLayout;
  form->addRow(tr("Run:"), runCombo_);
  form->addRow(tr("Checkpoint:"), checkpointCombo_);
  form->addRow(tr("Format:"), formatCombo_);
  form->addRow(QString(), averageBox_);
  form->addRow(tr("Destination:"), destinationRow);

  resultLabel_ = new QLabel(this);
  resultLabel_->setObjectName("resultLabel");
  resultLabel_->setWordWrap(true);
  resultLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  exportButton_ = buttons->addButton(tr("Export"), QDialogButtonBox::ActionRole);
  exportButton_->setObjectName("exportButton");
  exportButton_->setDefault(true);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(resultLabel_);
  layout->addStretch(1);
  layout->addWidget(buttons);

  connect(runCombo_, &QComboBox::currentIndexChanged, this, &ExportCheckpointDialog::onRunChanged);
  connect(checkpointCombo_, &QComboBox::activated, this,
          &ExportCheckpointDialog::onCheckpointActivated);
  connect(checkpointCombo_, &QComboBox::currentIndexChanged, this,
          &ExportCheckpointDialog::updateDefaultDestination);
  connect(formatCombo_, &QComboBox::currentIndexChanged, this,
          &ExportCheckpointDialog::onFormatChanged);
  connect(destinationEdit_, &QLineEdit::textEdited, this, [this] { destinationEdited_ = true; });
  connect(browse, &QPushButton::clicked, this, &ExportCheckpointDialog::browseDestination);
  connect(exportButton_, &QPushButton::clicked, this, [this] { exportNow(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &ExportCheckpointDialog::reject);
  onRunChanged();
}

QString ExportCheckpointDialog::lastDirectory() {
  return lastDirectoryValue().isEmpty() ? QDir::homePath() : lastDirectoryValue();
}

void ExportCheckpointDialog::setLastDirectory(const QString& dir) { lastDirectoryValue() = dir; }

void ExportCheckpointDialog::setRuns(const QStringList& runDirs, const QString& preselected) {
  runs_.clear();
  for (const QString& dir : runDirs) runs_.push_back(readRunDirectory(dir));
  const QString wanted = preselected.isEmpty() ? QString() : QDir(preselected).absolutePath();
  int selected = 0;
  const QSignalBlocker block(runCombo_);
  runCombo_->clear();
  for (int i = 0; i < runs_.size(); ++i) {
    const RunDirectoryInfo& run = runs_.at(i);
    QString label = QStringLiteral("%1 \u2014 %2").arg(run.runId, toString(run.status));
    if (run.lastGlobalStep >= 0) label += tr(", step %1").arg(run.lastGlobalStep);
    runCombo_->addItem(label, run.dir);
    runCombo_->setItemData(i, native(run.dir), Qt::ToolTipRole);
    if (run.dir == wanted) selected = i;
  }
  runCombo_->setCurrentIndex(runs_.isEmpty() ? -1 : selected);
  onRunChanged();
}

QString ExportCheckpointDialog::runDir() const {
  const int i = runCombo_->currentIndex();
  return i >= 0 && i < runs_.size() ? runs_.at(i).dir : QString();
}

QString ExportCheckpointDialog::checkpointPath() const {
  return checkpointCombo_->currentData(kPathRole).toString();
}

QString ExportCheckpointDialog::format() const { return formatCombo_->currentData().toString(); }

QString ExportCheckpointDialog::destination() const { return destinationEdit_->text(); }

QString ExportCheckpointDialog::resultText() const { return resultLabel_->text(); }

void ExportCheckpointDialog::setDestination(const QString& path) {
  destinationEdited_ = true;
  destinationEdit_->setText(path);
}

void ExportCheckpointDialog::setFormat(const QString& format) {
  const int i = formatCombo_->findData(format);
  if (i >= 0) formatCombo_->setCurrentIndex(i);
}

void ExportCheckpointDialog::selectCheckpointIndex(int index) {
  if (index < 0 || index >= checkpointCombo_->count()) return;
  checkpointCombo_->setCurrentIndex(index);
  onCheckpointActivated(index);
}

int ExportCheckpointDialog::checkpointComboCount() const { return checkpointCombo_->count(); }

int ExportCheckpointDialog::otherFileIndex() const { return checkpointCombo_->count() - 1; }

void ExportCheckpointDialog::onRunChanged() {
  const int i = runCombo_->currentIndex();
  choices_ = i >= 0 && i < runs_.size() ? gui::checkpointChoices(runs_.at(i))
                                        : QVector<CheckpointChoice>();
  const QSignalBlocker block(checkpointCombo_);
  checkpointCombo_->clear();
  auto* model = qobject_cast<QStandardItemModel*>(checkpointCombo_->model());
  int first = -1;
  for (int c = 0; c < choices_.size(); ++c) {
    const CheckpointChoice& choice = choices_.at(c);
    checkpointCombo_->addItem(choice.label);
    checkpointCombo_->setItemData(c, choice.path, kPathRole);
    checkpointCombo_->setItemData(c, choice.globalStep, kStepRole);
    checkpointCombo_->setItemData(c, native(choice.detail), Qt::ToolTipRole);
    if (model && !choice.exists) model->item(c)->setEnabled(false);
    if (first < 0 && choice.exists) first = c;
  }
  checkpointCombo_->addItem(tr("Other file\u2026"));
  checkpointCombo_->setItemData(otherFileIndex(), true, kOtherRole);
  checkpointCombo_->setCurrentIndex(first >= 0 ? first : otherFileIndex());
  lastCheckpointIndex_ = checkpointCombo_->currentIndex();
  updateDefaultDestination();
}

void ExportCheckpointDialog::onCheckpointActivated(int index) {
  if (!checkpointCombo_->itemData(index, kOtherRole).toBool()) {
    lastCheckpointIndex_ = index;
    return;
  }
  const QString start = runDir().isEmpty() ? lastDirectory() : runDir();
  const QString picked = pickCheckpoint_ ? pickCheckpoint_(start) : QString();
  if (picked.isEmpty()) {  // cancelled: back to what was selected
    checkpointCombo_->setCurrentIndex(lastCheckpointIndex_);
    return;
  }
  const QString path = QFileInfo(picked).absoluteFilePath();
  int at = checkpointCombo_->findData(path, kPathRole);
  if (at < 0) {
    at = otherFileIndex();
    checkpointCombo_->insertItem(at, QFileInfo(path).fileName());
    checkpointCombo_->setItemData(at, path, kPathRole);
    checkpointCombo_->setItemData(at, globalStepOfCheckpointName(QFileInfo(path).fileName()),
                                  kStepRole);
    checkpointCombo_->setItemData(at, native(path), Qt::ToolTipRole);
  }
  checkpointCombo_->setCurrentIndex(at);
  lastCheckpointIndex_ = at;
}

void ExportCheckpointDialog::onFormatChanged() {
  const QString oldSuffix = '.' + exportExtension(previousFormat_);
  previousFormat_ = format();
  if (!destinationEdited_) {
    updateDefaultDestination();
    return;
  }
  // A chosen name keeps its folder and stem; only the extension follows the format.
  QString dest = destinationEdit_->text();
  if (dest.endsWith(oldSuffix)) {
    dest.chop(oldSuffix.size());
    destinationEdit_->setText(dest + '.' + exportExtension(format()));
  }
}

void ExportCheckpointDialog::updateDefaultDestination() {
  if (destinationEdited_) return;
  const QString path = checkpointPath();
  if (path.isEmpty()) {
    destinationEdit_->clear();
    return;
  }
  const int i = runCombo_->currentIndex();
  const RunDirectoryInfo* run = i >= 0 && i < runs_.size() ? &runs_.at(i) : nullptr;
  const qint64 step = checkpointCombo_->currentData(kStepRole).toLongLong();
  const QString name = defaultExportFileName(run ? run->projectName : QString(),
                                             run ? run->runId : QString(), step, path, format());
  destinationEdit_->setText(QDir(lastDirectory()).filePath(name));
}

void ExportCheckpointDialog::browseDestination() {
  const QString filter = format() == QLatin1String("safetensors")
                             ? tr("safetensors (*.safetensors)")
                             : (format() == QLatin1String("torchscript") ? tr("TorchScript (*.pt)")
                                                                         : tr("PyTorch (*.pt)"));
  // Replacing is confirmed by exportNow, once, whichever way the name was chosen.
  const QString chosen = QFileDialog::getSaveFileName(
      this, tr("Export to"), destination().isEmpty() ? lastDirectory() : destination(), filter,
      nullptr, QFileDialog::DontConfirmOverwrite);
  if (!chosen.isEmpty()) setDestination(chosen);
}

void ExportCheckpointDialog::showResult(const QString& text, bool ok) {
  resultLabel_->setText(text);
  resultLabel_->setStyleSheet(ok ? QString() : ui::Palette::errorText());
}

void ExportCheckpointDialog::setBusy(bool busy) {
  busy_ = busy;
  for (QWidget* w : std::initializer_list<QWidget*>{runCombo_, checkpointCombo_, formatCombo_,
                                                    destinationEdit_, exportButton_}) {
    w->setEnabled(!busy);
  }
  exportButton_->setText(busy ? tr("Exporting\u2026") : tr("Export"));
}

void ExportCheckpointDialog::reject() {
  if (!busy_) QDialog::reject();
}

void ExportCheckpointDialog::closeEvent(QCloseEvent* event) {
  if (busy_) {
    event->ignore();
    return;
  }
  QDialog::closeEvent(event);
}

bool ExportCheckpointDialog::exportNow() {
  if (busy_) return false;
  const QString source = checkpointPath();
  if (source.isEmpty()) {
    showResult(tr("Choose a checkpoint to export."), false);
    return false;
  }
  if (!QFileInfo(source).isFile()) {
    showResult(tr("The checkpoint %1 does not exist.").arg(native(source)), false);
    return false;
  }
  const QString typed = destination().trimmed();
  if (typed.isEmpty()) {
    showResult(tr("Choose where to write the export."), false);
    return false;
  }
  const QString dest = QDir::cleanPath(QDir(lastDirectory()).absoluteFilePath(typed));
  const QFileInfo destInfo(dest);
  if (destInfo.isDir()) {
    showResult(tr("%1 is a folder; give a file name.").arg(native(dest)), false);
    return false;
  }
  if (!destInfo.dir().exists()) {
    showResult(tr("The folder %1 does not exist.").arg(native(destInfo.absolutePath())), false);
    return false;
  }
  if (destInfo.exists() && destInfo.canonicalFilePath() == QFileInfo(source).canonicalFilePath()) {
    showResult(tr("%1 is the checkpoint itself; choose another destination.").arg(native(dest)),
               false);
    return false;
  }
  if (destInfo.exists() && !(confirmOverwrite_ && confirmOverwrite_(dest))) {
    showResult(tr("Not exported: %1 already exists and was kept.").arg(native(dest)), false);
    return false;
  }
  if (!exporter_) {
    showResult(tr("Export is not available: no exporter."), false);
    return false;
  }

  // The exporter reads and writes whole checkpoints: run it off the GUI thread and keep the
  // dialog painting until it is done.
  struct Outcome {
    bool ok = false;
    QString message;
  };
  auto outcome = std::make_shared<Outcome>();
  setBusy(true);
  showResult(tr("Exporting %1\u2026").arg(native(source)), true);
  QEventLoop loop;
  std::thread worker([exporter = exporter_, source, format = format(), dest, outcome, &loop,
                      average = averageBox_->isChecked()] {
    try {
      outcome->ok = exporter(source, format, dest, average, &outcome->message);
    } catch (const std::exception& e) {
      outcome->ok = false;
      outcome->message = QString::fromUtf8(e.what());
    } catch (...) {
      outcome->ok = false;
      outcome->message = QStringLiteral("unknown exception");
    }
    QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
  });
  loop.exec();
  worker.join();
  setBusy(false);

  const QFileInfo written(dest);
  if (outcome->ok && !written.isFile()) {
    outcome->ok = false;
    outcome->message =
        tr("the exporter reported success but wrote nothing (%1)").arg(outcome->message);
  }
  if (!outcome->ok) {
    QString text = tr("Export failed: %1")
                       .arg(outcome->message.isEmpty() ? tr("no reason given") : outcome->message);
    // The message should name the files (the exporter's contract); make sure it does.
    if (!outcome->message.contains(QFileInfo(source).fileName())) {
      text += '\n' + tr("Checkpoint: %1").arg(native(source));
    }
    if (!outcome->message.contains(destInfo.fileName())) {
      text += '\n' + tr("Destination: %1").arg(native(dest));
    }
    showResult(text, false);
    return false;
  }
  destinationEdit_->setText(dest);
  setLastDirectory(written.absolutePath());
  const QString wrote =
      tr("Wrote %1 (%2).").arg(native(dest), QLocale().formattedDataSize(written.size()));
  showResult(outcome->message.isEmpty() ? wrote : outcome->message + '\n' + wrote, true);
  emit exported(dest);
  return true;
}

}  // namespace tbench::gui
