#pragma once
// ExportCheckpointDialog (File ▸ Export Checkpoint…): writes the model weights of one checkpoint
// of a run as a PyTorch .pt (a dict for torch.load) or a safetensors file, through the engine's
// exporter injected by the window (bridge::CheckpointExporter).
//
//   ExportCheckpointDialog dialog(bridge::checkpointExporter(), this);
//   dialog.setRuns(runDirs, currentRunDir);
//   dialog.exec();
//
// The user picks a run, a checkpoint of it (latest, best by a stat, any model-<step>.pt of the
// index, or any other .pt file), a format and a destination (by default
// <project>-<run>-step<N>.<ext> in the last folder exported to, else the home folder). Export
// never overwrites an existing file without confirmation, then shows the exporter's message,
// the path and the size written, or the error. The exporter runs on a worker thread while the
// dialog keeps painting (it may read and write hundreds of megabytes); it must not touch
// widgets. GUI thread only.
//
// Object names: "runCombo", "checkpointCombo", "formatCombo", "destinationEdit",
// "browseDestinationButton", "exportButton", "resultLabel".

#include <QDialog>
#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/RunDirectoryViews.h"
#include "app/gui/rundir/CheckpointChoices.h"
#include "app/gui/rundir/RunDirectoryInfo.h"

class QCloseEvent;
class QComboBox;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace tbench::gui {

class ExportCheckpointDialog : public QDialog {
  Q_OBJECT

 public:
  /// Asked before an existing destination is replaced; returns true to replace it.
  using ConfirmOverwrite = std::function<bool(const QString& destination)>;
  /// Picks a checkpoint file for "Other file…", starting in `startDir`; empty when cancelled.
  using FilePicker = std::function<QString(const QString& startDir)>;

  explicit ExportCheckpointDialog(bridge::CheckpointExporter exporter, QWidget* parent = nullptr);

  /// Lists these runs (newest first is the caller's order) and selects `preselected` (or the
  /// first run when it is empty or not among them).
  void setRuns(const QStringList& runDirs, const QString& preselected = QString());

  /// The selected run directory, or empty.
  QString runDir() const;
  /// The checkpoints listed for the selected run (without "Other file…" and picked files).
  const QVector<CheckpointChoice>& checkpointChoices() const { return choices_; }
  /// The path of the selected checkpoint, or empty.
  QString checkpointPath() const;
  /// "pt" or "safetensors".
  QString format() const;
  /// The destination file as typed (absolute once exported).
  QString destination() const;
  /// What the last export attempt showed (message, path and size, or the error).
  QString resultText() const;

  /// Sets the destination as if the user typed it (later defaults no longer replace it).
  void setDestination(const QString& path);
  /// "pt" or "safetensors"; anything else is ignored.
  void setFormat(const QString& format);
  /// Selects entry `index` of the checkpoint combo; the last entry is "Other file…", which
  /// asks the file picker.
  void selectCheckpointIndex(int index);
  /// Entries in the checkpoint combo, "Other file…" included.
  int checkpointComboCount() const;

  /// Replaces the QMessageBox question (tests).
  void setConfirmOverwrite(ConfirmOverwrite confirm) { confirmOverwrite_ = std::move(confirm); }
  /// Replaces the QFileDialog of "Other file…" (tests).
  void setCheckpointFilePicker(FilePicker picker) { pickCheckpoint_ = std::move(picker); }

  /// What the Export button does: checks the choices, asks before replacing the destination,
  /// runs the exporter and shows the outcome. Returns true when the file was written.
  bool exportNow();

  /// The folder the default destination is in: the last one exported to in this process (the
  /// window may persist it), else the home folder.
  static QString lastDirectory();
  static void setLastDirectory(const QString& dir);

 signals:
  /// A file was written at `path`.
  void exported(const QString& path);

 protected:
  /// Ignored while an export runs (the exporter is writing the file).
  void reject() override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void setBusy(bool busy);
  void onRunChanged();
  void onCheckpointActivated(int index);
  void onFormatChanged();
  void browseDestination();
  void updateDefaultDestination();
  void showResult(const QString& text, bool ok);
  int otherFileIndex() const;

  bridge::CheckpointExporter exporter_;
  ConfirmOverwrite confirmOverwrite_;
  FilePicker pickCheckpoint_;
  QVector<RunDirectoryInfo> runs_;
  QVector<CheckpointChoice> choices_;
  QString previousFormat_;
  bool busy_ = false;               // an export is running on the worker thread
  bool destinationEdited_ = false;  // the user chose the destination: defaults stop replacing it
  int lastCheckpointIndex_ = -1;    // to return to when "Other file…" is cancelled
  QComboBox* runCombo_ = nullptr;
  QComboBox* checkpointCombo_ = nullptr;
  QComboBox* formatCombo_ = nullptr;
  QCheckBox* averageBox_ = nullptr;  // "weightAverageBox": the EMA weights
  QLineEdit* destinationEdit_ = nullptr;
  QPushButton* exportButton_ = nullptr;
  QLabel* resultLabel_ = nullptr;
};

}  // namespace tbench::gui
