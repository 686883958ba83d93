#pragma once
// RunSelector: the runs on the charts as one row of chips above them, each with the run's
// colour and name; clicking a chip shows or hides that run's curves on every chart. It
// replaces per-run legend entries: with several runs the charts' legends list each scalar once
// (the line style) and the colour names the run here. Shown only while two or more runs are
// on the charts. GUI thread only.
//
// Object names: "runSelector"; each chip "runChip:<run>".

#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

class QHBoxLayout;
class QToolButton;

namespace tbench::ui {

struct RunChip {
  QString run;   ///< the run's key on the charts (its id)
  QString name;  ///< what the chip says (a label, else the id)
  QColor colour;
  bool shown = true;
  bool live = false;  ///< the run being trained (marked as such)
};

class RunSelector : public QWidget {
  Q_OBJECT
 public:
  explicit RunSelector(QWidget* parent = nullptr);

  /// Replaces the chips (in this order); hides the row for fewer than two.
  void setRuns(const QVector<RunChip>& runs);
  const QVector<RunChip>& runs() const { return runs_; }
  /// The chip of `run`, or nullptr.
  QToolButton* chip(const QString& run) const;

 signals:
  /// The user clicked `run`'s chip.
  void runToggled(const QString& run, bool shown);

 private:
  QVector<RunChip> runs_;
  QVector<QToolButton*> chips_;
  QHBoxLayout* layout_ = nullptr;
};

}  // namespace tbench::ui
