// EmaSmoother, Series and SeriesStore: smoothing against hand computations, batches, x axes.

#include <QtTest>

#include <cmath>

#include "tests/support/TestMain.h"
#include "widgets/EmaSmoother.h"
#include "widgets/SeriesStore.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_SeriesStore {

using namespace tbench::ui;

namespace {

MetricPoint point(const QString& run, const QString& name, qint64 step, qint64 epoch, double wall,
                  double value) {
  return MetricPoint{run, name, step, epoch, wall, value};
}

}  // namespace

class TestSeriesStore : public QObject {
  Q_OBJECT
 private slots:
  void smoothingMatchesHandComputation() {
    // a = 0.5, x = 1, 2, 3:
    //   s1 = 0.5*0 + 0.5*1 = 0.5    shown 0.5 / (1 - 0.5)    = 1
    //   s2 = 0.5*0.5 + 0.5*2 = 1.25 shown 1.25 / (1 - 0.25)  = 5/3
    //   s3 = 0.625 + 1.5 = 2.125    shown 2.125 / (1 - 0.125) = 17/7
    EmaSmoother ema(0.5);
    QCOMPARE(ema.add(1.0), 1.0);
    QCOMPARE(ema.add(2.0), 5.0 / 3.0);
    QCOMPARE(ema.add(3.0), 17.0 / 7.0);
    // a = 0.6, x = 10, 0: s1 = 4 -> 4/0.4 = 10; s2 = 2.4 -> 2.4/0.64 = 3.75.
    EmaSmoother tb(0.6);
    QCOMPARE(tb.add(10.0), 10.0);  // de-biased: the first smoothed value is the first raw one
    QCOMPARE(tb.add(0.0), 3.75);
    tb.reset();
    QCOMPARE(tb.add(-2.0), -2.0);
  }

  void weightZeroIsRawAndWeightIsClamped() {
    EmaSmoother raw(0.0);
    QCOMPARE(raw.add(3.0), 3.0);
    QCOMPARE(raw.add(-7.5), -7.5);
    QCOMPARE(EmaSmoother(1.5).weight(), EmaSmoother::kMaxWeight);
    QCOMPARE(EmaSmoother(-1.0).weight(), 0.0);
    QCOMPARE(EmaSmoother(std::nan("")).weight(), 0.0);
  }

  void nonFiniteValuesPassThroughWithoutPoisoningTheAverage() {
    EmaSmoother ema(0.5);
    QCOMPARE(ema.add(1.0), 1.0);
    QVERIFY(std::isnan(ema.add(std::nan(""))));
    QVERIFY(std::isinf(ema.add(INFINITY)));
    // As if the NaN and inf were absent: (0.25 + 1.5) / 0.75.
    QCOMPARE(ema.add(3.0), 7.0 / 3.0);
  }

  void seriesKeepsColumnsAndBounds() {
    Series s(0.0);
    s.append(1, 1, 10.0, 2.0);
    s.append(2, 1, 11.0, -1.0);
    s.append(3, 1, 12.0, std::nan(""));
    s.append(4, 2, 13.0, 0.5);
    QCOMPARE(s.size(), 4);
    QCOMPARE(s.step(3), qint64(4));
    QCOMPARE(s.epoch(3), qint64(2));
    QCOMPARE(s.wallTime(1), 11.0);
    QCOMPARE(s.bounds().lower, -1.0);
    QCOMPARE(s.bounds().upper, 2.0);
    QCOMPARE(s.positiveBounds().lower, 0.5);
    QCOMPARE(s.positiveBounds().upper, 2.0);
  }

  void aLongSeriesIsBoundedAndKeepsItsSpikes() {
    // Note [Bounded series]: 100,000 points into a series of at most 64 (+3 open), with a
    // one-step spike and dip; the latest point is always the last kept one.
    Series s(0.6, 64);
    EmaSmoother reference(0.6);
    QHash<qint64, double> averageAt;  // the running average over every point, by step
    for (qint64 step = 1; step <= 100000; ++step) {
      double value = 1.0 + 0.1 * std::sin(double(step));
      if (step == 4321) value = 100.0;
      if (step == 77777) value = -50.0;
      s.append(step, 1 + step / 1000, 1000.0 + step, value);
      averageAt.insert(step, reference.add(value));
      QCOMPARE(s.step(s.size() - 1), step);
      QCOMPARE(s.value(s.size() - 1), value);
      QVERIFY(s.size() <= 64 + 3);
      QVERIFY(s.stableSize() <= s.size() && s.size() <= s.stableSize() + 3);
    }
    QCOMPARE(s.appended(), qint64(100000));
    QVERIFY(s.size() >= 32);
    QVERIFY(s.bucketSize() >= 100000 / 64);
    int spike = -1, dip = -1;
    for (int i = 0; i < s.size(); ++i) {
      if (i > 0) QVERIFY(s.step(i) > s.step(i - 1));  // kept in arrival order
      if (s.value(i) == 100.0) spike = i;
      if (s.value(i) == -50.0) dip = i;
      // A kept point is a real point: its step, epoch, wall time and running average.
      QCOMPARE(s.epoch(i), 1 + s.step(i) / 1000);
      QCOMPARE(s.wallTime(i), 1000.0 + s.step(i));
      QCOMPARE(s.smoothed(i), averageAt.value(s.step(i)));
    }
    QVERIFY(spike >= 0 && dip >= 0);
    QCOMPARE(s.step(spike), qint64(4321));
    QCOMPARE(s.step(dip), qint64(77777));
    QCOMPARE(s.bounds().upper, 100.0);
    QCOMPARE(s.bounds().lower, -50.0);
  }

