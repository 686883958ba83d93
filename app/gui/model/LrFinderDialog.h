#pragma once
// LrFinderDialog: Run ▸ Find Learning Rate… (issue 37). Runs the learning-rate range test of a
// saved project in `towerbench-cli find-lr` (engine/run/LrFinder.h: Lightning's lr_find; the
// window never trains in its own thread for it) and draws each step as it comes: the cost and
// its smoothed curve against the rate, on a logarithmic rate axis. When the test ends it marks
// the suggested rate (the steepest descent of the smoothed cost) and "Use This Rate" hands it
// to the window, which sets optimizer.learning_rate in the document (an edit, undoable, not
// saved). The range (start, end) and the steps are editable before Start. Closing the dialog
// stops a test that still runs.
//
// Widgets are named for tests: "lrFinder.start", "lrFinder.plot", "lrFinder.use",
// "lrFinder.status", "lrFinder.from", "lrFinder.to", "lrFinder.steps". GUI thread.

#include <QDialog>
#include <QVector>

class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tbench::gui {

class CliProcess;

class LrFinderDialog : public QDialog {
  Q_OBJECT

 public:
  /// `projectPath`: a saved project file; `cli`: the towerbench-cli to run (empty: the one
  /// beside the program).
  explicit LrFinderDialog(const QString& projectPath, const QString& cli = QString(),
                          QWidget* parent = nullptr);
  ~LrFinderDialog() override;

  /// Starts the test with the fields' range; false (with the reason in the status line) when
  /// the CLI cannot start or a field is not a number.
  bool start();
  bool isRunning() const;
  /// The suggested rate of the last finished test; 0 when none.
  double suggestedRate() const { return suggested_; }
  const QVector<double>& rates() const { return rates_; }
  const QVector<double>& smoothed() const { return smoothed_; }
  QCustomPlot* plot() const { return plot_; }

 signals:
  /// The user chose `rate` (Use This Rate).
  void rateChosen(double rate);

 private:
  void readLines(const QStringList& lines);
  void finish(int exitStatus);
  void redraw();

  QString project_;
  QString cli_;
  CliProcess* process_ = nullptr;
  QLineEdit* from_;
  QLineEdit* to_;
  QSpinBox* steps_;
  QPushButton* start_;
  QPushButton* use_;
  QLabel* status_;
  QCustomPlot* plot_;
  QVector<double> rates_, losses_, smoothed_;
  double suggested_ = 0;
  QString lastError_;
};

}  // namespace tbench::gui
