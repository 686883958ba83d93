// Long runs (issue 28): the main window, 1280x800 with every chart visible, attached to a
// run far longer than a benchmark usually is, sampling along the way what must stay flat:
// resident memory (VmRSS), the time to replot every visible chart, the points the plots hold
// and the rate.
//
//   bench_soak train  [--steps N] [--per-epoch E] [--samples K]
//       A synthetic run trained from the window through its real path (RunSession, the
//       bridge, the engine thread) at full rate: a tiny MLP on 4x4 synthetic images, batch 4,
//       queue_input, every step's cost, train_error and grad_norm, the learning rate, the
//       input queue, throughput and validation each epoch, stats.json, scalars.jsonl,
//       checkpoints. Default 7,200,000 steps: two hours of the MLP project at ~1,000 steps/s.
//   bench_soak follow [--lines N] [--rate L] [--samples K]
//       A writer thread appends to a run directory's scalars.jsonl, in the engine's format
//       (ScalarStream), L lines per second until it has N lines (default 2,400,000 at
//       25,000/s), while the window follows that directory (File > Follow Run Directory).
//
// Every K-th of the run (default 20 samples, every 5%) it prints a row. The replot time is
// QCustomPlot's own replot of each visible chart, timed one after the other (sum and the
// slowest); "last pass" is the window's own last coalesced pass (LivePlotWidget::lastFlushMs:
// new points copied in and the dirty charts replotted), "max lag" the longest the GUI thread's
// event loop was busy since the previous row. Run under QT_QPA_PLATFORM=offscreen or a display.

#include <unistd.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/gui/MainWindow.h"
#include "app/gui/run/RunFollower.h"
#include "app/gui/run/RunSession.h"
#include "bench/ResidentMemory.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/monitors/ScalarJson.h"
#include "engine/run/RunStatus.h"
#include "widgets/ChartPanel.h"
#include "widgets/LivePlotWidget.h"
#include "widgets/MetricChart.h"

using namespace tbench;

namespace {

using tbench::bench::residentMiB;

/// "AMD EPYC, family 26 model 2" from /proc/cpuinfo.
std::string cpuName() {
  std::ifstream info("/proc/cpuinfo");
  std::string line, name, family, model;
  const auto value = [&] { return line.substr(line.find(':') + 2); };
  while (std::getline(info, line) && (name.empty() || family.empty() || model.empty())) {
    if (line.rfind("model name", 0) == 0) name = value();
    if (line.rfind("cpu family", 0) == 0) family = value();
    if (line.rfind("model\t", 0) == 0) model = value();
  }
  return name + ", family " + family + " model " + model + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " cores";
}

/// Samples the window: one row per call.
class Sampler {
 public:
  Sampler(gui::MainWindow& window, const char* unit) : window_(window) {
    clock_.start();
    // The event loop's longest stall between rows: a 10 ms tick that came late.
    tick_.setInterval(10);
    QObject::connect(&tick_, &QTimer::timeout, [this] {
      const double now = clock_.nsecsElapsed() / 1e6;
      if (lastTick_ > 0) maxLag_ = std::max(maxLag_, now - lastTick_ - 10.0);
      lastTick_ = now;
    });
    tick_.start();
    std::printf("%8s %12s %9s %8s %10s %9s %9s %10s %10s %7s\n", "elapsed", unit, "rate/s",
                "RSS MiB", "points", "charts", "replot", "slowest", "last pass", "max lag");
  }

  void row(qint64 position) {
    ui::LivePlotWidget* plots = window_.plots();
    plots->flush();  // what is pending is drawn, as the timer would
    double total = 0, slowest = 0;
    int charts = 0;
    for (const QString& title : plots->chartTitles()) {
      ui::MetricChart* chart = plots->chart(title);
      if (!chart->isVisible() || chart->height() < 20) continue;
      QElapsedTimer t;
      t.start();
      chart->plot()->replot(QCustomPlot::rpImmediateRefresh);
      const double ms = t.nsecsElapsed() / 1e6;
      total += ms;
      slowest = std::max(slowest, ms);
      ++charts;
    }
    const double now = clock_.elapsed() / 1000.0;
    const double rate = now > lastTime_ ? (position - lastPosition_) / (now - lastTime_) : 0;
    std::printf("%8.0f %12lld %9.0f %8.1f %10lld %9d %7.2fms %8.2fms %8.2fms %6.0fms\n", now,
                static_cast<long long>(position), rate, residentMiB(),
                static_cast<long long>(plots->store().pointCount()), charts, total, slowest,
                plots->lastFlushMs(), maxLag_);
    maxLag_ = 0;
    lastTick_ = 0;
    std::fflush(stdout);
    lastTime_ = now;
    lastPosition_ = position;
  }