  void aBoundedSeriesKeepsNumbersOverNaNAndResmoothsOnItsTimeScale() {
    Series s(0.0, 16);
    for (qint64 step = 1; step <= 1000; ++step)
      s.append(step, 1, 0.0, step % 50 == 0 ? 2.0 : std::nan(""));  // a number in 50
    int numbers = 0;
    for (int i = 0; i < s.size(); ++i) numbers += std::isfinite(s.value(i)) ? 1 : 0;
    QVERIFY(numbers >= s.size() / 3);  // a bucket keeps its number, NaNs only beside it
    // A constant series re-smoothed after merges stays constant; a step up is followed at the
    // same pace as the raw average would (within the buckets' granularity).
    Series c(0.0, 64);
    EmaSmoother reference(0.99);
    double atEnd = 0.0;
    for (qint64 step = 1; step <= 20000; ++step) {
      const double value = step <= 19800 ? 1.0 : 3.0;
      c.append(step, 1, 0.0, value);
      atEnd = reference.add(value);
    }
    c.setSmoothingWeight(0.99);
    QCOMPARE(c.smoothed(0), 1.0);
    QVERIFY(std::abs(c.smoothed(c.size() / 2) - 1.0) < 1e-9);
    QVERIFY2(std::abs(c.smoothed(c.size() - 1) - atEnd) < 0.3,
             qPrintable(QString("%1 vs %2").arg(c.smoothed(c.size() - 1)).arg(atEnd)));
  }

  void theStoreCountsKeptPoints() {
    SeriesStore store;
    MetricPoints batch;
    for (int i = 1; i <= 3 * Series::kMaxPoints; ++i)
      batch.append(point("r", "cost", i, 1, i, std::sin(i)));
    store.append(batch);
    store.append({point("r", "lr", 1, 1, 1, 0.1)});
    const Series* cost = store.series({"r", "cost"});
    QVERIFY(cost->size() < Series::kMaxPoints + 4);
    QCOMPARE(store.pointCount(), qint64(cost->size() + 1));
  }

  void batchesAndRecomputationAgree() {
    SeriesStore store;
    store.setSmoothingWeight(0.9);
    MetricPoints all;
    for (int i = 1; i <= 100; ++i)
      all.append(point("r", "cost", i, 1, i, std::sin(i) * 3 + 100.0 / i));
    for (int from = 0; from < all.size(); from += 7) store.append(all.mid(from, 7));
    const Series* s = store.series({"r", "cost"});
    QVERIFY(s);
    QCOMPARE(s->size(), 100);
    QVector<double> incremental;
    for (int i = 0; i < s->size(); ++i) incremental.append(s->smoothed(i));
    EmaSmoother reference(0.9);
    for (int i = 0; i < 100; ++i) QCOMPARE(incremental[i], reference.add(all[i].value));

    store.setSmoothingWeight(0.3);
    QCOMPARE(s->smoothed(1), (0.3 * 0.7 * all[0].value + 0.7 * all[1].value) / (1 - 0.09));
    store.setSmoothingWeight(0.9);  // back: the same values, recomputed from the raw ones
    for (int i = 0; i < 100; ++i) QCOMPARE(s->smoothed(i), incremental[i]);
    QCOMPARE(store.pointCount(), qint64(100));
  }

