#include "widgets/MetricChart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/ChartGrouping.h"
#include "widgets/ChartMenu.h"
#include "widgets/GraphFeeder.h"
#include "widgets/LogAxisTicker.h"
#include "widgets/NumberAxisTicker.h"
#include "widgets/Palette.h"
#include "widgets/SeriesCsvWriter.h"
#include "widgets/SeriesPalette.h"
#include "widgets/WallTimeAxisTicker.h"

namespace tbench::ui {

namespace {

// Markers help reading one-point-per-epoch curves; past this many points they only cost time.
constexpr int kMaxMarkedPoints = 500;
// A curve whose points are this many steps apart on average or more (per-epoch scalars such as
// throughput or the queue size) shows its points too: a lone first point would otherwise draw
// nothing at all.
constexpr double kSparseStepSpacing = 10.0;

bool isSparse(const Series& series) {
  const int n = series.size();
  if (n < 2) return true;
  return double(series.step(n - 1) - series.step(0)) / double(n - 1) >= kSparseStepSpacing;
}
constexpr int kRawAlpha = 70;
constexpr double kSmoothPenWidth = 1.6;
// Scalars of one monitor this far apart in size get an axis each (e.g. steps and samples/s).
constexpr double kMagnitudeRatio = 20.0;
// Room per tick label, so that labels never run together (wall times are the widest).
constexpr int kPixelsPerXTick = 110;
constexpr int kPixelsPerYTick = 45;
constexpr int kMaxTicks = 8;

const QCPGraphData* nearestPoint(const QCPGraphDataContainer& data, double x) {
  if (data.isEmpty()) return nullptr;
  auto it = std::lower_bound(data.constBegin(), data.constEnd(), x,
                             [](const QCPGraphData& d, double key) { return d.key < key; });
  if (it == data.constEnd()) return &*(it - 1);
  if (it != data.constBegin() && x - (it - 1)->key <= it->key - x) return &*(it - 1);
  return &*it;
}

QString formatValue(double v) { return QString::number(v, 'g', 5); }

// Lower/upper range with a margin, linear or logarithmic, for a non-empty bounds.
QCPRange paddedRange(double lower, double upper, bool logarithmic, double margin) {
  if (logarithmic) {
    if (upper <= lower) return QCPRange(lower / 2.0, upper * 2.0);
    const double factor = std::pow(upper / lower, margin);
    return QCPRange(lower / factor, upper * factor);
  }
  if (upper <= lower) {
    const double half = lower == 0.0 ? 1.0 : std::abs(lower) * 0.1;
    return QCPRange(lower - half, upper + half);
  }
  const double pad = (upper - lower) * margin;
  return QCPRange(lower - pad, upper + pad);
}

}  // namespace

MetricChart::MetricChart(const QString& title, const SeriesStore& store, QWidget* parent)
    : QWidget(parent), title_(title), store_(store) {
  setUpPlot();
}

MetricChart::~MetricChart() {
  // The legend is out of the plot's layout while hidden, so the layout does not delete it.
  if (plot_->legend && !plot_->legend->layout()) delete plot_->legend;
}

void MetricChart::setUpPlot() {
  plot_ = new QCustomPlot(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);

  // Fast polylines and no antialiasing while dragging keep a replot of 10^6 points cheap.
  plot_->setPlottingHints(QCP::phFastPolylines | QCP::phCacheLabels);
  plot_->setNoAntialiasingOnDrag(true);
  plot_->setAutoAddPlottableToLegend(false);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  QCPAxisRect* rect = plot_->axisRect();
  rect->setRangeDragAxes({plot_->xAxis}, {plot_->yAxis, plot_->yAxis2});
  rect->setRangeZoomAxes({plot_->xAxis}, {plot_->yAxis, plot_->yAxis2});
  rect->setRangeZoom(Qt::Horizontal);  // the wheel zooms time; Ctrl+wheel zooms values
  plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new NumberAxisTicker));
  for (QCPAxis* axis : {plot_->yAxis, plot_->yAxis2}) setValueScale(*axis, false);
  plot_->yAxis2->setVisible(false);
  plot_->addLayer(QStringLiteral("raw"), plot_->layer(QStringLiteral("main")),
                  QCustomPlot::limBelow);

  // Rows: axis rect, legend (below the data, so it never hides a curve). The title is the
  // header of the ChartPanel around the chart.
  rect->insetLayout()->take(plot_->legend);
  plot_->legend->setVisible(false);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setWrap(kMaxLegendColumns);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setBrush(Qt::NoBrush);
  plot_->legend->setMargins(QMargins(4, 0, 4, 2));

  // The cursor lives on the buffered overlay layer: moving it redraws that layer only.
  cursorLine_ = new QCPItemLine(plot_);
  cursorLine_->setLayer(QStringLiteral("overlay"));
  cursorLine_->setPen(QPen(Palette::cursor(), 1, Qt::DashLine));
  cursorLine_->setSelectable(false);
  for (QCPItemPosition* p : {cursorLine_->start, cursorLine_->end}) {
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);
  }
  cursorLine_->setVisible(false);

  connect(plot_, &QCustomPlot::mouseWheel, this, [this](QWheelEvent* event) {
    // Runs before the axis rect zooms: choose what this turn of the wheel zooms.
    plot_->axisRect()->setRangeZoom((event->modifiers() & Qt::ControlModifier) ? Qt::Vertical
                                                                               : Qt::Horizontal);
    stopFollowing();
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &MetricChart::onMouseMove);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { fit(); });
  plot_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(plot_, &QWidget::customContextMenuRequested, this,
          [this](const QPoint& pos) { ChartMenu::exec(*this, plot_->mapToGlobal(pos)); });
  plot_->installEventFilter(this);
  updateAxisLabels();
}

