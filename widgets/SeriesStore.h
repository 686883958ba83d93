#pragma once
// SeriesStore: the points of every (run, name) series shown by the live plots, with the
// per-run facts the x axis needs (first wall time, steps per epoch). Each series is bounded
// (Note [Bounded series], Series.h): a run of millions of steps keeps at most
// Series::kMaxPoints points per scalar, its lowest and highest values in each bucket.
//
// Owned and used by the GUI thread only (LivePlotWidget); it has no lock. Series pointers stay
// valid until the series' run is removed or the store is cleared.

#include <QHash>
#include <QStringList>
#include <QVector>
#include <memory>

#include "widgets/MetricPoint.h"
#include "widgets/Series.h"
#include "widgets/SeriesKey.h"
#include "widgets/XMapping.h"

namespace tbench::ui {

class SeriesStore {
 public:
  /// Appends the points in order (O(1) each, smoothing included). Returns the keys that
  /// received points, each once, in the order first seen in this batch.
  QVector<SeriesKey> append(const MetricPoints& points);

  /// The series for `key`, or nullptr if no point of it has arrived.
  const Series* series(const SeriesKey& key) const;
  /// Every key, in creation order.
  const QVector<SeriesKey>& keys() const { return keys_; }
  /// Every run, in the order their first point arrived.
  const QStringList& runs() const { return runs_; }
  /// Points held across all series (kept points, see Series::size).
  qint64 pointCount() const { return pointCount_; }

  /// Sets the smoothing weight a of every series, present and future (clamped to
  /// [0, EmaSmoother::kMaxWeight]); recomputes all smoothed values if it changed.
  void setSmoothingWeight(double weight);
  double smoothingWeight() const { return smoothingWeight_; }

  /// Declares how many steps an epoch of `run` has (the project knows); 0 goes back to the
  /// estimate: after epoch E ends (a point of a later epoch arrives), max step in E / E.
  void setStepsPerEpoch(const QString& run, qint64 steps);
  /// Declared or estimated steps per epoch of `run`; 0 while unknown.
  double stepsPerEpoch(const QString& run) const;
  /// Changes whenever stepsPerEpoch(run) changes, so charts in epoch mode know to re-key.
  int epochScaleRevision(const QString& run) const;
  /// How x is computed for the points of `run` in `mode`.
  XMapping xMapping(const QString& run, XAxisMode mode) const;
  /// The x in `mode` of the latest point of `run` in any series (where a held value such as
  /// the learning rate still holds); 0 for an unknown run.
  double runEndX(const QString& run, XAxisMode mode) const;

  /// Forgets a run and its series.
  void removeRun(const QString& run);
  /// Forgets everything; the smoothing weight is kept.
  void clear();

 private:
  struct RunInfo {
    bool started = false;  // a point has arrived (a declared steps-per-epoch may come first)
    double wallOrigin = 0.0;
    qint64 declaredStepsPerEpoch = 0;
    double estimatedStepsPerEpoch = 0.0;
    qint64 currentEpoch = 0;  // highest epoch seen so far
    qint64 maxStepInCurrentEpoch = 0;
    int epochScaleRevision = 0;
    qint64 lastStep = 0;  // the highest step, epoch and wall time of any point
    qint64 lastEpoch = 0;
    double lastWallTime = 0.0;
  };
  void noteEpoch(RunInfo& info, qint64 epoch, qint64 step);

  QHash<SeriesKey, std::shared_ptr<Series>> series_;
  QVector<SeriesKey> keys_;
  QStringList runs_;
  QHash<QString, RunInfo> runInfo_;
  double smoothingWeight_ = 0.0;
  qint64 pointCount_ = 0;
};

}  // namespace tbench::ui
