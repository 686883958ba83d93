#pragma once
// ModelPanel: the "Model" dock (issue 37): the parameter tree of the saved project's model as
// a run builds it (`towerbench-cli summary PROJECT --json`, run in the background: the
// window never builds a model in its own thread). One row per module, one per tensor under
// it: shape, count, trainable or frozen (optimizer.param_groups), optimizer group and
// learning rate, and what `init` did with it (loaded, kept: its shape differs, missing from
// the file). Totals above the tree; a note when the document has edits not yet saved (the
// panel shows the saved file).
//
// Named for tests: "modelPanel.refresh", "modelPanel.tree", "modelPanel.totals",
// "modelPanel.note". GUI thread.

#include <QJsonObject>
#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace tbench::gui {

class CliProcess;

class ModelPanel : public QWidget {
  Q_OBJECT

 public:
  explicit ModelPanel(QWidget* parent = nullptr);
  ~ModelPanel() override;

  /// The project the panel describes (empty: none saved yet) and whether the document has
  /// unsaved edits; a new path refreshes when the panel is visible.
  void setProject(const QString& path, bool modified);
  /// Runs the summary of the project again; false (said in the note) when it cannot start.
  bool refresh();
  bool isBusy() const;
  /// Shows `summary` (the JSON of `towerbench-cli summary --json`).
  void showSummary(const QJsonObject& summary);
  void setCli(const QString& cli) { cli_ = cli; }

  QTreeWidget* tree() const { return tree_; }
  QLabel* totals() const { return totals_; }

 signals:
  /// A summary was shown (or failed: `ok` false).
  void refreshed(bool ok);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void finished(int exitStatus);

  QString project_;
  bool stale_ = false;  // the project changed or was saved since the last refresh
  QString cli_;
  bool modified_ = false;
  CliProcess* process_ = nullptr;
  QByteArray output_;
  QPushButton* refresh_;
  QLabel* totals_;
  QLabel* note_;
  QTreeWidget* tree_;
};

}  // namespace tbench::gui