void MetricChart::addSeries(const SeriesKey& key, const ChartPlacement& placement) {
  if (hasSeries(key)) return;
  Curve curve;
  curve.key = key;
  curve.side = placement.axis;
  curve.label = placement.label;
  curve.shownLabel = placement.label;
  curve.axisLabel = placement.axisLabel;
  curve.validation = ChartGrouping::isValidation(placement.label);
  curve.fixedAxis = placement.fixedAxis;
  curve.held = placement.heldValue;
  QCPAxis* valueAxis = curve.side == YAxisSide::Right ? plot_->yAxis2 : plot_->yAxis;
  curve.raw = new DecimatedGraph(plot_->xAxis, valueAxis);  // owned by the plot
  curve.raw->setLayer(QStringLiteral("raw"));
  curve.smooth = new DecimatedGraph(plot_->xAxis, valueAxis);
  curve.smooth->setName(curve.label);
  if (curve.held) {
    curve.smooth->setLineStyle(QCPGraph::lsStepLeft);
    curve.tail = new QCPGraph(plot_->xAxis, valueAxis);
  }
  if (placement.tickFormat != TickFormat::Number || placement.unitRange) {
    AxisStyle& style = curve.side == YAxisSide::Right ? rightStyle_ : leftStyle_;
    style.format = placement.tickFormat;
    style.unitRange = style.unitRange || placement.unitRange;
    setValueScale(*valueAxis, logY_, style.format);
  }
  curves_.append(curve);
}

bool MetricChart::hasSeries(const SeriesKey& key) const {
  return std::any_of(curves_.cbegin(), curves_.cend(),
                     [&](const Curve& c) { return c.key == key; });
}

QVector<SeriesKey> MetricChart::seriesKeys() const {
  QVector<SeriesKey> keys;
  for (const Curve& c : curves_) keys.append(c.key);
  return keys;
}

void MetricChart::setXAxisMode(XAxisMode mode) {
  if (mode == xMode_) return;
  xMode_ = mode;
  const int tickCount = plot_->xAxis->ticker()->tickCount();
  if (mode == XAxisMode::WallTime)
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new WallTimeAxisTicker));
  else
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new NumberAxisTicker));
  plot_->xAxis->ticker()->setTickCount(tickCount);
  following_ = true;  // the old range means nothing on the new axis
  updateAxisLabels();
}

