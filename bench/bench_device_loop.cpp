// The limit for the engine on a device (issue 33's matrix, bench/gpu-matrix.sh): a hand-written
// LibTorch loop over a project's own model and optimizer with its batches already on the device.
//
// The project's training source is opened and batched as the engine does (openDataSource,
// BatchData: shuffled, decoded and augmented once), the first --batches batches are copied to
// the device before the clock starts, and the loop is what a LibTorch user writes: zero_grad,
// forward (under autocast for bf16-mixed), cross_entropy, backward, step, cycling over those
// batches. Nothing is read back to the host until the end: the timed steps lie between two
// device synchronisations, after --warmup steps. No callbacks, monitors, input queue or
// gradient norm; LibTorch's default device settings. Any model that maps images to class
// logits (the built-in networks, a TorchScript file) and any classification source work.
//
//   bench_device_loop PROJECT [--device cuda:0|cpu] [--steps 200] [--warmup 20] [--batches 50]
//                     [--precision 32|bf16-mixed] [--set key=json]...
//
// Prints one line: "steps_per_sec S samples_per_sec X loss L batch B batches K device D
// precision P threads T". Exit status 2 for a bad project or argument, 1 when training fails.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/Device.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/BatchData.h"
#include "engine/models/SupervisedModel.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/MixedPrecision.h"
#include "engine/train/TorchDevice.h"
#include "engine/train/TowerContext.h"

using namespace tbench;

namespace {

constexpr const char* kUsage =
    "usage: bench_device_loop PROJECT [--device cuda:0|cpu] [--steps N] [--warmup N]\n"
    "                         [--batches K] [--precision 32|bf16-mixed] [--set key=json]...\n";

int64_t positive(const std::string& option, const std::string& value) {
  char* end = nullptr;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < 0) {
    throw InputError(str(option, " expects a non-negative integer, got \"", value, "\""));
  }
  return n;
}

void synchronize(const Device& device) {
  if (device.isCuda()) torch::cuda::synchronize(device.index);
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  std::string projectPath, deviceName = "cpu", precisionName = "32";
  int64_t steps = 200, warmup = 20, batchCount = 50;
  std::vector<std::string> sets;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "-h" || a == "--help") {
        std::fputs(kUsage, stdout);
        return 0;
      }
      if (!a.empty() && a[0] == '-') {
        if (i + 1 >= argc) throw InputError(str(a, " needs a value"));
        const std::string value = argv[++i];
        if (a == "--device") {
          deviceName = value;
        } else if (a == "--steps") {
          steps = positive(a, value);
        } else if (a == "--warmup") {
          warmup = positive(a, value);
        } else if (a == "--batches") {
          batchCount = positive(a, value);
        } else if (a == "--precision") {
          precisionName = value;
        } else if (a == "--set") {
          sets.push_back(value);
        } else {
          throw InputError(str("unknown option ", a));
        }
      } else if (projectPath.empty()) {
        projectPath = a;
      } else {
        throw InputError(str("one project only, got ", projectPath, " and ", a));
      }
    }
    if (projectPath.empty()) throw InputError("no project given");
    if (steps < 1 || batchCount < 1) throw InputError("--steps and --batches must be at least 1");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_device_loop: %s\n%s", e.what(), kUsage);
    return 2;
  }

  logging::setLevel(LogLevel::Warning);
  Device device;
  Precision precision = Precision::Full32;
  std::shared_ptr<ModelDesc> model;
  OpenedSource train;
  int64_t batchSize = 0;
  try {
    nlohmann::json doc = readProjectJson(projectPath);
    for (const std::string& assignment : sets) applyProjectOverride(doc, assignment);
    const Project project = projectFromJson(doc, projectPath);
    configureThreads(project.numThreads);
    device = Device::parse(deviceName);
    precision = parsePrecision(precisionName);
    if (precision == Precision::Fp16Mixed) {
      throw InputError("16-mixed needs a gradient scaler: this loop does 32 and bf16-mixed");
    }
    torch::manual_seed(project.seed);
    OpenRequest request;
    request.shuffle = project.data.shuffle;
    request.seed = project.seed;
    train = openDataSource(project.data.train, request, project.baseDir);
    if (train.numClasses <= 0) throw InputError("the training data is not a classification set");
    model = std::dynamic_pointer_cast<ModelDesc>(buildModel(
        project.model, modelContext(train, str("data.train (", project.data.train.type, ")")),
        project.optimizer, project.baseDir));
    if (!model) throw InputError("the model is not a single-cost model");
    batchSize = project.data.batchSize;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_device_loop: %s\n", e.what());
    return 2;
  }

  try {
    const torch::Device target = toTorch(device);
    // The batches, resident on the device before anything is timed.
    std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
    {
      auto batched = std::make_shared<BatchData>(train.flow, batchSize);
      batched->resetState();
      DataPass pass = batched->pass();
      Datapoint point;
      while (static_cast<int64_t>(batches.size()) < batchCount && pass.next(point)) {
        batches.emplace_back(point[0].to(target).contiguous(), point[1].to(target));
      }
    }
    TB_CHECK(!batches.empty(), "the training data gave no batch of ", batchSize);

    TowerContext tower(0, device, /*isTraining=*/true);
    std::shared_ptr<torch::nn::Module> net = model->buildTower(tower);
    net->to(target);
    net->train();
    auto optimizer = model->optimizer(net->parameters());
    const c10::DeviceType type = device.isCuda() ? c10::DeviceType::CUDA : c10::DeviceType::CPU;

    torch::Tensor lossSum = torch::zeros({1}, torch::TensorOptions().device(target));
    Stopwatch clock;
    double start = 0;
    for (int64_t i = 0; i < warmup + steps; ++i) {
      if (i == warmup) {
        synchronize(device);
        lossSum.zero_();
        start = clock.seconds();
      }
      const auto& batch = batches[static_cast<size_t>(i) % batches.size()];
      optimizer->zero_grad();
      torch::Tensor loss;
      {
        AutocastScope autocast(precision, type);
        loss = torch::nn::functional::cross_entropy(SupervisedModel::logits(*net, batch.first),
                                                    batch.second);
      }
      loss.backward();
      optimizer->step();
      lossSum += loss.detach().to(torch::kFloat);
    }
    synchronize(device);
    const double seconds = clock.seconds() - start;
    const double rate = static_cast<double>(steps) / seconds;
    const double meanLoss = lossSum.item<double>() / static_cast<double>(steps);
    std::printf(
        "steps_per_sec %.3f samples_per_sec %.1f loss %.4f batch %lld batches %zu device %s "
        "precision %s threads %d\n",
        rate, rate * static_cast<double>(batchSize), meanLoss, static_cast<long long>(batchSize),
        batches.size(), device.toString().c_str(), precisionName.c_str(), at::get_num_threads());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_device_loop: training failed: %s\n", e.what());
    return 1;
  }
}