 private:
  gui::MainWindow& window_;
  QElapsedTimer clock_;
  double lastTime_ = 0;
  qint64 lastPosition_ = 0;
  QTimer tick_;
  double lastTick_ = 0, maxLag_ = 0;
};

void describeCharts(gui::MainWindow& window) {
  ui::LivePlotWidget* plots = window.plots();
  std::printf("charts:");
  for (const QString& title : plots->chartTitles()) {
    ui::MetricChart* chart = plots->chart(title);
    std::printf(" [%s %dx%d%s]", qPrintable(title), chart->width(), chart->height(),
                chart->isVisible() ? "" : " hidden");
  }
  std::printf("\nseries:");
  for (const ui::SeriesKey& key : plots->store().keys())
    std::printf(" %s(%d)", qPrintable(key.name), plots->store().series(key)->size());
  std::printf("\n");
}

void showWindow(gui::MainWindow& window) {
  window.setAsker([](auto&&...) { return QMessageBox::Discard; });
  window.resize(1280, 800);
  window.show();
}

int train(qint64 steps, qint64 perEpoch, int samples, const QString& dir) {
  nlohmann::json doc = {
      {"format", 1},
      {"name", "soak"},
      {"model", {{"type", "mlp"}, {"hidden", {8}}}},
      {"data",
       {{"train",
         {{"type", "synthetic"},
          {"num_samples", 1024},
          {"image_size", 4},
          {"num_classes", 4},
          {"noise", 2.0},
          {"seed", 1}}},
        {"batch_size", 4},
        {"validation",
         {{"type", "synthetic"},
          {"num_samples", 64},
          {"image_size", 4},
          {"num_classes", 4},
          {"noise", 2.0},
          {"seed", 1},
          {"sample_seed", 2}}}}},
      {"optimizer", {{"type", "sgd"}, {"learning_rate", 0.01}, {"momentum", 0.9}}},
      {"max_epoch", (steps + perEpoch - 1) / perEpoch},
      {"steps_per_epoch", perEpoch},
      {"run_root", dir.toStdString() + "/runs"},
      {"trainer", {{"strategy", "queue_input"}, {"devices", {"cpu"}}}},
      {"seed", 7},
      {"monitors", {{"scalar_printer", false}, {"tensorboard", false}}},
      {"callbacks",
       {{{"type", "throughput"}},
        {{"type", "inference"}},
        {{"type", "model_saver"}},
        {{"type", "min_saver"}, {"stat", "validation_error"}}}}};
  const QString path = dir + "/soak.json";
  std::ofstream(path.toStdString()) << doc.dump(2);

  gui::MainWindow window;
  showWindow(window);
  window.openProject(path);
  qint64 step = 0;
  QObject::connect(window.session(), &gui::RunSession::metrics,
                   [&](const bridge::MetricSamples& batch) {
                     for (const auto& s : batch) step = std::max(step, s.step);
                   });
  bool ended = false;
  QObject::connect(window.session(), &gui::RunSession::ended,
                   [&](bridge::RunState state, const QString& detail) {
                     ended = true;
                     if (!detail.isEmpty()) std::printf("run ended: %s\n", qPrintable(detail));
                     (void)state;
                   });
  std::printf("train: %lld steps, %lld per epoch, window 1280x800\n", static_cast<long long>(steps),
              static_cast<long long>(perEpoch));
  window.findChild<QAction*>("actionStart")->trigger();
  while (step < 200 && !ended) QTest::qWait(20);
  describeCharts(window);
  Sampler sampler(window, "step");
  sampler.row(step);
  for (int k = 1; k <= samples; ++k) {
    const qint64 target = steps * k / samples;
    while (step < target && !ended) QTest::qWait(50);
    if (ended) {
      while (window.session()->isActive()) QTest::qWait(20);
      QTest::qWait(200);  // the last metrics
    }
    sampler.row(step);
    if (ended) break;
  }
  while (window.session()->isActive()) QTest::qWait(50);
  describeCharts(window);
  return 0;
}

/// Appends `lines` lines to `path` as ScalarStream writes them, `rate` lines per second.
void writeStream(const std::string& path, qint64 lines, double rate, std::atomic<qint64>* written) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  const char* names[] = {"cost", "train_error", "grad_norm", "learning_rate",
                         "QueueInput/queue_fullness"};
  const auto start = std::chrono::steady_clock::now();
  const double wall0 = 1.7e9;
  const qint64 perEpoch = 10000;
  qint64 n = 0, step = 0;
  while (n < lines) {
    ++step;
    const qint64 epoch = (step - 1) / perEpoch + 1;
    const double wall = wall0 + step * 0.1;  // the stream's 0.1 s throttle, time-compressed
    auto put = [&](const char* name, double value) {
      nlohmann::json line = {{"name", name}, {"step", step}, {"epoch", epoch}, {"time", wall}};
      line["value"] = scalarToJson(value);
      const std::string text = line.dump() + "\n";
      std::fwrite(text.data(), 1, text.size(), file);
      ++n;
    };
    const double noise = double((step * 7919) % 1000) / 1000.0;
    put("cost", 2.0 / std::sqrt(double(step)) + 0.1 * noise + (step % 100003 == 0 ? 5.0 : 0.0));
    put(names[1], 0.5 / std::sqrt(double(step)) + 0.05 * noise);
    if (step % 2 == 0) put(names[2], 1.0 + noise);
    if (step % 5 == 0) put(names[3], 0.01);
    if (step % 5 == 0) put(names[4], 0.5 + 0.5 * noise);
    if (step % perEpoch == 0) {
      put("validation_error", 0.3 / std::sqrt(double(epoch)));
      put("validation_cost", 1.0 / std::sqrt(double(epoch)));
      put("throughput", 25000.0 + 100 * noise);
    }
    if (step % 100 == 0) {
      std::fflush(file);  // the engine flushes every 0.5 s: whole lines, a few at a time
      written->store(n);
      const auto due = start + std::chrono::duration<double>(n / rate);
      std::this_thread::sleep_until(due);
    }
  }
  std::fclose(file);
  written->store(n);
}

