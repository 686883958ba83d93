#pragma once
// MetricChart: one live chart (a QCustomPlot) showing a group of series from a SeriesStore.
//
// Every series is drawn twice: the raw values faintly, behind, and the smoothed values solid
// (the raw curve is hidden while the smoothing weight is 0, where both are the same), each
// by a DecimatedGraph so that a replot costs about the same for 10^4 or 10^7 points.
//
// Series placed on YAxisSide::Right use the second value axis. In a chart of unrelated
// scalars (no fixed axis, e.g. a monitor's "Prefix/..." group) a scalar 20x larger or smaller
// than the left axis' first scalar takes the free second axis when its first points arrive.
//
// A held value (ChartPlacement::heldValue, the learning rate) is drawn unsmoothed as a step line
// and continued from its last point to the run's latest point (SeriesStore::runEndX), so a
// constant learning rate is a line from its first point on. Axes label their ticks plainly
// (NumberAxisTicker, LogAxisTicker, WallTimeAxisTicker), as many as fit the chart's size.
// Fractions (ChartPlacement::unitRange) keep their axis at [0, 1] and read in percent.
//
// Mouse: drag pans, the wheel zooms the x axis only (Ctrl+wheel zooms the values), a double
// click fits, the right button opens a menu (fit, log y, export); hovering shows a cursor line
// and a tooltip with every series' value there. The legend shows when there are two curves or
// more; the title is shown by the ChartPanel around the chart.
//
// The chart is "following" until the user pans or zooms: sync() then keeps the axes fitted
// to the data. fit() follows again.
//
// GUI thread only. The store must outlive the chart; the chart only reads it, in sync(),
// tooltipText() and the exports.

#include <qcustomplot.h>
#include <QHash>
#include <QSet>
#include <QVector>
#include <QWidget>

#include "widgets/ChartPlacement.h"
#include "widgets/DecimatedGraph.h"
#include "widgets/SeriesKey.h"
#include "widgets/SeriesStore.h"
#include "widgets/XAxisMode.h"

namespace tbench::ui {

class MetricChart : public QWidget {
  Q_OBJECT
 public:
  /// Most legend entries side by side (fewer where the chart is narrow).
  static constexpr int kMaxLegendColumns = 4;
  MetricChart(const QString& title, const SeriesStore& store, QWidget* parent = nullptr);
  ~MetricChart() override;

  const QString& title() const { return title_; }
  /// The plot, for embedding code, tests and benchmarks.
  QCustomPlot* plot() const { return plot_; }

  /// Adds the raw and smoothed curves of `key` (no-op if present). Points come with sync().
  void addSeries(const SeriesKey& key, const ChartPlacement& placement);
  bool hasSeries(const SeriesKey& key) const;
  /// Keys in the order they were added.
  QVector<SeriesKey> seriesKeys() const;

  void setXAxisMode(XAxisMode mode);
  XAxisMode xAxisMode() const { return xMode_; }
  /// Logarithmic value axes (both sides); non-positive values are left out of the fit.
  void setLogY(bool on);
  bool logY() const { return logY_; }
  /// Hides or shows every curve of `run` (and its legend entries). Call restyle() after.
  void setRunVisible(const QString& run, bool visible);
  bool isRunVisible(const QString& run) const { return !hiddenRuns_.contains(run); }
  /// Recolours the curves: `runOrder` gives each run its colour index (SeriesPalette).
  /// `runColours` gives runs their colour (the run's Palette::categorical of its position in
  /// `runOrder` otherwise). With several runs visible the legend lists each scalar once.
  /// `runNames` name runs in the tooltip (their ids otherwise).
  void restyle(const QStringList& runOrder, const QHash<QString, QColor>& runColours = {},
               const QHash<QString, QString>& runNames = {});
  /// The legend's entries, in order (empty while the legend is hidden... or has one entry).
  QStringList legendLabels() const;
  /// The store's smoothed values changed (new weight): the next sync() redraws them all.
  void invalidateSmoothing() { smoothingDirty_ = true; }

