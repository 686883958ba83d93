// DecimatedGraph: the min/max pyramid draws what QCustomPlot's own sampling draws, follows
// appends, and steps aside when zoomed in.

#include <QtTest>

#include <QImage>
#include <QRandomGenerator>

#include "tests/support/TestMain.h"
#include "widgets/DecimatedGraph.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_DecimatedGraph {

using namespace tbench::ui;

namespace {

/// Exposes the line data a graph would draw for its visible range.
template <typename Graph>
class Probe : public Graph {
 public:
  using Graph::Graph;
  QVector<QCPGraphData> lineData() const {
    QVector<QCPGraphData> out;
    QCPGraphDataContainer::const_iterator begin, end;
    this->getVisibleDataBounds(begin, end, this->data()->dataRange());
    this->getOptimizedLineData(&out, begin, end);
    return out;
  }
};

QVector<QCPGraphData> noisy(int n, quint32 seed = 7) {
  QRandomGenerator rng(seed);
  QVector<QCPGraphData> points;
  for (int i = 0; i < n; ++i)
    points.append(QCPGraphData(i, std::exp(-i / double(n)) + 0.3 * rng.generateDouble() +
                                      (i % 9973 == 0 ? 2.0 : 0.0)));  // rare spikes
  return points;
}

struct Plot {
  QCustomPlot plot;
  Plot() {
    plot.resize(640, 400);
    plot.setPlottingHints(QCP::phFastPolylines);
  }
  QImage render() {
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return plot.toPixmap(640, 400).toImage();
  }
  /// A new graph of the plot (which owns it), probed.
  template <typename Graph = DecimatedGraph>
  Probe<Graph>* add() {
    return new Probe<Graph>(plot.xAxis, plot.yAxis);
  }
};

/// The two graphs draw the same line for the visible range.
template <typename A, typename B>
void compareLines(const Probe<A>& a, const Probe<B>& b) {
  const auto lineA = a.lineData(), lineB = b.lineData();
  QCOMPARE(lineA.size(), lineB.size());
  for (int i = 0; i < lineA.size(); ++i) {
    QCOMPARE(lineA[i].key, lineB[i].key);
    QCOMPARE(lineA[i].value, lineB[i].value);
  }
}

}  // namespace

class TestDecimatedGraph : public QObject {
  Q_OBJECT
 private slots:
  void drawsTheSamePictureAsQCustomPlotsSampling() {
    const auto points = noisy(200000);
    Plot plain, decimated;
    auto* a = new QCPGraph(plain.plot.xAxis, plain.plot.yAxis);
    auto* b = new DecimatedGraph(decimated.plot.xAxis, decimated.plot.yAxis);
    a->data()->set(points, true);
    b->setPoints(points, true);
    for (Plot* p : {&plain, &decimated}) {
      p->plot.xAxis->setRange(-1000, 201000);
      p->plot.yAxis->setRange(0, 3.5);
      p->plot.graph(0)->setPen(QPen(Qt::black, 1));
      p->plot.graph(0)->setAntialiased(false);
    }
    const QImage x = plain.render(), y = decimated.render();
    int ink = 0, differ = 0;
    for (int row = 0; row < x.height(); ++row)
      for (int col = 0; col < x.width(); ++col) {
        const bool inkX = qGray(x.pixel(col, row)) < 128, inkY = qGray(y.pixel(col, row)) < 128;
        ink += inkX;
        differ += inkX != inkY;
      }
    QVERIFY2(ink > 20000, qPrintable(QString::number(ink)));  // a band, not a line
    QVERIFY2(differ < ink / 1000, qPrintable(QString("%1 of %2").arg(differ).arg(ink)));
  }

  void noisyBandsUseAThinPenSmoothCurvesKeepTheirs() {
    QVector<QCPGraphData> smooth;
    for (int i = 0; i < 100000; ++i) smooth.append(QCPGraphData(i, std::sin(i / 20000.0)));
    const auto render = [](const QVector<QCPGraphData>& points, double width) {
      Plot p;
      auto* graph = new DecimatedGraph(p.plot.xAxis, p.plot.yAxis);
      graph->setPoints(points, true);
      graph->setPen(QPen(Qt::black, width));
      graph->setAntialiased(false);
      p.plot.xAxis->setRange(0, 100000);
      p.plot.yAxis->setRange(-1.5, 3.5);
      return p.render();
    };
    QCOMPARE(render(noisy(100000), 4.0), render(noisy(100000), 1.0));  // same band, cheaper
    QVERIFY(render(smooth, 4.0) != render(smooth, 1.0));
  }

