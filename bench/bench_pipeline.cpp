// The project as users run it, strategy by strategy, against a hand-written LibTorch loop over
// the same data, interleaved in one process (issue 24's matrix).
//
// Towerbench: buildRun(project) with the strategy and towers set, exactly what `towerbench-cli
// train` builds (the project's data source, BatchData, its input: FeedInput for simple,
// QueueInput for the others, every callback and monitor of the project except the savers'
// files, which go to a temporary directory), timed over `--steps` steps after a warm-up.
// Hand-written: what a LibTorch user writes over the same IDX files (Fashion-MNIST projects),
// with the project's model and optimizer: the whole set as one
// float tensor, a shuffled index permutation per pass, index_select of each batch, zero_grad,
// forward, cross_entropy, backward, step, on the same thread count.
//
// Two towers (sync_replicated, sync_parameter_server, async) take the project's batch per
// tower, so a step is two batches: their ratio is in samples per second against the
// hand-written loop. Two ranks (`distributed`) are separate processes: bench_distributed.
//
//   bench_pipeline [--project projects/fashion-mnist-mlp.json] [--rounds 3] [--steps 600]
//                  [--strategies simple,queue_input,sync_replicated,...] [--set key=json]...

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "bench/BenchData.h"
#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/CpuInfo.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/PipelineThread.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/BatchData.h"
#include "engine/data/ProxyDataFlow.h"
#include "engine/data/datasets/FashionMnist.h"
#include "engine/models/SupervisedModel.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/TowerTrainer.h"

using namespace tbench;
using tbench::bench::median;

