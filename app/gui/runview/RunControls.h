#pragma once
// RunControls: the run's buttons (the Run menu's own actions, so the two never disagree), the
// "save a final checkpoint when stopping" choice and a live learning-rate edit. The edit shows
// the current run's rate (beginRun, then every learning_rate scalar) until the user types;
// Set is enabled only for an edited, valid value (a positive number), and what is not valid is
// flagged at the field, never changed. GUI thread.

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
  /// A new run: shows `value` (the project's learning rate; NaN: none known) and forgets an edit.
  void beginRun(double value);
  /// The run's current learning rate; shown unless the user is editing the field.
  void showLearningRate(double value);
  /// Empties the field (no run).
  void clearLearningRate();
  /// The value typed in the learning-rate field, if it is a positive number.
  std::optional<double> typedLearningRate() const;
  /// Why the typed text is not a learning rate (empty when it is, or when nothing is typed).
  QString learningRateProblem() const;
  /// Whether the field holds an edit the user has not applied.
  bool isEdited() const { return edited_; }

 signals:
  void learningRateRequested(double value);

 private:
  void applyLearningRate();
  void onEdited();
  void updateRateState();

  QCheckBox* saveFinal_;
  QLineEdit* rate_;
  QPushButton* setRate_;
  bool active_ = false;
  bool edited_ = false;  // typed by the user since the run's value was last shown
};

}  // namespace tbench::gui
