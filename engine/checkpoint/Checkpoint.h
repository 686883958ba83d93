#pragma once
// Checkpoint files: model-<global_step>.pt in the run directory.
//
// Format (docs/ARCHITECTURE.md, "the run directory"): one plain pickle (PlainPickle.h), which
// Python's torch.load opens as a plain dict, also with weights_only=True:
//   {"format": "towerbench-checkpoint-1",
//    "model": {parameter and buffer name: tensor},   names as in Module::named_parameters()
//                                                    and named_buffers(); the same for every
//                                                    strategy
//    "optimizer": uint8 tensor,   the optimizer's own torch::serialize archive (opaque to
//                                 Python; exact for resuming in C++)
//    "optimizer_type": "adam" | "sgd" | ... (the C++ class, informational),
//    "global_step": int, "epoch_num": int,
//    "epoch_step": int,           steps of epoch_num done (steps_per_epoch once it is complete;
//                                 absent in files written before it existed)
//    "rng_state": uint8 tensor,   the CPU generator's state (torch.get_rng_state() layout)
//    "cuda_rng_states": {"cuda:N": uint8 tensor}, the state of the generator of each CUDA
//                                 device the process had used (torch.cuda.get_rng_state(N)
//                                 layout); absent when none (a CPU run, an older file)
//    "hyper_params": {name: 0-dim float64 tensor},  the values in force ("learning_rate"),
//                                    which LibTorch's optimizer archive does not keep
//    "callbacks": {name: str},       callbacks' own state (Callback::checkpointState)
//    "optimizers": {role: uint8 tensor}, "optimizer_types": {role: str}
//                                 a trainer with several optimizers (GanTrainer: "generator",
//                                 "discriminator"); absent for a single-cost trainer, whose
//                                 one optimizer is "optimizer"
//    "trainer_state": {name: tensor}  what else a trainer owns (TowerTrainer::extraState);
//                                 absent when empty
//    "topology": {"batches_per_step": int, "world_size": int}   what one global step consumed:
//                                 batches per process (towers x a GAN's d_steps) and processes;
//                                 a resume on another topology is refused (absent in older files)
//    "project": str,              the project JSON the run was started with ("" if none)
//    "data": str}                 what the model was built for, as JSON (absent in older files):
//                                 {"input_shape": [C, H, W], "num_classes": K,
//                                  "num_targets": T, "class_names": [..],
//                                  "statistics": {"feature_mean": [..], ..},
//                                  "base_dir": the project file's directory}
// Files are written atomically (temp file, flush, rename): a kill at any moment leaves the
// previous file intact.

#include <ATen/core/ivalue.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tbench {

/// The value of the "format" key of every checkpoint.
inline constexpr const char* kCheckpointFormat = "towerbench-checkpoint-1";

/// One optimizer's state: its own torch::serialize archive and its C++ class.
struct OptimizerState {
  torch::Tensor bytes;  ///< uint8
  std::string type;     ///< "adam", "sgd", ...
};

/// The state of `optimizer` now.
OptimizerState captureOptimizer(const torch::optim::Optimizer& optimizer);

struct TrainingState {
  std::vector<std::pair<std::string, torch::Tensor>> model;  ///< parameters, then buffers
  torch::Tensor optimizer;  ///< uint8, empty tensor when there is no optimizer state
  std::string optimizerType;
  /// The optimizers of a trainer with several, by role (the "optimizers" entry).
  std::map<std::string, OptimizerState> namedOptimizers;
  /// The trainer's own state beyond models and optimizers (the "trainer_state" entry).
  std::map<std::string, torch::Tensor> trainerState;
  int64_t globalStep = 0;
  int64_t epochNum = 0;
  /// Steps of epochNum done when it was captured; -1 when unknown (an older file).
  int64_t epochStep = -1;
  torch::Tensor rngState;  ///< uint8
  /// The CUDA generators' states by device ("cuda:0"): those of the devices with a CUDA
  /// context when captured (the ones training used); empty on a CPU run.
  std::map<std::string, torch::Tensor> cudaRngStates;
  std::map<std::string, double> hyperParams;
  std::map<std::string, std::string> callbackStates;
  /// "batches_per_step", "world_size" (the "topology" entry; empty in older files).
  std::map<std::string, int64_t> topology;
  std::string project;
  /// The "data" entry (JSON text; empty when the file has none).
  std::string data;
  /// The file it was read from, for messages; empty when captured in memory.
  std::string path;
};

