#pragma once
// LivePlotWidget: the live plots of one or more runs. Scalars arrive as MetricPoints; each is
// put on a chart chosen by ChartGrouping (charts are created on demand, "loss & error" first)
// and drawn raw (faint) and smoothed. A tool bar (PlotControls) sets smoothing, x axis mode,
// log y, fit and export; every chart also has its own menu (right button).
//
// Coalescing (see docs/ARCHITECTURE.md §2): appendPoints() only stores the points and marks
// their charts dirty; a single-shot timer, started by the first append after a flush, fires
// kCoalesceMs later and replots each dirty chart once. However many appends arrive, the plots
// are redrawn at most once per interval (~25 per second), so a run at thousands of steps per
// second never floods the GUI thread. flush() does the same pass at once. The interval also
// adapts to the cost of a pass: it is at least kReplotBudgetFactor times the last pass's
// duration (at most kMaxCoalesceMs), so replotting never takes more than about 5% of the GUI
// thread, which on a 2-core machine shares the cores with the training.
//
// GUI thread only: every method, including appendPoints (the bridge queues its signal here).

#include <QHash>
#include <QSet>
#include <QTimer>
#include <QWidget>
#include <functional>

#include "widgets/MetricPoint.h"
#include "widgets/SeriesStore.h"
#include "widgets/XAxisMode.h"

class QGridLayout;
class QLabel;
class QScrollArea;

namespace tbench::ui {

class MetricChart;
class PlotControls;
struct ChartPlacement;

class LivePlotWidget : public QWidget {
  Q_OBJECT
 public:
  /// Shortest time between two replots of the same data stream.
  static constexpr int kCoalesceMs = 40;
  /// Longest interval the adaptation may reach (4 replots per second).
  static constexpr int kMaxCoalesceMs = 250;
  /// The interval is at least this many times the duration of the last pass.
  static constexpr double kReplotBudgetFactor = 20.0;
  /// Smoothing weight on start-up (TensorBoard's default).
  static constexpr double kDefaultSmoothing = 0.6;

  explicit LivePlotWidget(QWidget* parent = nullptr);
  ~LivePlotWidget() override;

  /// Stores the points (in order) and schedules a coalesced replot. Never replots itself.
  void appendPoints(const MetricPoints& points);
  /// Applies everything pending now: creates charts, syncs and replots the dirty ones.
  void flush();

  /// The smoothing weight a in [0, 0.999] of every curve (applied on the next flush).
  void setSmoothingWeight(double weight);
  double smoothingWeight() const { return smoothingWeight_; }
  void setXAxisMode(XAxisMode mode);
  XAxisMode xAxisMode() const { return xMode_; }
  /// Log y on every chart, present and future. Charts whose scalar asks for it (the learning
  /// rate) start logarithmic regardless; turning this off makes every chart linear.
  void setLogY(bool on);
  bool logY() const { return logY_; }
  /// Fits every chart to its data; they follow new points again.
  void fitAll();

  /// Shows or hides a run's curves on every chart (to overlay selected runs of the history).
  void setRunVisible(const QString& run, bool visible);
  bool isRunVisible(const QString& run) const { return !hiddenRuns_.contains(run); }
  /// Runs with at least one point, in arrival order.
  QStringList runs() const { return store_.runs(); }
  /// Steps per epoch of `run`, for the epoch axis (see SeriesStore::setStepsPerEpoch).
  void setStepsPerEpoch(const QString& run, qint64 steps);
  /// Removes every chart and point.
  void clear();
  /// What the chart area says while there is no chart (before the first scalar arrives).
  void setEmptyText(const QString& text);

  /// Chart titles in display order.
  QStringList chartTitles() const;
  /// The chart with `title`, or nullptr.
  MetricChart* chart(const QString& title) const;
  const SeriesStore& store() const { return store_; }
  PlotControls* controls() const { return controls_; }
  /// Coalesced replot passes so far (each replots every dirty chart once).
  int replotCount() const { return replotCount_; }
  /// The current coalescing interval in ms (kCoalesceMs .. kMaxCoalesceMs).
  int coalesceIntervalMs() const { return flushTimer_.interval(); }
  /// How long the last pass took, in ms.
  double lastFlushMs() const { return lastFlushMs_; }

  /// The chart area as one image (as shown on screen).
  bool exportPng(const QString& path);
  /// One PDF page per chart, vector graphics.
  bool exportPdf(const QString& path);
  /// Every visible series as CSV (see SeriesCsvWriter).
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 signals:
  /// After each coalesced pass.
  void replotted();

 private:
  void scheduleFlush();
  MetricChart* chartFor(const ChartPlacement& placement);
  void relayoutCharts();
  void markAllDirty();
  void restyleAll();
  void askAndExport(const QString& caption, const QString& filter, const QString& suffix,
                    const std::function<bool(const QString&)>& exporter);

  SeriesStore store_;
  PlotControls* controls_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QWidget* chartArea_ = nullptr;
  QLabel* emptyHint_ = nullptr;  ///< shown while charts_ is empty
  QGridLayout* grid_ = nullptr;
  QVector<MetricChart*> charts_;  // display order
  QHash<SeriesKey, MetricChart*> chartOfKey_;
  QVector<SeriesKey> newKeys_;  // stored but not yet on a chart
  QSet<SeriesKey> newKeySet_;
  QSet<MetricChart*> dirty_;
  QSet<QString> hiddenRuns_;
  QTimer flushTimer_;
  double smoothingWeight_ = kDefaultSmoothing;
  bool smoothingPending_ = false;
  XAxisMode xMode_ = XAxisMode::Step;
  bool logY_ = false;
  int styledRunCount_ = 0;
  int replotCount_ = 0;
  double lastFlushMs_ = 0;
};

}  // namespace tbench::ui
