// The cost of the window: steps/s of the MLP project trained from the main window (live plots,
// log view, status bar, the bridge's monitor) against the same project trained headless (the
// CLI's path: buildRun + train), interleaved in one process so both see the same machine.
//
// Both rates come from the wall times of the "cost" scalar of the timed steps (set-up and data
// loading excluded). Run under a display or with QT_QPA_PLATFORM=offscreen (the plots are
// rendered either way).
//
//   bench_gui_throughput [--rounds R] [--steps N] [--project projects/fashion-mnist-mlp.json]

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/MainWindow.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "widgets/LivePlotWidget.h"

using namespace tbench;

namespace {

constexpr int64_t kWarmup = 20;

/// Steps per second from the wall times of consecutive cost values, skipping the warm-up.
double rateOf(const std::vector<double>& wallTimes) {
  if (wallTimes.size() < size_t(kWarmup) + 2) return 0;
  const double seconds = wallTimes.back() - wallTimes[kWarmup];
  return seconds > 0 ? double(wallTimes.size() - 1 - kWarmup) / seconds : 0;
}

class CostTimes : public TrainingMonitor {
 public:
  void processScalar(const std::string& name, double, const MetricStamp& stamp) override {
    if (name == "cost") times.push_back(stamp.wallTime);
  }
  std::vector<double> times;
};

double headless(const nlohmann::json& doc) {
  const Project project = projectFromJson(doc, "bench");
  BuiltRun run = buildRun(project, "");
  auto times = std::make_shared<CostTimes>();
  run.config.monitors->push_back(times);
  const LoopOptions options = setupTrainWithConfig(run.config, *run.trainer);
  run.trainer->train(options);
  return rateOf(times->times);
}

double windowed(const nlohmann::json& doc, const QString& dir) {
  const QString path = dir + "/bench-project.json";
  std::ofstream(path.toStdString()) << doc.dump(2);
  gui::MainWindow window;
  window.setAsker([](auto&&...) { return QMessageBox::Discard; });
  window.resize(1400, 900);
  window.show();
  window.openProject(path);
  std::vector<double> times;
  QObject::connect(window.runs(), &bridge::RunController::metrics,
                   [&](const bridge::MetricSamples& samples) {
                     for (const auto& s : samples)
                       if (s.name == "cost") times.push_back(s.wallTime);
                   });
  window.findChild<QAction*>("actionStart")->trigger();
  while (window.runs()->isActive()) QTest::qWait(5);
  window.plots()->flush();
  return rateOf(times);
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("TowerbenchBench");
  int rounds = 3;
  int64_t steps = 600;
  std::string projectPath = std::string(TB_SOURCE_DIR) + "/projects/fashion-mnist-mlp.json";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (flag == "--steps") steps = std::atoll(argv[i + 1]);
    if (flag == "--project") projectPath = argv[i + 1];
  }
  logging::setLevel(LogLevel::Warning);
  QTemporaryDir dir;
  nlohmann::json doc = readProjectJson(projectPath);
  doc["max_epoch"] = 1;
  doc["steps_per_epoch"] = steps;
  doc["run_root"] = dir.filePath("runs").toStdString();
  doc["callbacks"] = nlohmann::json::array({{{"type", "throughput"}}});
  doc["monitors"] = {{"scalar_printer", false}, {"tensorboard", false}};
  configureThreads(0);

  std::printf("%s, %lld steps per round (first %lld not timed), %d rounds\n", projectPath.c_str(),
              static_cast<long long>(steps), static_cast<long long>(kWarmup), rounds);
  std::printf("%-6s %14s %14s %8s\n", "round", "headless it/s", "window it/s", "ratio");
  std::vector<double> h, w, ratios;
  for (int r = 0; r < rounds; ++r) {
    // Alternate the order so neither side always runs on a warmer machine.
    double a = 0, b = 0;
    if (r % 2 == 0) {
      a = headless(doc);
      b = windowed(doc, dir.path());
    } else {
      b = windowed(doc, dir.path());
      a = headless(doc);
    }
    h.push_back(a);
    w.push_back(b);
    ratios.push_back(b / a);
    std::printf("%-6d %14.1f %14.1f %8.3f\n", r + 1, a, b, b / a);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  // The median of the paired ratios: each pair ran back to back, so a slow spell of the shared
  // machine affects both sides of it (the same statistic as bench_train_throughput).
  std::printf("median %14.1f %14.1f %8.3f  (median of the rounds' window / headless)\n", median(h),
              median(w), median(ratios));
  return 0;
}