namespace {

constexpr int64_t kWarmup = 20;

struct Result {
  double stepsPerSecond = 0;
  int64_t samplesPerStep = 0;
};

/// `project` with the strategy (and its towers) set.
nlohmann::json withStrategy(nlohmann::json project, const std::string& strategy) {
  project["trainer"]["strategy"] = strategy;
  const bool twoTowers =
      strategy == "sync_replicated" || strategy == "sync_parameter_server" || strategy == "async";
  project["trainer"]["devices"] = twoTowers ? nlohmann::json{"cpu", "cpu"} : nlohmann::json{"cpu"};
  return project;
}

std::string scratch() {
  return (std::filesystem::temp_directory_path() /
          ("tb-bench-pipeline-" + std::to_string(::getpid())))
      .string();
}

/// The project of `document`, validated as a project file is, relative to `projectPath`.
Project load(const nlohmann::json& document, const std::string& projectPath) {
  const std::string file = scratch() + ".json";
  {
    std::ofstream out(file);
    out << document.dump(1);
  }
  Project project = loadProjectFile(file);
  std::filesystem::remove(file);
  project.baseDir = std::filesystem::absolute(projectPath).parent_path().string();
  return project;
}

Result towerbench(const nlohmann::json& document, const std::string& projectPath, int64_t steps) {
  const std::string runDir = scratch();
  std::filesystem::remove_all(runDir);
  Project project = load(document, projectPath);
  BuiltRun run = buildRun(project, runDir);
  tbench::bench::StepTimer timer(kWarmup, steps);
  run.config.callbacks.push_back(timer.callback());
  run.config.maxEpoch = 1000;  // stopped by the timer
  const int64_t towers = static_cast<int64_t>(document["trainer"]["devices"].size());
  launchTrainWithConfig(run.config, *run.trainer);
  std::filesystem::remove_all(runDir);
  return {timer.stepsPerSecond(), towers * document["data"]["batch_size"].get<int64_t>()};
}

Result handWritten(const nlohmann::json& document, const std::string& projectPath, int64_t steps) {
  torch::manual_seed(1);
  const Project project = load(document, projectPath);
  const int64_t batch = project.data.batchSize;
  FashionMnist data("train");
  data.resetState();
  const torch::Tensor images = data.images();
  const torch::Tensor labels = data.labels();
  ModelContext context;
  context.input = ImageShape{1, 28, 28};
  context.numClasses = 10;
  auto model = std::dynamic_pointer_cast<ModelDesc>(
      buildModel(project.model, context, project.optimizer, project.baseDir));
  TowerContext tower(0, Device{}, true);
  auto net = model->buildTower(tower);
  auto optimizer = model->optimizer(net->parameters());
  net->train();
  const int64_t n = images.size(0);
  torch::Tensor order = torch::randperm(n, torch::kInt64);
  int64_t cursor = 0;
  double start = 0;
  Stopwatch clock;
  for (int64_t i = 0; i < kWarmup + steps; ++i) {
    if (i == kWarmup) start = clock.seconds();
    if (cursor + batch > n) {
      order = torch::randperm(n, torch::kInt64);
      cursor = 0;
    }
    const torch::Tensor index = order.narrow(0, cursor, batch);
    cursor += batch;
    const torch::Tensor x = images.index_select(0, index);
    const torch::Tensor y = labels.index_select(0, index);
    optimizer->zero_grad();
    auto loss = torch::nn::functional::cross_entropy(SupervisedModel::logits(*net, x), y);
    loss.backward();
    optimizer->step();
  }
  return {steps / (clock.seconds() - start), batch};
}

/// Batches per second of one pass of BatchData over the Fashion-MNIST training set: stacked
/// reads (Note [Stacked reads]) or, through a proxy that cannot stack, datapoint by datapoint.
double dataPath(int64_t batch, bool stacked) {
  struct Opaque : ProxyDataFlow {
    using ProxyDataFlow::ProxyDataFlow;
  };
  double rate = 0;
  // On a thread of its own with one intra-op thread, as QueueInput's producer runs it.
  std::thread producer([&] {
    useOneIntraOpThreadHere();
    DataFlowPtr source =
        std::make_shared<FashionMnist>("train", "", FashionMnist::Options().shuffle(true).seed(1));
    if (!stacked) source = std::make_shared<Opaque>(source);
    BatchData batches(source, batch);
    batches.resetState();
    Stopwatch clock;
    int64_t count = 0;
    DataPass pass = batches.pass();
    Datapoint point;
    while (pass.next(point)) ++count;
    rate = count / clock.seconds();
  });
  producer.join();
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  std::string projectPath = "projects/fashion-mnist-mlp.json";
  int rounds = 3;
  int64_t steps = 600;
  std::string strategies = "simple,queue_input,sync_replicated,sync_parameter_server,async";
  std::vector<std::string> sets;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--project") projectPath = argv[i + 1];
    if (a == "--rounds") rounds = std::atoi(argv[i + 1]);
    if (a == "--steps") steps = std::atoll(argv[i + 1]);
    if (a == "--strategies") strategies = argv[i + 1];
    if (a == "--set") sets.push_back(argv[i + 1]);
  }
  logging::setLevel(LogLevel::Warning);
  configureThreads(0);
  nlohmann::json document = readProjectJson(projectPath);
  for (const std::string& assignment : sets) {
    const size_t eq = assignment.find('=');
    nlohmann::json* node = &document;
    std::istringstream path(assignment.substr(0, eq));
    for (std::string key; std::getline(path, key, '.');) node = &(*node)[key];
    *node = nlohmann::json::parse(assignment.substr(eq + 1));
  }
  // The project's own validation runs once per epoch: leave it out of the timed steps.
  document["data"].erase("validation");
  nlohmann::json callbacks = nlohmann::json::array();
  for (const auto& c : document["callbacks"]) {
    const std::string type = c["type"];
    if (type != "inference" && type != "min_saver" && type != "lr_on_plateau") {
      callbacks.push_back(c);
    }
  }
  document["callbacks"] = callbacks;
  std::printf("CPU: %s\n", cpuDescription().c_str());
  std::printf("threads %d, %s\n", at::get_num_threads(), blasDescription().c_str());
  std::printf("project %s, model %s, batch %lld, %lld timed steps, %d rounds\n",
              projectPath.c_str(), document["model"]["type"].get<std::string>().c_str(),
              static_cast<long long>(document["data"]["batch_size"].get<int64_t>()),
              static_cast<long long>(steps), rounds);
  {
    const int64_t batch = document["data"]["batch_size"].get<int64_t>();
    std::vector<double> stacked, pointwise;
    for (int r = 0; r < rounds; ++r) {
      stacked.push_back(dataPath(batch, true));
      pointwise.push_back(dataPath(batch, false));
    }
    std::printf(
        "data path alone (BatchData over fashion-mnist, one thread): %.0f batches/s "
        "stacked, %.0f datapoint by datapoint (%.1fx)\n",
        median(stacked), median(pointwise), median(stacked) / median(pointwise));
  }
  std::printf("%-22s %12s %12s %14s\n", "strategy", "steps/s", "hand steps/s", "samples ratio");
  std::vector<std::string> names;
  for (std::stringstream in(strategies); in.good();) {
    std::string s;
    std::getline(in, s, ',');
    if (!s.empty()) names.push_back(s);
  }
  std::map<std::string, std::vector<double>> ours, hand, ratios;
  for (int r = 0; r < rounds; ++r) {
    for (const std::string& name : names) {
      // The hand-written loop next to every strategy, alternating which goes first.
      Result a, b;
      if ((r + names.size()) % 2 == 0) {
        a = towerbench(withStrategy(document, name), projectPath, steps);
        b = handWritten(document, projectPath, steps);
      } else {
        b = handWritten(document, projectPath, steps);
        a = towerbench(withStrategy(document, name), projectPath, steps);
      }
      const double ratio =
          (a.stepsPerSecond * a.samplesPerStep) / (b.stepsPerSecond * b.samplesPerStep);
      ours[name].push_back(a.stepsPerSecond);
      hand[name].push_back(b.stepsPerSecond);
      ratios[name].push_back(ratio);
      std::printf("%-22s %12.1f %12.1f %14.3f  (round %d)\n", name.c_str(), a.stepsPerSecond,
                  b.stepsPerSecond, ratio, r + 1);
      std::fflush(stdout);
    }
  }
  for (const std::string& name : names) {
    std::printf("%-22s %12.1f %12.1f %14.3f  (median)\n", name.c_str(), median(ours[name]),
                median(hand[name]), median(ratios[name]));
  }
  return 0;
}