void MetricChart::setLogY(bool on) {
  if (on == logY_) return;
  logY_ = on;
  setValueScale(*plot_->yAxis, on, leftStyle_.format);
  setValueScale(*plot_->yAxis2, on, rightStyle_.format);
  fitAxes();  // a linear range may hold zero or negatives, which a log axis cannot show
}

void MetricChart::setRunVisible(const QString& run, bool visible) {
  if (visible)
    hiddenRuns_.remove(run);
  else
    hiddenRuns_.insert(run);
  for (Curve& c : curves_)
    if (c.key.run == run) showCurve(c, visible);
}

void MetricChart::showCurve(Curve& curve, bool visible) {
  curve.smooth->setVisible(visible);
  curve.raw->setVisible(visible && !curve.held && store_.smoothingWeight() > 0.0);
  if (curve.tail) curve.tail->setVisible(visible);
}

bool MetricChart::curveVisible(const Curve& curve) const {
  return !hiddenRuns_.contains(curve.key.run);
}

void MetricChart::restyle(const QStringList& runOrder, const QHash<QString, QColor>& runColours,
                          const QHash<QString, QString>& runNames) {
  // Slots go by base name, so "cost" and "validation_cost" look related.
  QSet<QString> visibleRuns;
  QStringList bases;
  for (const Curve& c : curves_) {
    if (curveVisible(c)) visibleRuns.insert(c.key.run);
    const QString base = ChartGrouping::baseName(c.label);
    if (!bases.contains(base)) bases.append(base);
  }
  const bool severalRuns = visibleRuns.size() > 1;
  for (QCPGraph* key : std::as_const(legendKeys_)) plot_->removePlottable(key);
  legendKeys_.clear();
  QStringList keyLabels;
  for (Curve& c : curves_) {
    const QColor runColour =
        runColours.value(c.key.run, SeriesPalette::colour(int(runOrder.indexOf(c.key.run))));
    const int slot = int(bases.indexOf(ChartGrouping::baseName(c.label)));
    const CurveStyle style = SeriesPalette::styleFor(runColour, slot, severalRuns, c.validation);
    QPen pen(style.colour, kSmoothPenWidth);
    pen.setStyle(style.penStyle);
    c.smooth->setPen(pen);
    if (c.tail) c.tail->setPen(pen);
    QColor faint = style.colour;
    faint.setAlpha(kRawAlpha);
    c.raw->setPen(QPen(faint, 1.0));
    c.shownLabel = c.label;
    c.hoverLabel = severalRuns
                       ? runNames.value(c.key.run, c.key.run) + QStringLiteral(" · ") + c.label
                       : c.label;
    c.smooth->setName(c.shownLabel);
    c.smooth->setScatterStyle(
        c.markers ? QCPScatterStyle(QCPScatterStyle::ssCircle, style.colour, Qt::white, 5)
                  : QCPScatterStyle(QCPScatterStyle::ssNone));
    // Several runs: the colour names the run (the run selector above the charts says which),
    // so the legend has one entry per scalar, drawn in a neutral colour with its line style.
    if (severalRuns && curveVisible(c) && !keyLabels.contains(c.label)) {
      keyLabels << c.label;
      auto* key = new QCPGraph(plot_->xAxis, c.smooth->valueAxis());
      const QColor neutral = palette().color(QPalette::WindowText);
      QPen keyPen(neutral, kSmoothPenWidth);
      keyPen.setStyle(style.penStyle);
      key->setPen(keyPen);
      key->setName(c.label);
      if (c.markers) {
        key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, neutral, Qt::white, 5));
      }
      key->setSelectable(QCP::stNone);
      legendKeys_.append(key);
    }
  }
  rebuildLegend();
  updateLegendWrap();
  updateAxisLabels();
}