  /// Copies the store's new points into the graphs (only new ones and the series' open bucket,
  /// unless the x mode, the epoch scale, the smoothing or the series' kept points changed:
  /// Note [Bounded series], Series.h) and fits the axes while following. No replot.
  void sync();
  /// Redraws now into the plot's buffer; the widget repaints on the next paint event.
  void replot();
  /// Fits the axes to the visible data, follows new data again and replots.
  void fit();
  bool isFollowing() const { return following_; }

  /// The tooltip for horizontal position `x`: the x of the point nearest to it, then one line
  /// per visible series, "label: smoothed (raw r)" plus " at <x>" when that series' nearest
  /// point lies elsewhere (validation points, once per epoch).
  QString tooltipText(double x) const;
  /// Formats an x value for the current mode: "step 1200", "epoch 2.50", "time 0:01:05".
  QString formatX(double x) const;

  /// Image of the plot; width/height 0 mean the widget's current size.
  bool exportPng(const QString& path, int width = 0, int height = 0);
  bool exportPdf(const QString& path, int width = 0, int height = 0);
  /// CSV of the visible series (see SeriesCsvWriter).
  bool exportCsv(const QString& path, QString* error = nullptr) const;

  /// Data points currently held by the graphs (raw and smoothed), for tests and benchmarks.
  qint64 graphPointCount() const;
  /// True if a curve is a held value, whose line follows the run's latest point: the chart
  /// must be synced whenever its runs get points, not only its own series.
  bool hasHeldValues() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Curve {
    SeriesKey key;
    YAxisSide side = YAxisSide::Left;
    QString label;       // legend text for a single run
    QString axisLabel;   // the value axis' label it asks for; empty: its base name
    QString shownLabel;  // legend text as shown
    QString hoverLabel;  // tooltip text (run-qualified when several runs are visible)
    bool validation = false;
    bool fixedAxis = false;
    bool markers = false;
    bool held = false;  // a held value: step line, unsmoothed, continued by `tail`
    DecimatedGraph* raw = nullptr;
    DecimatedGraph* smooth = nullptr;
    QCPGraph* tail = nullptr;  // from the last point to the run's latest point (held only)
    int synced = 0;            // points of the series already in the graphs
    int syncedStable = 0;      // of which the series' stable points (the rest may change)
    int syncedRevision = -1;   // the series' revision (merges) they were copied at
    bool keyOrder = false;     // x went back: the graphs are sorted by x, not in series order
    XAxisMode syncedMode = XAxisMode::Step;
    int syncedEpochRevision = -1;
  };

  /// How one value axis labels its ticks and fits its range.
  struct AxisStyle {
    TickFormat format = TickFormat::Number;
    bool unitRange = false;
  };

  void setUpPlot();
  void showCurve(Curve& curve, bool visible);
  void updateTickDensity();
  void syncCurve(Curve& curve, const Series& series);
  void fitAxes();
  void updateAxisLabels();
  void rebuildLegend();
  bool curveVisible(const Curve& curve) const;
  void onMouseMove(QMouseEvent* event);
  bool placeByMagnitude(Curve& curve, const Series& series);
  bool moveTo(Curve& curve, YAxisSide side);
  void updateLegendWrap();
  void stopFollowing() { following_ = false; }

  QString title_;
  const SeriesStore& store_;
  QCustomPlot* plot_ = nullptr;
  QCPItemLine* cursorLine_ = nullptr;
  QVector<Curve> curves_;
  bool legendFits_ = true;         // the legend takes at most kMaxLegendShare of the height
  QVector<QCPGraph*> legendKeys_;  // one neutral legend entry per scalar while several runs show
  QSet<QString> hiddenRuns_;
  AxisStyle leftStyle_, rightStyle_;
  XAxisMode xMode_ = XAxisMode::Step;
  bool logY_ = false;
  bool following_ = true;
  bool smoothingDirty_ = false;
  bool replotPending_ = false;
};

}  // namespace tbench::ui