/// The state of `module` (+ `optimizer`, may be null) now, with the CPU generator's state and
/// the CUDA generators' of the devices in use.
/// Tensors are copied to CPU and detached.
TrainingState captureState(torch::nn::Module& module, torch::optim::Optimizer* optimizer,
                           int64_t globalStep, int64_t epochNum, const std::string& project);

/// Writes `state` to `path` atomically. Throws std::runtime_error naming the path and the
/// reason (disk full, permissions); the previous file at `path` is then untouched.
void writeCheckpointFile(const std::string& path, const TrainingState& state);

/// Reads a checkpoint. Throws InputError naming the file and what is wrong when it is missing,
/// truncated, not a pickle, or a pickle that is not a Towerbench checkpoint (missing keys,
/// wrong types).
TrainingState readCheckpointFile(const std::string& path);

/// The pickle of the torch zip archive `bytes` read from `path` (torch::pickle_save's, or
/// torch.save's in PyTorch's zip format), its zip records verified (Note [Checkpoint integrity])
/// and every tensor within its storage. InputError "<path>: not <kind> (why)" otherwise.
c10::IValue readTorchPickle(const std::string& path, const std::vector<char>& bytes,
                            const std::string& kind);
/// The checkpoint in `root`, readTorchPickle's of a checkpoint file `path` (InputError when it
/// is not one, as readCheckpointFile).
TrainingState stateFromPickle(const std::string& path, const c10::IValue& root);
/// The bytes of the file at `path`; InputError naming it when it cannot be read.
std::vector<char> readFileBytes(const std::string& path);

/// Whether `name` is in `ignore`: an exact name, or a prefix ending in '.'.
bool matchesIgnoreList(const std::string& name, const std::vector<std::string>& ignore);

/// What restoring a model from a checkpoint did, by parameter/buffer name.
struct RestoreReport {
  std::vector<std::string> loaded;
  std::vector<std::string> missing;        ///< in the model, not in the checkpoint
  std::vector<std::string> unexpected;     ///< in the checkpoint, not in the model
  std::vector<std::string> shapeMismatch;  ///< "name: checkpoint [..] vs model [..]"
  std::vector<std::string> ignored;        ///< skipped because of the ignore list
  /// One paragraph for the log: counts, then the names of every non-loaded entry.
  std::string toString() const;
};

/// Copies the checkpoint's tensors into `module` (no gradient, onto each parameter's device).
/// Names matching an entry of `ignore` (exact name, or prefix ending in '.') are skipped.
/// Never throws for missing/unexpected/mismatched names: the report says what happened.
RestoreReport restoreModel(torch::nn::Module& module, const TrainingState& state,
                           const std::vector<std::string>& ignore = {});

/// Restores the optimizer's state from the checkpoint (same optimizer class and parameter
/// order required). Throws InputError when the state does not fit; the optimizer's previous
/// state is then kept. A checkpoint without optimizer state logs a warning and changes nothing.
void restoreOptimizer(torch::optim::Optimizer& optimizer, const TrainingState& state);
/// Restores the optimizer of `role` (TrainingState::namedOptimizers). Throws InputError when
/// the checkpoint has no state for that role or the state does not fit; the optimizer's
/// previous state is then kept.
void restoreOptimizer(torch::optim::Optimizer& optimizer, const TrainingState& state,
                      const std::string& role);

/// Restores the CPU generator's state, and each saved CUDA generator's state on the device of
/// that index (a device this machine lacks is logged and skipped). Throws InputError when a
/// state has the wrong size.
void restoreRngState(const TrainingState& state);

}  // namespace tbench
