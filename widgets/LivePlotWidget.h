#pragma once
// LivePlotWidget: the live plots of one or more runs. Scalars arrive as MetricPoints; each is
// put on a chart chosen by ChartGrouping (charts are created on demand) and drawn raw (faint)
// and smoothed. A tool bar (PlotControls) sets smoothing, x axis mode, log y, fit and export;
// every chart also has its own menu (right button).
//
// Several runs: each run has one colour on every chart (setRunAppearance) and a chip in the
// run selector above the charts (RunSelector.h), where it is shown or hidden; the legends then
// list each scalar once, by line style.
//
// Layout: the primary chart (losses and error rates, ChartPlacement::primary; else the first
// chart) fills the width and the height that is left; the other charts share a strip below it,
// up to kMaxSecondaryColumns side by side (fewer where the area is narrow), each about
// kSecondaryShare of the area's height over the strip's rows. Every chart sits in a ChartPanel:
// its header collapses it, and enlarges it to the whole area (again to restore). The
// input queue's panel says "data-bound" while the queue stays nearly empty.
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
class QVBoxLayout;

namespace tbench::ui {

class ChartPanel;
class MetricChart;
class PlotControls;
class RunSelector;
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
  /// Most charts side by side below the primary chart, and the narrowest each may be.
  static constexpr int kMaxSecondaryColumns = 4;
  static constexpr int kMinSecondaryWidth = 220;
  /// The share of the area's height the strip of smaller charts takes (within bounds).
  static constexpr double kSecondaryShare = 0.36;
  /// The input queue's fullness under which the run is called data-bound.
  static constexpr double kDataBoundFullness = 0.1;

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

  /// Puts a run on the charts or takes it off (to overlay selected runs of the history); a run
  /// taken off leaves the run selector too.
  void setRunVisible(const QString& run, bool visible);
  /// Whether the run's curves are drawn: on the charts and not hidden in the run selector.
  bool isRunVisible(const QString& run) const {
    return !hiddenRuns_.contains(run) && !mutedRuns_.contains(run);
  }
  /// Shows or hides a run's curves while it stays in the run selector (what its chip does).
  void setRunShown(const QString& run, bool shown);
  /// The name and colour a run has on the charts and in the run selector (default: its id and
  /// Palette::categorical of its arrival position).
  void setRunAppearance(const QString& run, const QString& name, const QColor& colour);
  /// setRunAppearance for many runs at once (run -> name, colour): one restyle.
  void setRunAppearances(const QHash<QString, QPair<QString, QColor>>& looks);
  /// The run being trained, marked "(live)" in the run selector.
  void setLiveRun(const QString& run);
  /// The chips above the charts (RunSelector.h).
  RunSelector* runSelector() const { return runSelector_; }
  /// Runs with at least one point, in arrival order.
  QStringList runs() const { return store_.runs(); }
  /// Steps per epoch of `run`, for the epoch axis (see SeriesStore::setStepsPerEpoch).
  void setStepsPerEpoch(const QString& run, qint64 steps);
  /// Removes every chart and point.
  void clear();
  /// What the chart area says while there is no chart (before the first scalar arrives).
  void setEmptyText(const QString& text);

  /// Chart titles in display order (the primary chart first).
  QStringList chartTitles() const;
  /// The chart with `title`, or nullptr.
  MetricChart* chart(const QString& title) const;
  /// The panel (header and chart) with `title`, or nullptr.
  ChartPanel* panel(const QString& title) const;
  /// The large chart's panel, or nullptr while there is no chart.
  ChartPanel* primaryPanel() const { return panels_.isEmpty() ? nullptr : panels_.first(); }
  /// Fills the chart area with `panel`'s chart; nullptr restores every chart.
  void setEnlargedPanel(ChartPanel* panel);
  ChartPanel* enlargedPanel() const { return enlarged_; }
  /// Charts side by side in the strip below the primary chart (follows the width).
  int secondaryColumns() const { return secondaryColumns_; }
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

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void scheduleFlush();
  MetricChart* chartFor(const ChartPlacement& placement);
  void relayoutCharts();
  void updateSecondaryHeights();
  int columnsFor(int width) const;
  void updateBadge(ChartPanel* panel);
  void markAllDirty();
  void restyleAll();
  void updateRunSelector();
  void applyRunVisibility(const QString& run);
  void askAndExport(const QString& caption, const QString& filter, const QString& suffix,
                    const std::function<bool(const QString&)>& exporter);

  SeriesStore store_;
  PlotControls* controls_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QWidget* chartArea_ = nullptr;
  QLabel* emptyHint_ = nullptr;        ///< shown while panels_ is empty
  QVBoxLayout* areaLayout_ = nullptr;  // empty hint, primary panel, strip
  QWidget* strip_ = nullptr;           // the smaller charts
  QGridLayout* stripGrid_ = nullptr;
  QVector<ChartPanel*> panels_;  // display order: the primary first
  ChartPanel* enlarged_ = nullptr;
  int secondaryColumns_ = 1;
  QHash<SeriesKey, MetricChart*> chartOfKey_;
  QVector<SeriesKey> newKeys_;  // stored but not yet on a chart
  QSet<SeriesKey> newKeySet_;
  QSet<SeriesKey> uncharted_;      // superseded by another scalar of their run (never charted)
  QSet<MetricChart*> heldCharts_;  // charts with a held value: synced when their runs move
  QSet<MetricChart*> dirty_;
  QSet<QString> hiddenRuns_;  // off the charts (not overlaid)
  QSet<QString> mutedRuns_;   // hidden from the run selector
  struct Appearance {
    QString name;
    QColor colour;
  };
  QHash<QString, Appearance> appearance_;
  QString liveRun_;
  RunSelector* runSelector_ = nullptr;
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