void MetricChart::updateAxisLabels() {
  switch (xMode_) {
    case XAxisMode::Step:
      plot_->xAxis->setLabel(tr("step"));
      break;
    case XAxisMode::Epoch:
      plot_->xAxis->setLabel(tr("epoch"));
      break;
    case XAxisMode::WallTime:
      plot_->xAxis->setLabel(tr("wall time"));
      break;
  }
  // A value axis is named after its scalar (or the unit it gives) when all its curves share it.
  QStringList left, right;
  for (const Curve& c : curves_) {
    QStringList& side = c.side == YAxisSide::Right ? right : left;
    const QString name = c.axisLabel.isEmpty() ? ChartGrouping::baseName(c.label) : c.axisLabel;
    if (!side.contains(name)) side.append(name);
  }
  plot_->yAxis->setLabel(left.size() == 1 ? left.first() : QString());
  plot_->yAxis2->setLabel(right.size() == 1 ? right.first() : QString());
  plot_->yAxis2->setVisible(!right.isEmpty());
}

void MetricChart::sync() {
  bool sidesChanged = false;
  for (Curve& c : curves_) {
    const Series* series = store_.series(c.key);
    if (!series) continue;
    const bool firstPoints = c.synced == 0 && series->size() > 0;
    syncCurve(c, *series);
    if (firstPoints && !c.fixedAxis && placeByMagnitude(c, *series)) sidesChanged = true;
  }
  if (sidesChanged) updateAxisLabels();
  smoothingDirty_ = false;
  if (following_) fitAxes();
}

void MetricChart::syncCurve(Curve& curve, const Series& series) {
  const XMapping mapping = store_.xMapping(curve.key.run, xMode_);
  const int revision = store_.epochScaleRevision(curve.key.run);
  // Once x went back (a resume), the graphs are sorted by x and their tail is not the series'
  // open bucket: they are copied whole at every sync (a series holds at most 32,769 points).
  const bool rekey = curve.keyOrder || curve.syncedStable > series.size() ||
                     curve.syncedMode != xMode_ || curve.syncedRevision != series.revision() ||
                     (xMode_ == XAxisMode::Epoch && curve.syncedEpochRevision != revision);
  // The points past the stable ones were the series' open bucket: replaced, not kept.
  const int from = rekey ? 0 : curve.syncedStable;
  if (from < curve.synced) {
    curve.raw->truncate(from);
    curve.smooth->truncate(from);
  }
  const bool inOrder = GraphFeeder::feed(curve.raw, curve.smooth, series, mapping, from,
                                         smoothingDirty_ && !curve.held ? 0 : from, !curve.held);
  // A whole copy that is in order again (another x mode) ends it.
  curve.keyOrder = from == 0 ? !inOrder : curve.keyOrder || !inOrder;
  const int n = series.size();
  curve.synced = n;
  curve.syncedStable = series.stableSize();
  curve.syncedRevision = series.revision();
  curve.syncedMode = xMode_;
  curve.syncedEpochRevision = revision;
  showCurve(curve, curveVisible(curve));
  if (curve.tail && n > 0) {  // the value holds from its last point to the run's latest point
    const double lastX = (curve.smooth->data()->constEnd() - 1)->key;
    const double endX = std::max(lastX, store_.runEndX(curve.key.run, xMode_));
    curve.tail->setData({lastX, endX}, {series.value(n - 1), series.value(n - 1)}, true);
  }
  const bool markers =
      n <= kMaxMarkedPoints && !curve.held && (curve.validation || isSparse(series));
  if (markers != curve.markers) {
    curve.markers = markers;
    curve.smooth->setScatterStyle(
        markers
            ? QCPScatterStyle(QCPScatterStyle::ssCircle, curve.smooth->pen().color(), Qt::white, 5)
            : QCPScatterStyle(QCPScatterStyle::ssNone));
  }
}