  void appendReportsTouchedKeysAndKeepsOrder() {
    SeriesStore store;
    const auto touched =
        store.append({point("b", "cost", 1, 1, 0, 1), point("a", "cost", 1, 1, 0, 1),
                      point("b", "err", 1, 1, 0, 1), point("b", "cost", 2, 1, 0, 1)});
    QCOMPARE(touched, (QVector<SeriesKey>{{"b", "cost"}, {"a", "cost"}, {"b", "err"}}));
    QCOMPARE(store.runs(), (QStringList{"b", "a"}));
    QCOMPARE(store.keys().size(), 3);
    QCOMPARE(store.series({"b", "cost"})->size(), 2);
    QVERIFY(!store.series({"a", "err"}));
    store.removeRun("b");
    QCOMPARE(store.runs(), QStringList{"a"});
    QCOMPARE(store.keys(), (QVector<SeriesKey>{{"a", "cost"}}));
    QCOMPARE(store.pointCount(), qint64(1));
    store.clear();
    QVERIFY(store.runs().isEmpty());
    QCOMPARE(store.pointCount(), qint64(0));
  }

  void xValuesForEachAxisMode() {
    SeriesStore store;
    // 4 steps per epoch, reported every 2 steps; the wall clock starts at 1000 s.
    store.append({point("r", "cost", 2, 1, 1000.0, 1), point("r", "cost", 4, 1, 1001.5, 1),
                  point("r", "cost", 6, 2, 1003.0, 1)});
    const Series& s = *store.series({"r", "cost"});
    const XMapping step = store.xMapping("r", XAxisMode::Step);
    QCOMPARE(step.x(s, 0), 2.0);
    QCOMPARE(step.x(s, 2), 6.0);
    const XMapping wall = store.xMapping("r", XAxisMode::WallTime);
    QCOMPARE(wall.x(s, 0), 0.0);
    QCOMPARE(wall.x(s, 1), 1.5);
    QCOMPARE(wall.x(s, 2), 3.0);
    // Epoch 1 ended when a point of epoch 2 came: max step in epoch 1 = 4 steps per epoch.
    QCOMPARE(store.stepsPerEpoch("r"), 4.0);
    const XMapping epoch = store.xMapping("r", XAxisMode::Epoch);
    QCOMPARE(epoch.x(s, 0), 0.5);
    QCOMPARE(epoch.x(s, 1), 1.0);
    QCOMPARE(epoch.x(s, 2), 1.5);
  }

  void epochAxisBeforeTheFirstEpochEndsAndWhenDeclared() {
    SeriesStore store;
    store.append({point("r", "cost", 3, 1, 0, 1)});
    const Series& s = *store.series({"r", "cost"});
    QCOMPARE(store.stepsPerEpoch("r"), 0.0);
    QCOMPARE(store.xMapping("r", XAxisMode::Epoch).x(s, 0), 1.0);  // the integer epoch
    const int before = store.epochScaleRevision("r");
    store.setStepsPerEpoch("r", 10);
    QVERIFY(store.epochScaleRevision("r") != before);
    QCOMPARE(store.xMapping("r", XAxisMode::Epoch).x(s, 0), 0.3);
    // A declared value wins over the estimate and is not revised by it.
    const int declared = store.epochScaleRevision("r");
    store.append({point("r", "cost", 12, 2, 0, 1)});
    QCOMPARE(store.stepsPerEpoch("r"), 10.0);
    QCOMPARE(store.epochScaleRevision("r"), declared);
  }

  void wallOriginIsTheRunsFirstPointEvenIfStepsPerEpochCameFirst() {
    SeriesStore store;
    store.setStepsPerEpoch("r", 5);
    QVERIFY(store.runs().isEmpty());
    store.append({point("r", "cost", 1, 1, 500.0, 1), point("r", "cost", 2, 1, 502.0, 1)});
    QCOMPARE(store.runs(), QStringList{"r"});
    QCOMPARE(store.xMapping("r", XAxisMode::WallTime).x(*store.series({"r", "cost"}), 1), 2.0);
  }

  // A run resumed in the window: its past from stats.json (no wall time), then live points.
  // The clock starts at the first live point; the past sits at 0 (the live points had been
  // at 1.7e9 s, the origin taken from an undated point).
  void undatedPointsDoNotStartTheWallClock() {
    SeriesStore store;
    store.append({point("r", "cost", 10, 1, 0.0, 1), point("r", "cost", 20, 2, 0.0, 1)});
    QCOMPARE(store.runEndX("r", XAxisMode::WallTime), 0.0);
    store.append({point("r", "cost", 21, 3, 1.7e9, 1), point("r", "cost", 22, 3, 1.7e9 + 4, 1)});
    const Series& s = *store.series({"r", "cost"});
    const XMapping wall = store.xMapping("r", XAxisMode::WallTime);
    QCOMPARE(wall.x(s, 0), 0.0);
    QCOMPARE(wall.x(s, 2), 0.0);
    QCOMPARE(wall.x(s, 3), 4.0);
    QCOMPARE(store.runEndX("r", XAxisMode::WallTime), 4.0);
  }
};

}  // namespace test_SeriesStore

TB_TEST_GUILESS_MAIN(test_SeriesStore::TestSeriesStore)
#include "test_SeriesStore.moc"
