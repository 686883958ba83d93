#pragma once
// RunControls: the run's buttons (the Run menu's own actions, so the two never disagree), the
// "save a final checkpoint when stopping" choice and a live learning-rate edit. GUI thread.

#include <QWidget>
#include <optional>

class QAction;
class QCheckBox;
class QLineEdit;
class QPushButton;

namespace tbench::gui {

class RunControls : public QWidget {
  Q_OBJECT

 public:
  /// `start`, `stop`, `pause` and `saveNow` are the window's actions, shown as buttons.
  RunControls(QAction* start, QAction* stop, QAction* pause, QAction* saveNow,
              QWidget* parent = nullptr);

  bool saveFinalCheckpoint() const;
  /// Enables the learning-rate edit (while a run is active) and shows the current value.
  void setRunActive(bool active);
  void showLearningRate(double value);
  /// The value typed in the learning-rate field, if it is a positive number.
  std::optional<double> typedLearningRate() const;

 signals:
  void learningRateRequested(double value);

 private:
  void applyLearningRate();

  QCheckBox* saveFinal_;
  QLineEdit* rate_;
  QPushButton* setRate_;
};

}  // namespace tbench::gui
