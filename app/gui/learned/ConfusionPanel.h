#pragma once
// ConfusionPanel: "what the model learned" for one run: the confusion matrix of a validation
// pass as a heat map (ui::ConfusionMatrixWidget) with the epoch it shows, the overall accuracy
// and each class's accuracy (recall) and precision, and the grid of the pass's misclassified
// samples (MisclassifiedView: hover a tile for its classes, click it to try it). It reads
// <run>/confusion/epoch-<E>.json (written by the engine's ConfusionMatrix after every validation
// pass, with epoch-<E>-misclassified.png) and, set to a live run, looks for new files every second
// and follows the latest epoch unless the user picked one. Qt only (the files are read with
// bridge/LearnedTypes.h); GUI thread.

#include <QWidget>

#include "app/bridge/LearnedTypes.h"

class QComboBox;
class QLabel;
class QTableWidget;
class QTimer;

namespace tbench::ui {
class ConfusionMatrixWidget;
}

namespace tbench::gui {

class MisclassifiedView;

class ConfusionPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ConfusionPanel(QWidget* parent = nullptr);

  /// Shows the confusion matrices of `runDir` (empty: none) and watches it for new ones.
  void setRunDirectory(const QString& runDir);
  QString runDirectory() const { return runDir_; }
  /// Re-reads the run's confusion files now (the timer does it every second).
  void refresh();

  /// The matrix shown (empty `path` when none).
  const bridge::ConfusionView& shown() const { return shown_; }
  ui::ConfusionMatrixWidget* matrix() const { return matrix_; }
  MisclassifiedView* misclassified() const { return wrong_; }
  QComboBox* epochChooser() const { return epochs_; }

 signals:
  /// A (new) matrix is shown.
  void matrixShown(qint64 epoch);
  /// A misclassified sample was clicked: try the run's checkpoint on validation sample `index`.
  void tryItRequested(const QString& runDir, qint64 index);

 private:
  void showChosen();

  QString runDir_;
  QStringList files_;  // the run's confusion files, oldest first
  bridge::ConfusionView shown_;
  qint64 shownModified_ = 0;  // the shown file's modification time (ms), to see rewrites
  QComboBox* epochs_ = nullptr;
  QLabel* summary_ = nullptr;
  ui::ConfusionMatrixWidget* matrix_ = nullptr;
  QTableWidget* classes_ = nullptr;
  QLabel* wrongCaption_ = nullptr;
  MisclassifiedView* wrong_ = nullptr;
  QTimer* poll_ = nullptr;
};

}  // namespace tbench::gui
