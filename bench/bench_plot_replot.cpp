// Live plot scaling: how long one replot takes with 10^6 points on the curves, and what a
// live update (1,000 new points, then the coalesced replot) costs. Goal: a replot under 16 ms.
//
// The widget is a real LivePlotWidget at 1280x800 on the offscreen platform, smoothing on
// (raw faint + smoothed curves). Noisy values are the hard case: every pixel column of a
// curve spans a band. Layouts measured (4 charts x 1 series, each drawn raw + smoothed):
//   125,000 points per series: 10^6 points on the 8 curves (the goal's case)
//   250,000 points per series: 10^6 stored points, 2 x 10^6 on the curves
//   10,000 and 1,000,000 points per series: how the time scales with the run's length
//
//   bench_plot_replot [--rounds N] [--screenshot PATH]   (--screenshot: a realistic run only)

#include <QApplication>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "widgets/LivePlotWidget.h"
#include "widgets/MetricChart.h"

using namespace tbench::ui;

namespace {

const QStringList kBenchNames{"cost", "learning_rate", "ThroughputTracker/steps_per_sec",
                              "QueueInput/queue_size"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double msSince(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }

/// CPU time of this thread: on a machine shared with other jobs, wall time also counts the
/// time the scheduler gave to them.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/// Points for steps [from, to) of every bench name, as the bridge would deliver them.
MetricPoints benchPoints(qint64 from, qint64 to, QRandomGenerator& rng) {
  MetricPoints points;
  points.reserve(int((to - from) * kBenchNames.size()));
  for (qint64 step = from; step < to; ++step) {
    const double noise = rng.generateDouble() - 0.5;
    const double t = double(step);
    points.append({"run", kBenchNames[0], step, step / 1000 + 1, t * 0.001,
                   0.3 + 2.0 * std::exp(-t / 30000.0) + 0.3 * noise});
    points.append({"run", kBenchNames[1], step, step / 1000 + 1, t * 0.001,
                   1e-3 * std::pow(0.5, std::floor(t / 50000.0)) * (1.0 + 0.01 * noise)});
    points.append({"run", kBenchNames[2], step, step / 1000 + 1, t * 0.001, 1000.0 + 80 * noise});
    points.append({"run", kBenchNames[3], step, step / 1000 + 1, t * 0.001,
                   std::max(0.0, 48.0 + 6.0 * noise - (step % 5000 < 50 ? 40.0 : 0.0))});
  }
  return points;
}

void measure(int pointsPerSeries, int rounds) {
  LivePlotWidget widget;
  widget.resize(1280, 800);
  widget.show();
  QApplication::processEvents();
  QRandomGenerator rng(42);

  QElapsedTimer timer;
  std::vector<double> appendMs;
  const qint64 batch = 250;  // 1,000 points per call, 4 names x 250 steps
  qint64 step = 1;
  while (step <= pointsPerSeries) {
    const qint64 to = std::min<qint64>(step + batch, pointsPerSeries + 1);
    const MetricPoints points = benchPoints(step, to, rng);
    timer.start();
    widget.appendPoints(points);
    appendMs.push_back(msSince(timer));
    step = to;
  }
  timer.start();
  widget.flush();
  const double firstFlushMs = msSince(timer);
  QApplication::processEvents();

  qint64 curvePoints = 0;
  QVector<QCustomPlot*> plots;
  for (const QString& title : widget.chartTitles()) {
    plots.append(widget.chart(title)->plot());
    curvePoints += widget.chart(title)->graphPointCount();
  }

  // One replot = every chart redrawn and repainted at once.
  std::vector<double> replotMs, replotCpuMs, perChartMs;
  for (int r = 0; r < rounds; ++r) {
    QElapsedTimer all;
    all.start();
    const double cpu = threadCpuMs();
    for (QCustomPlot* plot : plots) {
      timer.start();
      plot->replot(QCustomPlot::rpImmediateRefresh);
      perChartMs.push_back(msSince(timer));
    }
    replotCpuMs.push_back(threadCpuMs() - cpu);
    replotMs.push_back(msSince(all));
  }

  // A live update: 1,000 new points (250 steps x 4 names) appended, then the coalesced pass
  // (sync of the new points into the graphs + replot of every dirty chart + paint).
  std::vector<double> updateMs, updateCpuMs;
  for (int r = 0; r < rounds; ++r) {
    const MetricPoints points = benchPoints(step, step + batch, rng);
    step += batch;
    timer.start();
    const double cpu = threadCpuMs();
    widget.appendPoints(points);
    widget.flush();
    QApplication::processEvents();
    updateCpuMs.push_back(threadCpuMs() - cpu);
    updateMs.push_back(msSince(timer));
  }

  std::printf("%d points per series, %lld stored points, %lld curve points (raw + smoothed)\n",
              pointsPerSeries, static_cast<long long>(widget.store().pointCount()),
              static_cast<long long>(curvePoints));
  std::printf("  append 1,000 points (store only)      median %7.3f ms\n", median(appendMs));
  std::printf("  first flush (build all curves)               %7.1f ms\n", firstFlushMs);
  std::printf("  replot, all %lld charts                 median %7.2f ms  (min %.2f, max %.2f)\n",
              static_cast<long long>(plots.size()), median(replotMs),
              *std::min_element(replotMs.begin(), replotMs.end()),
              *std::max_element(replotMs.begin(), replotMs.end()));
  std::printf("  replot, all charts, thread CPU time     median %7.2f ms\n", median(replotCpuMs));
  std::printf("  replot, one chart                      median %7.2f ms\n", median(perChartMs));
  std::printf("  append 1,000 new points + replot       median %7.2f ms  (max %.2f)\n",
              median(updateMs), *std::max_element(updateMs.begin(), updateMs.end()));
  std::printf("  append 1,000 new points + replot, CPU  median %7.2f ms\n", median(updateCpuMs));
}

/// A run that looks like Fashion-MNIST training: 10 epochs of 469 steps.
MetricPoints realisticRun(const QString& run, double seed, double speed) {
  QRandomGenerator rng(quint32(seed * 1000));
  auto noise = [&] { return rng.generateDouble() * 2.0 - 1.0; };
  const qint64 stepsPerEpoch = 469;
  MetricPoints points;
  double wall = 1.7e9;
  for (qint64 epoch = 1; epoch <= 10; ++epoch) {
    const double lr = 1e-3 * (epoch > 6 ? 0.1 : 1.0) * (epoch > 8 ? 0.1 : 1.0);
    for (qint64 i = 1; i <= stepsPerEpoch; ++i) {
      const qint64 step = (epoch - 1) * stepsPerEpoch + i;
      const double t = double(step);
      wall += 0.1 / speed * (1.0 + 0.1 * noise());
      const double cost = 0.25 * seed + 1.9 * std::exp(-t / (600.0 * seed)) +
                          0.12 * std::exp(-t / 3000.0) + 0.09 * noise();
      const double error =
          0.08 * seed + 0.7 * std::exp(-t / (500.0 * seed)) + 0.04 * std::abs(noise());
      points.append({run, "cost", step, epoch, wall, cost});
      points.append({run, "train_error", step, epoch, wall, error});
      points.append({run, "learning_rate", step, epoch, wall, lr});
      const bool stall = (step % 700) < 15;
      points.append({run, "QueueInput/queue_size", step, epoch, wall,
                     stall ? 2.0 + 3.0 * std::abs(noise()) : 46.0 + 4.0 * noise()});
    }
    const qint64 step = epoch * stepsPerEpoch;
    const double t = double(step);
    wall += 4.0;  // the validation pass
    points.append(
        {run, "validation_cost", step, epoch, wall,
         0.3 * seed + 1.8 * std::exp(-t / (600.0 * seed)) + 0.015 * noise() + 0.004 * epoch});
    points.append({run, "validation_error", step, epoch, wall,
                   0.1 * seed + 0.65 * std::exp(-t / (500.0 * seed)) + 0.006 * noise()});
    points.append(
        {run, "ThroughputTracker/steps_per_sec", step, epoch, wall, 10.0 * speed + 0.3 * noise()});
    points.append({run, "ThroughputTracker/samples_per_sec", step, epoch, wall,
                   1280.0 * speed + 40.0 * noise()});
  }
  return points;
}

int screenshot(const QString& path) {
  LivePlotWidget widget;
  widget.resize(1280, 800);
  widget.show();
  QApplication::processEvents();
  widget.appendPoints(realisticRun("convnet-adam", 1.0, 1.0));
  widget.flush();
  QApplication::processEvents();
  const bool ok = widget.grab().save(path);
  std::printf("%s %s\n", ok ? "wrote" : "could not write", qPrintable(path));
  // The same with a second run overlaid (run history selection).
  widget.appendPoints(realisticRun("convnet-sgd", 1.3, 1.4));
  widget.flush();
  QApplication::processEvents();
  QString overlay = path;
  overlay.replace(QStringLiteral(".png"), QStringLiteral("-overlay.png"));
  const bool ok2 = widget.grab().save(overlay);
  std::printf("%s %s\n", ok2 ? "wrote" : "could not write", qPrintable(overlay));
  return ok && ok2 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  int rounds = 20;
  QString screenshotPath;
  const QStringList args = app.arguments();
  for (int i = 1; i < args.size(); ++i) {
    if (args[i] == "--rounds" && i + 1 < args.size()) rounds = args[++i].toInt();
    if (args[i] == "--screenshot" && i + 1 < args.size()) screenshotPath = args[++i];
  }
  if (!screenshotPath.isEmpty()) return screenshot(screenshotPath);
  std::printf(
      "bench_plot_replot: LivePlotWidget 1280x800, platform %s, %d rounds, goal: "
      "replot < 16 ms\n",
      qPrintable(QGuiApplication::platformName()), rounds);
  measure(125000, rounds);  // the goal's case: 10^6 points on the curves
  measure(250000, rounds);
  // Scaling: a short run and a long one (a run at 1,000 steps/s for ~17 minutes).
  measure(10000, rounds);
  measure(1000000, rounds);
  return 0;
}
