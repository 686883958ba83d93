#pragma once
// The project file as a value type: a TrainConfig written as data (docs/PROJECT-FORMAT.md).
//
// Torch-free on purpose: the CLI, the bridge and tests use it without LibTorch. Every field
// holds a resolved value; defaults are the ones listed here, which are also what
// toJson(Project{}) writes. ProjectJson.h turns JSON into a Project (validating every field)
// and back; ProjectBuilder.h turns a Project into a TrainConfig.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tbench {

/// "model": which network to build and its hyper-parameters.
struct ModelSpec {
  std::string type = "convnet";  ///< "mlp" or "convnet"
  // mlp
  std::vector<int64_t> hidden = {256, 128};  ///< widths of the hidden layers
  // convnet ("2 Conv+pooling" of the Fashion-MNIST benchmark table)
  int64_t conv1Channels = 32;
  int64_t conv2Channels = 64;
  int64_t kernelSize = 5;
  int64_t fcWidth = 1024;
  bool batchNorm = false;  ///< BatchNorm after each convolution
  // both
  double dropout = 0.0;  ///< before the last layer, in [0, 1)
};

/// One data source ("data.train", "data.validation").
struct DataSourceSpec {
  std::string type = "fashion-mnist";  ///< "fashion-mnist", "idx" or "synthetic"
  // fashion-mnist
  std::string split = "train";  ///< "train" or "test"
  std::string dir;              ///< empty: /usr/share/datasets/fashion-mnist
  // idx
  std::string images;  ///< path of an IDX image file (plain or .gz)
  std::string labels;  ///< path of an IDX label file
  // synthetic: class-dependent patterns plus noise, trains in seconds
  int64_t numSamples = 2048;
  int64_t imageSize = 8;
  int64_t numClasses = 4;
  double noise = 0.5;
  uint64_t dataSeed = 1;
  uint64_t sampleSeed = 0;  ///< 0: samples follow the patterns; else their own generator
  // all
  int64_t limit = 0;  ///< use only the first `limit` samples; 0 = all
};

struct DataSpec {
  DataSourceSpec train;
  bool hasValidation = false;
  DataSourceSpec validation;
  int64_t batchSize = 128;  ///< per tower
  bool shuffle = true;      ///< shuffle the training set every epoch
  bool remainder = false;   ///< keep the last smaller training batch of a pass
};

struct OptimizerSpec {
  std::string type = "adam";  ///< "sgd", "adam", "adamw", "rmsprop"
  double learningRate = 1e-3;
  double momentum = 0.0;  ///< sgd, rmsprop
  bool nesterov = false;  ///< sgd
  double weightDecay = 0.0;
  double beta1 = 0.9;  ///< adam, adamw
  double beta2 = 0.999;
  double eps = 1e-8;
  double clipGlobalNorm = 0;   ///< all types: > 0 clips the gradients' global L2 norm
  double clipValue = 0;        ///< all types: > 0 clamps every gradient element
  bool reportGradNorm = true;  ///< all types: put "grad_norm" every step
};

/// "schedule.learning_rate": the learning rate as a function of epoch or step.
struct ScheduleSpec {
  bool enabled = false;
  std::string unit = "epoch";               ///< "epoch" or "step"
  std::string interpolation = "piecewise";  ///< "piecewise" or "linear"
  /// (epoch or step, value) pairs, strictly increasing in the first element.
  std::vector<std::pair<int64_t, double>> points;
};

/// One entry of "callbacks". Only the fields of its type are meaningful.
struct CallbackSpec {
  /// "progress_bar", "estimated_time_left", "throughput", "model_saver", "min_saver",
  /// "max_saver", "inference", "check_numerics", "lr_on_plateau", "gpu_tracker"
  std::string type;
  std::vector<std::string> scalars;  ///< progress_bar: scalars shown on the bar
  int64_t maxToKeep = 10;            ///< model_saver
  double keepEveryHours = 0.5;       ///< model_saver
  int64_t everyKEpochs = 1;          ///< model_saver, inference
  std::string stat;                  ///< min_saver, max_saver, lr_on_plateau
  int64_t everyKSteps = 0;           ///< check_numerics: parameter check period (0: per epoch)
  // lr_on_plateau: learning_rate × factor when `stat` has not improved for `patience` epochs
  double factor = 0.5;
  int64_t patience = 2;
  double threshold = 0.0;    ///< smaller improvements do not count
  std::string mode = "min";  ///< "min" (lower is better) or "max"
  double minValue = 0.0;     ///< the learning rate never goes below this
};

/// progress_bar (showing cost), estimated_time_left, throughput.
inline std::vector<CallbackSpec> defaultCallbackSpecs() {
  std::vector<CallbackSpec> callbacks(3);
  callbacks[0].type = "progress_bar";
  callbacks[0].scalars = {"cost"};
  callbacks[1].type = "estimated_time_left";
  callbacks[2].type = "throughput";
  return callbacks;
}

struct MonitorSpec {
  bool json = true;           ///< stats.json
  bool scalarPrinter = true;  ///< scalars logged at the end of every epoch
  bool tensorboard = true;    ///< events.out.tfevents.*
};

/// "init": start from the weights of a checkpoint (fine-tuning, another project's run).
struct InitSpec {
  std::string checkpoint;           ///< empty: random initialisation
  std::vector<std::string> ignore;  ///< names (or "prefix.") not restored
};

struct TrainerSpec {
  /// "simple" (one tower, FeedInput), "queue_input" (one tower, QueueInput),
  /// "sync_parameter_server", "sync_replicated", "async" (one tower per device, QueueInput)
  std::string strategy = "queue_input";
  /// One per tower; "cpu" may repeat (several CPU towers).
  std::vector<std::string> devices = {"cpu"};
  int64_t queueSize = 50;        ///< all but simple: capacity of the batch queue
  std::string psDevice = "cpu";  ///< sync_parameter_server, async: where the master lives
  bool average = true;           ///< sync_replicated: average (true) or sum the gradients
  bool checkReplicas = false;    ///< sync_replicated: verify replicas are equal every epoch
};

struct Project {
  int format = 1;
  std::string name = "untitled";
  std::string description;
  ModelSpec model;
  DataSpec data;
  OptimizerSpec optimizer;
  ScheduleSpec schedule;
  int64_t stepsPerEpoch = 0;  ///< 0: one pass over the training data (size / batch)
  int64_t maxEpoch = 1;
  int64_t startingEpoch = 1;
  /// Default: progress_bar, estimated_time_left, throughput.
  std::vector<CallbackSpec> callbacks = defaultCallbackSpecs();
  MonitorSpec monitors;
  InitSpec init;
  TrainerSpec trainer;
  uint64_t seed = 42;
  int64_t numThreads = 0;             ///< intra-op threads; 0 = the cores available
  std::string runRoot = "train_log";  ///< runs go to <run_root>/<name>/<run-id>/
};

}  // namespace tbench