  void keepsEveryExtreme() {
    const auto points = noisy(200000);
    Plot p;
    auto* graph = p.add();
    graph->setPoints(points, true);
    p.plot.xAxis->setRange(0, 200000);
    p.plot.replot();
    const auto line = graph->lineData();
    QVERIFY(line.size() < 2 * 640 + 8);  // one min/max pair per pixel column
    double lo = 1e9, hi = -1e9, lineLo = 1e9, lineHi = -1e9;
    for (const auto& d : points) lo = std::min(lo, d.value), hi = std::max(hi, d.value);
    for (const auto& d : line)
      lineLo = std::min(lineLo, d.value), lineHi = std::max(lineHi, d.value);
    QCOMPARE(lineLo, lo);
    QCOMPARE(lineHi, hi);
    QCOMPARE(line.first().key, 0.0);  // the real ends anchor the curve
    QCOMPARE(line.last().key, 199999.0);
  }

  void appendsGrowThePyramidLikeOneSet() {
    const auto points = noisy(100000);
    Plot p;
    auto* whole = p.add();
    auto* pieces = p.add();
    whole->setPoints(points, true);
    for (int from = 0; from < points.size(); from += 777)
      pieces->appendPoints(points.mid(from, 777), true);
    QCOMPARE(pieces->levelSizes(), whole->levelSizes());
    QCOMPARE(whole->levelSizes(), (QVector<int>{16, 64, 256, 1024, 4096, 16384, 65536}));
    p.plot.xAxis->setRange(0, 100000);
    p.plot.replot();
    compareLines(*whole, *pieces);
  }

  void truncateKeepsTheFirstPointsAndTheirPyramid() {
    // A series' open bucket is replaced at every append (Note [Bounded series], Series.h):
    // the chart drops its last points and appends the new ones.
    const auto points = noisy(5000);
    Plot p;
    auto* cut = p.add();
    auto* fresh = p.add();
    cut->setPoints(points, true);
    cut->truncate(1100);
    QCOMPARE(cut->data()->size(), 1100);
    QCOMPARE((cut->data()->constEnd() - 1)->key, 1099.0);
    QCOMPARE(cut->levelSizes(), (QVector<int>{16, 64, 256, 1024}));
    cut->appendPoints(points.mid(1100, 900), true);
    fresh->setPoints(points.mid(0, 2000), true);
    QCOMPARE(cut->levelSizes(), fresh->levelSizes());
    p.plot.xAxis->setRange(0, 2000);
    p.plot.xAxis->axisRect()->setOuterRect(QRect(0, 0, 120, 100));  // many points per pixel
    p.plot.replot();
    compareLines(*cut, *fresh);
    cut->truncate(0);
    QCOMPARE(cut->data()->size(), 0);
    QVERIFY(cut->levelSizes().isEmpty());
  }

  void outOfOrderPointsRebuildThePyramid() {
    auto points = noisy(5000);
    Plot p;
    auto* graph = p.add();
    graph->setPoints(points.mid(1000), true);
    graph->appendPoints(points.mid(0, 1000), true);  // keys before the existing ones
    QCOMPARE(graph->data()->size(), 5000);
    QCOMPARE(graph->data()->constBegin()->key, 0.0);
    QCOMPARE(graph->levelSizes(), (QVector<int>{16, 64, 256, 1024, 4096}));
  }

  void zoomedInItDrawsLikeAPlainGraph() {
    const auto points = noisy(100000);
    Plot p;
    auto* plain = p.add<QCPGraph>();
    auto* decimated = p.add();
    plain->data()->set(points, true);
    decimated->setPoints(points, true);
    p.plot.xAxis->setRange(5000, 6000);  // ~1.6 points per pixel
    p.plot.replot();
    compareLines(*plain, *decimated);
  }
};

}  // namespace test_DecimatedGraph

TB_TEST_MAIN(test_DecimatedGraph::TestDecimatedGraph)
#include "test_DecimatedGraph.moc"
