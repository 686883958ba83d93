// The structure of the project file around its components: where components sit (slots), the
// fixed objects and their keys (defaults from Project{}), the default callbacks.

#include "engine/project/ProjectStructure.h"
#include "engine/core/Names.h"

#include "engine/project/Project.h"
#include "engine/project/registry/ComponentRegistry.h"

namespace tbench {

using nlohmann::json;

// ---- The file's structure

const std::vector<ComponentSlot>& componentSlots() {
  static const std::vector<ComponentSlot> slots = {
      {"model", "model"},
      {"data.train", "data"},
      // A validation source validates on the test split unless told otherwise.
      {"data.validation", "data", json{{"split", "test"}}},
      {"optimizer", "optimizer"},
      {"callbacks[]", "callback"},
      {"trainer", "strategy"}};
  return slots;
}

const ComponentSlot* slotAt(const std::string& path) {
  std::string pattern = path.rfind("$.", 0) == 0 ? path.substr(2) : path;
  // "callbacks[2]" -> "callbacks[]"
  if (const auto open = pattern.find('['); open != std::string::npos) {
    const auto close = pattern.find(']', open);
    if (close != std::string::npos) pattern.erase(open + 1, close - open - 1);
  }
  for (const ComponentSlot& slot : componentSlots()) {
    if (slot.path == pattern) return &slot;
  }
  return nullptr;
}

namespace {

/// The fixed objects; "monitors" gets its keys from the registry on every call (monitors may be
/// registered after the first read).
const std::vector<ObjectDescription>& fixedObjects() {
  static const std::vector<ObjectDescription> objects = [] {
    const Project p;
    std::vector<ObjectDescription> out;
    out.push_back(
        {"",
         "Top level",
         {key::integer("format", p.format)
              .label("Format")
              .help("Project file format; this Towerbench reads format 1")
              .atLeast(1)
              .required(),
          key::string("name", p.name)
              .label("Name")
              .help("Letters, digits, '.', '_' and '-'; runs go to <run_root>/<name>/")
              .notEmpty()
              .required(),
          key::string("description", p.description)
              .label("Description")
              .help("Free text, shown in the run history"),
          key::integer("steps_per_epoch", p.stepsPerEpoch)
              .label("Steps per epoch")
              .help("Steps per epoch")
              .atLeast(0)
              .zeroMeans("one pass over the training data"),
          key::integer("max_epoch", p.maxEpoch)
              .label("Max epoch")
              .help("Train up to this epoch")
              .atLeast(1),
          key::integer("starting_epoch", p.startingEpoch)
              .label("Starting epoch")
              .help("First epoch to run, at most max_epoch")
              .atLeast(1),
          key::seed("seed", p.seed).label("Seed").help("Random seed of the run"),
          key::integer("num_threads", p.numThreads)
              .label("Threads")
              .help("Intra-op threads; automatic: OMP_NUM_THREADS when set, else the CPUs this "
                    "process may run on")
              .atLeast(0)
              .zeroMeans("automatic"),
          key::choice("precision", p.precision, {"32", "bf16-mixed", "16-mixed"})
              .label("Precision")
              .help("32; bf16-mixed: autocast to bfloat16 (CPU or CUDA); 16-mixed: "
                    "float16 with loss scaling (CUDA)"),
          key::directory("run_root", p.runRoot)
              .label("Run root")
              .help("Runs go to <run_root>/<name>/<run-id>/")
              .notEmpty()
              .createdIfMissing()}});
    out.push_back({"data",
                   "Data",
                   {key::integer("batch_size", p.data.batchSize)
                        .label("Batch size")
                        .help("Samples per batch and tower")
                        .atLeast(1),
                    key::boolean("shuffle", p.data.shuffle)
                        .label("Shuffle every epoch")
                        .help("Shuffle the training set every epoch"),
                    key::boolean("remainder", p.data.remainder)
                        .label("Keep the last, smaller batch")
                        .help("Keep the last, smaller training batch of a pass"),
                    key::boolean("resident", p.data.resident)
                        .label("Keep on the device")
                        .help("Read the training set once and keep it on the first tower's "
                              "device, shuffled and batched there (for data that fits, "
                              "without random augmentation)")}});
    out.push_back(
        {"schedule.learning_rate",
         "Learning-rate schedule",
         {key::choice("shape", p.schedule.shape, {"points", "cosine", "warmup_cosine", "one_cycle"})
              .label("Shape")
              .help("points: the list below; cosine: cosine annealing from "
                    "optimizer.learning_rate to min_learning_rate; warmup_cosine: "
                    "linear warm-up from 0, then cosine; one_cycle: PyTorch's "
                    "OneCycleLR with max_lr = optimizer.learning_rate"),
          key::choice("unit", p.schedule.unit, {"epoch", "step"})
              .label("Unit")
              .help("Whether points are at epochs or global steps"),
          key::choice("interpolation", p.schedule.interpolation, {"piecewise", "linear"})
              .label("Interpolation")
              .help("piecewise: hold the last value; linear: interpolate between points"),
          // Read by its own code (pairs); described here for the reference and the form.
          key::points("points").label("Points").help(
              "[epoch or step (integer >= 0), learning rate (> 0)] pairs, strictly "
              "increasing; at least one (shape points)"),
          key::integer("length", p.schedule.length)
              .label("Length")
              .help("Epochs or steps a named shape spans (held after)")
              .atLeast(0)
              .zeroMeans("the whole run"),
          key::integer("warmup", p.schedule.warmup)
              .label("Warm-up")
              .help("warmup_cosine: epochs or steps of linear warm-up from 0")
              .atLeast(0),
          key::number("min_learning_rate", p.schedule.minLearningRate)
              .label("Final learning rate")
              .help("cosine, warmup_cosine: the rate at the end (eta_min)")
              .atLeast(0),
          key::number("pct_start", p.schedule.pctStart)
              .label("Rising part")
              .help("one_cycle: the fraction of the cycle spent rising")
              .greaterThan(0)
              .below(1),
          key::number("div_factor", p.schedule.divFactor)
              .label("Start divisor")
              .help("one_cycle: starts at learning_rate / div_factor")
              .greaterThan(0),
          key::number("final_div_factor", p.schedule.finalDivFactor)
              .label("Final divisor")
              .help("one_cycle: ends at the start rate / final_div_factor")
              .greaterThan(0)}});
    out.push_back({"monitors", "Monitors", {}});
    out.push_back(
        {"speed",
         "Device speed",
         {key::choice("tf32", p.speed.tf32, {"cudnn", "all", "none"})
              .label("TF32")
              .help("TensorFloat-32 on CUDA (Ampere and later): cudnn = convolutions only "
                    "(PyTorch's default), all = matrix products too, none = full 32-bit"),
          key::boolean("cudnn_benchmark", p.speed.cudnnBenchmark)
              .label("cuDNN autotuning")
              .help("cuDNN times its algorithms once per shape and keeps the fastest"),
          key::choice("channels_last", p.speed.channelsLast, {"auto", "on", "off"})
              .label("Channels-last")
              .help("NHWC weights and image batches for 2-D convolutions: auto = on CUDA "
                    "towers, on = every tower, off"),
          key::integer("read_scalars_every_steps", p.speed.readScalarsEverySteps)
              .label("Read scalars every (steps)")
              .help("A step's scalars (cost, summaries) stay on the device and are read back "
                    "in batches: after this many steps at most (and at each epoch's end)")
              .atLeast(1),
          key::number("read_scalars_every_seconds", p.speed.readScalarsEverySeconds)
              .label("Read scalars every (s)")
              .help("... or after this many seconds, so live charts stay fresh on slow steps")
              .atLeast(0)
              .zeroMeans("no time limit")}});
    out.push_back({"init",
                   "Initial weights",
                   {key::file("checkpoint", p.init.checkpoint)
                        .label("Weights")
                        .help("Start from these weights: a Towerbench checkpoint or run "
                              "directory (its latest), a PyTorch state_dict saved with "
                              "torch.save, a .safetensors file or a TorchScript file; a "
                              "relative path is from the project's folder")
                        .notEmpty()
                        .required()
                        .filter("Weights (*.pt *.pth *.bin *.ckpt *.safetensors);;All files (*)"),
                    key::strings("ignore", p.init.ignore)
                        .label("Do not restore")
                        .help("Parameter names (or prefixes ending in '.') not restored"),
                    key::strings("rename", p.init.rename)
                        .label("Rename")
                        .help("Rules REGEX=>REPLACEMENT applied in order to the file's tensor "
                              "names before they are matched to the model's (as re.sub)"),
                    key::boolean("strict", p.init.strict)
                        .label("Strict")
                        .help("Refuse to start when a tensor is missing, unexpected or of "
                              "another shape (load_state_dict(strict=True)); otherwise a tensor "
                              "of another shape keeps its initial value")}});
    return out;
  }();
  return objects;
}

}  // namespace

std::vector<ObjectDescription> projectObjects() {
  std::vector<ObjectDescription> objects = fixedObjects();
  for (ObjectDescription& object : objects) {
    if (object.path == "monitors") object.keys = ComponentRegistry::global().monitorKeys();
  }
  return objects;
}

std::optional<ObjectDescription> objectAt(const std::string& path) {
  const std::string pattern = path.rfind("$.", 0) == 0 ? path.substr(2) : path == "$" ? "" : path;
  for (ObjectDescription& object : projectObjects()) {
    if (object.path == pattern) return std::move(object);
  }
  return std::nullopt;
}

json defaultCallbacksJson() {
  return json::array({{{"type", "progress_bar"}, {"scalars", {"cost"}}},
                      {{"type", "estimated_time_left"}},
                      {{"type", "throughput"}}});
}

std::vector<std::string> knownScalars() {
  return {"cost",   "train_error", "validation_cost", "validation_error", names::kLearningRate,
          "d_loss", "g_loss",      "accuracy_real",   "accuracy_fake"};
}

}  // namespace tbench
