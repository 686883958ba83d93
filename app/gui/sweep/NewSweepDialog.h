#pragma once
// NewSweepDialog: Run ▸ New Sweep… (issue 27; docs/ARCHITECTURE.md §6f). Builds a sweep of the
// project being edited: the project's keys are listed (every number, text, true/false and list
// of numbers, by key path: "optimizer.learning_rate", "model.hidden", "callbacks[0].every");
// checking one sweeps it, with what its "sweep" cell says:
//   - values, comma-separated JSON: "0.001, 0.01, 0.1", "[64], [128, 64]", "adam, sgd";
//   - a range for random search, "MIN .. MAX" (a log range, log_uniform_values, when it says
//     "log" or spans two decades or more, q_log_uniform_values with q 1 for whole numbers;
//     else int_uniform for whole numbers, uniform for others).
// Method (grid, random with a trial count), seed, the metric and its goal, and hyperband early
// termination (min_iter, eta) as in the sweep file. As the user edits, the engine checks the
// sweep (bridge::checkSweep: every trial's project through the registry) and the summary says
// the number of trials and the time to expect from the project's last finished run (seconds
// per epoch), or every problem with its key path. "Save and Run" writes the sweep file (beside
// the project by default) and hands it to the Sweeps tab; "Save" only writes it.
// A filter line above the table shows the keys containing its text (and every checked key).
// Object names: "newSweep.filter", "newSweep.keys" (the table: key, current value, sweep),
// "newSweep.method", "newSweep.runCap", "newSweep.seed", "newSweep.metric", "newSweep.goal",
// "newSweep.hyperband", "newSweep.minIter", "newSweep.eta", "newSweep.file", "newSweep.summary",
// "newSweep.save", "newSweep.run". GUI thread only.

#include <QDialog>
#include <QJsonObject>
#include <functional>

#include "app/bridge/ProjectViews.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tbench::gui {

class NewSweepDialog : public QDialog {
  Q_OBJECT

 public:
  using Checker =
      std::function<bridge::SweepCheckView(const QByteArray& sweepJson, const QString& sweepPath)>;

  /// `project` is the project saved at `projectPath`; `secondsPerEpoch` (0: unknown) and
  /// `estimateSource` (which run it comes from) make the time estimate.
  NewSweepDialog(const QJsonObject& project, const QString& projectPath, Checker checker,
                 double secondsPerEpoch, const QString& estimateSource, QWidget* parent = nullptr);

  /// The dialog for the project saved at `projectPath` and edited as `document`: every key the
  /// registry knows can be swept, a key left at its default too (`canonicalize` writes the
  /// defaults out; issue 35); the time estimate is from the newest finished run under
  /// `runRoot`/`projectName`. Sweep files are checked by bridge::checkSweep. Deleted on close.
  static NewSweepDialog* forProject(
      const QJsonObject& document, const QString& projectPath,
      const std::function<QString(const QString& jsonText, QString* error)>& canonicalize,
      const QString& runRoot, const QString& projectName, QWidget* parent);

  /// The key paths listed, in table order.
  QStringList keyPaths() const;
  /// Checks `path` and sets its sweep cell (what the user does in the table).
  void setSwept(const QString& path, const QString& spec);
  /// The sweep document as it stands (format 1), and its problems of parsing the cells.
  QJsonObject sweepDocument(QStringList* problems = nullptr) const;
  /// The last check's result.
  const bridge::SweepCheckView& check() const { return check_; }
  /// The time the summary estimates for the sweep, one trial at a time: the seconds per epoch
  /// times each trial's epochs weighed by its samples per epoch; 0 when there is none.
  double estimatedSeconds() const { return estimatedSeconds_; }
  QString sweepPath() const;

  /// A "sweep" cell as the sweep file's parameter ({"values": [...]} or {"min", "max",
  /// "distribution"}); empty with `*error` when it does not parse.
  static QJsonObject parameterFromText(const QString& text, QString* error);

 signals:
  /// Save and Run: the sweep file was written at `sweepPath`; run it.
  void runRequested(const QString& sweepPath);

 private:
  void fillKeys();
  void applyFilter();
  void recheck();
  bool save();

  QJsonObject project_;
  QString projectPath_;
  Checker checker_;
  double secondsPerEpoch_;
  QString estimateSource_;
  double estimatedSeconds_ = 0;
  bridge::SweepCheckView check_;
  QLineEdit* filter_;
  QTableWidget* keys_;
  QComboBox* method_;
  QSpinBox* runCap_;
  QSpinBox* seed_;
  QComboBox* metric_;
  QComboBox* goal_;
  QCheckBox* hyperband_;
  QSpinBox* minIter_;
  QDoubleSpinBox* eta_;
  QLineEdit* file_;
  QLabel* summary_;
  QPushButton* save_;
  QPushButton* run_;
  bool filling_ = false;
};

}  // namespace tbench::gui