bool MetricChart::placeByMagnitude(Curve& curve, const Series& series) {
  // Decided once per scalar, at its first points, so curves never jump between axes; the
  // same scalar of another run follows the first decision.
  for (const Curve& c : curves_)
    if (&c != &curve && c.synced > 0 && c.key.name == curve.key.name) return moveTo(curve, c.side);
  for (const Curve& c : curves_)
    if (c.side == YAxisSide::Right && c.key.name != curve.key.name) return false;  // taken
  const auto magnitude = [](const Series::Bounds& b) {
    return b.valid ? std::max(std::abs(b.lower), std::abs(b.upper)) : 0.0;
  };
  const double mine = magnitude(series.bounds());
  for (const Curve& c : curves_) {  // the first scalar of the left axis with data
    if (&c == &curve || c.synced == 0 || c.side != YAxisSide::Left) continue;
    const Series* other = store_.series(c.key);
    const double theirs = other ? magnitude(other->bounds()) : 0.0;
    if (mine <= 0.0 || theirs <= 0.0) return false;
    const bool apart = std::max(mine, theirs) / std::min(mine, theirs) >= kMagnitudeRatio;
    return apart && moveTo(curve, YAxisSide::Right);
  }
  return false;
}

bool MetricChart::moveTo(Curve& curve, YAxisSide side) {
  if (curve.side == side) return false;
  curve.side = side;
  QCPAxis* axis = side == YAxisSide::Right ? plot_->yAxis2 : plot_->yAxis;
  curve.raw->setValueAxis(axis);
  curve.smooth->setValueAxis(axis);
  if (curve.tail) curve.tail->setValueAxis(axis);
  return true;
}

void MetricChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateLegendWrap();
  updateTickDensity();
}

void MetricChart::updateTickDensity() {
  const auto count = [](int pixels, int perTick) {
    return std::clamp(pixels / perTick, 2, kMaxTicks);
  };
  plot_->xAxis->ticker()->setTickCount(count(width(), kPixelsPerXTick));
  for (QCPAxis* axis : {plot_->yAxis, plot_->yAxis2})
    axis->ticker()->setTickCount(count(height(), kPixelsPerYTick));
}

void MetricChart::fitAxes() {
  // From the cached bounds of each series and the ends of the sorted graph data: O(curves),
  // unlike QCustomPlot::rescaleAxes, which scans every point.
  Series::Bounds x, left, right;
  for (const Curve& c : curves_) {
    if (!curveVisible(c) || c.smooth->data()->isEmpty()) continue;
    const Series* series = store_.series(c.key);
    if (!series) continue;
    x.include(c.smooth->data()->constBegin()->key);
    x.include((c.smooth->data()->constEnd() - 1)->key);
    if (c.tail && !c.tail->data()->isEmpty()) x.include((c.tail->data()->constEnd() - 1)->key);
    const Series::Bounds& b = logY_ ? series->positiveBounds() : series->bounds();
    if (!b.valid) continue;
    Series::Bounds& side = c.side == YAxisSide::Right ? right : left;
    side.include(b.lower);
    side.include(b.upper);
  }
  if (x.valid) plot_->xAxis->setRange(paddedRange(x.lower, x.upper, false, 0.01));
  // Fractions keep their whole scale, so that "nearly empty" looks nearly empty.
  for (auto [style, bounds] : {std::pair{&leftStyle_, &left}, std::pair{&rightStyle_, &right}}) {
    if (!style->unitRange || !bounds->valid) continue;
    bounds->include(logY_ ? std::min(bounds->lower, 0.01) : 0.0);
    bounds->include(1.0);
  }
  if (left.valid) plot_->yAxis->setRange(paddedRange(left.lower, left.upper, logY_, 0.05));
  if (right.valid) plot_->yAxis2->setRange(paddedRange(right.lower, right.upper, logY_, 0.05));
}

void MetricChart::replot() {
  if (!isVisible()) {
    replotPending_ = true;  // drawn when shown; a hidden chart costs nothing
    return;
  }
  replotPending_ = false;
  plot_->replot(QCustomPlot::rpQueuedRefresh);
}

void MetricChart::fit() {
  following_ = true;
  fitAxes();
  replot();
}