int follow(qint64 lines, double rate, int samples, const QString& dir) {
  const QString runDir = dir + "/runs/soak-followed";
  QDir().mkpath(runDir);
  RunStatusRecord status;
  status.state = RecordedState::Running;
  status.host = thisHost();
  status.pid = ::getpid();
  status.origin = "bench_soak";
  status.maxEpoch = 1000;
  status.stepsPerEpoch = 10000;
  std::ofstream(QDir(runDir).filePath("run.json").toStdString()) << status.toJson();
  const std::string stream = QDir(runDir).filePath("scalars.jsonl").toStdString();
  std::ofstream(stream).close();

  gui::MainWindow window;
  showWindow(window);
  window.followRunDirectory(runDir);
  std::atomic<qint64> written{0};
  std::thread writer(writeStream, stream, lines, rate, &written);
  std::printf("follow: %lld lines at %.0f lines/s, window 1280x800\n",
              static_cast<long long>(lines), rate);
  while (written.load() < 2000) QTest::qWait(20);
  QTest::qWait(1200);
  describeCharts(window);
  Sampler sampler(window, "lines");
  sampler.row(written.load());
  for (int k = 1; k <= samples; ++k) {
    const qint64 target = lines * k / samples;
    while (written.load() < target) QTest::qWait(50);
    if (k == samples) {
      writer.join();
      QTest::qWait(2 * gui::RunFollower::kPollMs + 200);  // the last lines read
    }
    sampler.row(written.load());
  }
  describeCharts(window);
  // Opening the finished run afresh: the whole file, a piece a poll (RunFollower), while the
  // event loop keeps running; a row when every line has been read.
  qint64 read = 0;
  QObject::connect(window.session(), &gui::RunSession::metrics,
                   [&](const bridge::MetricSamples& batch) { read += batch.size(); });
  std::printf("following the whole file afresh:\n");
  Sampler again(window, "lines read");
  window.followRunDirectory(runDir);
  while (read < written.load()) QTest::qWait(20);
  again.row(read);
  std::printf("scalars.jsonl: %.1f MiB\n",
              QFileInfo(QString::fromStdString(stream)).size() / (1024.0 * 1024.0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("TowerbenchBench");
  const std::string mode = argc > 1 ? argv[1] : "";
  qint64 steps = 7200000, perEpoch = 50000, lines = 2400000;
  double rate = 25000;
  int samples = 20;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--steps") steps = std::atoll(argv[i + 1]);
    if (flag == "--per-epoch") perEpoch = std::atoll(argv[i + 1]);
    if (flag == "--lines") lines = std::atoll(argv[i + 1]);
    if (flag == "--rate") rate = std::atof(argv[i + 1]);
    if (flag == "--samples") samples = std::atoi(argv[i + 1]);
  }
  if (mode != "train" && mode != "follow") {
    std::fprintf(stderr, "usage: bench_soak train|follow [--steps N] [--lines N] ...\n");
    return 2;
  }
  logging::setLevel(LogLevel::Warning);
  configureThreads(0);
  QTemporaryDir dir;
  std::printf("CPU: %s\n", cpuName().c_str());
  return mode == "train" ? train(steps, perEpoch, samples, dir.path())
                         : follow(lines, rate, samples, dir.path());
}
