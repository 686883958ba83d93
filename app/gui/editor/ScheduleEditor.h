#pragma once
// ScheduleEditor: the "schedule" object and a preview of the learning rate over the run.
//
// The check box "schedule" adds or removes the object (unticking keeps what it removed, to
// put it back). The shape ("schedule.learning_rate.shape") is a list of points or a named
// shape (cosine, warmup_cosine, one_cycle: engine/callbacks/NamedSchedule.h); choosing a named
// shape removes the points and shows its own settings (length, warm-up, final rate, the
// one-cycle factors), choosing points puts a first point back. Unit and interpolation are
// combo boxes; the points are a two-column table
// ("schedule.learning_rate.points") with Add and Remove buttons, each cell checked as typed
// (an integer step, a number in plain or scientific notation). The preview
// ("schedule.preview", a QCustomPlot) draws what setCurve() is given: the editor passes
// the engine's learning-rate curve of the document (ProjectSummaryView::learningRateCurve),
// learning rate against global step on a log axis. GUI thread only.

#include <QPointF>
#include <QVector>

#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/ProjectSection.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace tbench::gui {

class FormSection;
class IssueMarkers;

class ScheduleEditor : public ProjectSection {
  Q_OBJECT
 public:
  explicit ScheduleEditor(IssueMarkers* markers, QWidget* parent = nullptr);

  void load(const QJsonObject& root) override;

  /// Draws the learning rate at each (global step, value) point; an empty curve clears the
  /// plot and says why (the document is not valid).
  void setCurve(const QVector<QPointF>& points);

  QCheckBox* enabledBox() const { return enabled_; }
  QComboBox* shapeBox() const { return shape_; }
  QTableWidget* pointsTable() const { return points_; }
  QCustomPlot* preview() const { return preview_; }

  /// Appends a point after the last one (one epoch or step later, a tenth of its rate); the
  /// first point is (0, the rate the run starts with: the curve's first value, else the
  /// document's optimizer.learning_rate, else 0 for the user to fill in).
  void addPoint();
  /// Removes the selected points (the last one when none is selected).
  void removeSelectedPoints();

 private:
  void toggle(bool on);
  /// The user chose `shape` (points: a first point back; named: the points removed).
  void chooseShape(const QString& shape);
  void showPoints(const QJsonArray& points);
  QJsonArray tablePoints() const;
  void emitPoints(const QJsonArray& points);
  /// The rate of a first schedule point (see addPoint).
  double firstPointRate() const;

  QCheckBox* enabled_;
  QComboBox* shape_;
  FormSection* options_;
  FormSection* interpolation_;  // points only
  FormSection* named_;          // the named shapes' settings
  QTableWidget* points_;
  QPushButton* add_;
  QPushButton* remove_;
  QCustomPlot* preview_;
  QLabel* previewNote_;
  QJsonObject root_;             // as of the last load
  double startingRate_ = 0;      // the last curve's first value (0: none)
  QJsonObject removedSchedule_;  // what unticking the box removed
  bool loading_ = false;
};

}  // namespace tbench::gui