QString MetricChart::formatX(double x) const {
  switch (xMode_) {
    case XAxisMode::Epoch:
      return tr("epoch %1").arg(x, 0, 'f', 2);
    case XAxisMode::WallTime: {
      const qint64 total = qRound64(std::abs(x));
      return tr("time %1%2:%3:%4")
          .arg(x < 0 ? QStringLiteral("-") : QString())
          .arg(total / 3600)
          .arg((total / 60) % 60, 2, 10, QLatin1Char('0'))
          .arg(total % 60, 2, 10, QLatin1Char('0'));
    }
    case XAxisMode::Step:
      break;
  }
  return tr("step %1").arg(qRound64(x));
}

QString MetricChart::tooltipText(double x) const {
  struct Hit {
    const Curve* curve;
    const QCPGraphData* point;
  };
  QVector<Hit> hits;
  const Hit* densest = nullptr;
  for (const Curve& c : curves_) {
    if (!curveVisible(c)) continue;
    if (const QCPGraphData* p = nearestPoint(*c.smooth->data(), x)) hits.append({&c, p});
  }
  if (hits.isEmpty()) return QString();
  for (const Hit& h : hits)
    if (!densest || h.curve->smooth->data()->size() > densest->curve->smooth->data()->size())
      densest = &h;
  const double anchor = densest->point->key;
  const bool showRaw = store_.smoothingWeight() > 0.0;
  QStringList lines{formatX(anchor)};
  for (const Hit& h : hits) {
    QString line = h.curve->hoverLabel + QStringLiteral(": ") + formatValue(h.point->value);
    if (showRaw && !h.curve->held) {
      if (const QCPGraphData* r = nearestPoint(*h.curve->raw->data(), h.point->key))
        line += QStringLiteral(" (raw %1)").arg(formatValue(r->value));
    }
    if (h.point->key != anchor) line += QStringLiteral(" at ") + formatX(h.point->key);
    lines.append(line);
  }
  return lines.join(QLatin1Char('\n'));
}

void MetricChart::onMouseMove(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) {
    stopFollowing();  // a drag pans: the user now owns the range
    QToolTip::hideText();
    return;
  }
  if (!plot_->axisRect()->rect().contains(event->pos())) {
    cursorLine_->setVisible(false);
    cursorLine_->layer()->replot();
    QToolTip::hideText();
    return;
  }
  const double x = plot_->xAxis->pixelToCoord(event->pos().x());
  cursorLine_->start->setCoords(x, 0.0);
  cursorLine_->end->setCoords(x, 1.0);
  cursorLine_->setVisible(true);
  cursorLine_->layer()->replot();
  QToolTip::showText(event->globalPosition().toPoint(), tooltipText(x), plot_);
}

bool MetricChart::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::Leave && cursorLine_->visible()) {
    cursorLine_->setVisible(false);
    cursorLine_->layer()->replot();
  }
  return QWidget::eventFilter(watched, event);
}

void MetricChart::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (replotPending_) replot();
}

bool MetricChart::exportPng(const QString& path, int width, int height) {
  const bool cursor = cursorLine_->visible();
  cursorLine_->setVisible(false);
  const bool ok = plot_->savePng(path, width, height);
  cursorLine_->setVisible(cursor);
  return ok;
}

bool MetricChart::exportPdf(const QString& path, int width, int height) {
  const bool cursor = cursorLine_->visible();
  cursorLine_->setVisible(false);
  const bool ok = plot_->savePdf(path, width, height, QCP::epNoCosmetic, QString(), title_);
  cursorLine_->setVisible(cursor);
  return ok;
}

bool MetricChart::exportCsv(const QString& path, QString* error) const {
  QVector<SeriesKey> keys;
  for (const Curve& c : curves_)
    if (curveVisible(c)) keys.append(c.key);
  return SeriesCsvWriter::writeFile(path, store_, keys, error);
}

bool MetricChart::hasHeldValues() const {
  return std::any_of(curves_.cbegin(), curves_.cend(), [](const Curve& c) { return c.held; });
}

qint64 MetricChart::graphPointCount() const {
  qint64 n = 0;
  for (const Curve& c : curves_) n += c.raw->data()->size() + c.smooth->data()->size();
  return n;
}

}  // namespace tbench::ui
