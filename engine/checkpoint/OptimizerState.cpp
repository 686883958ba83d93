// Optimizer state in checkpoints: LibTorch's own archive as bytes, loaded back onto each
// parameter's device (Checkpoint.h: captureOptimizer, restoreOptimizer).

#include <cxxabi.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include <cstdlib>
#include <sstream>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/CheckpointDetail.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/core/TorchCompat.h"

namespace tbench {
namespace {

using checkpoint_detail::prefix;
using checkpoint_detail::shapeString;
using checkpoint_detail::torchReason;

std::string optimizerTypeName(const torch::optim::Optimizer& optimizer) {
  using namespace torch::optim;
  if (dynamic_cast<const Adam*>(&optimizer)) return "adam";
  if (dynamic_cast<const AdamW*>(&optimizer)) return "adamw";
  if (dynamic_cast<const SGD*>(&optimizer)) return "sgd";
  if (dynamic_cast<const RMSprop*>(&optimizer)) return "rmsprop";
  if (dynamic_cast<const Adagrad*>(&optimizer)) return "adagrad";
  if (dynamic_cast<const LBFGS*>(&optimizer)) return "lbfgs";
  int status = 0;
  const char* mangled = typeid(optimizer).name();
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  return name;
}

torch::Tensor bytesToTensor(const std::string& bytes) {
  auto tensor = torch::empty({static_cast<int64_t>(bytes.size())}, torch::kUInt8);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(tensor.data_ptr<uint8_t>()));
  return tensor;
}

std::string serializeOptimizer(const torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

/// Calls `visit(param, buffer, name)` for every tensor of a known optimizer's per-parameter
/// state and puts back what it returns (the same tensor, or one moved or cast).
template <typename Visit>
void forEachStateBuffer(torch::optim::Optimizer& optimizer, Visit&& visit) {
  using namespace torch::optim;
  for (auto& group : optimizer.param_groups()) {
    for (const auto& param : group.params()) {
      auto it = optimizer.state().find(compat::optimizerStateKey(param));
      if (it == optimizer.state().end()) continue;
      OptimizerParamState* state = it->second.get();
      if (auto* s = dynamic_cast<AdamParamState*>(state)) {
        s->exp_avg(visit(param, s->exp_avg(), "exp_avg"));
        s->exp_avg_sq(visit(param, s->exp_avg_sq(), "exp_avg_sq"));
        s->max_exp_avg_sq(visit(param, s->max_exp_avg_sq(), "max_exp_avg_sq"));
      } else if (auto* s = dynamic_cast<AdamWParamState*>(state)) {
        s->exp_avg(visit(param, s->exp_avg(), "exp_avg"));
        s->exp_avg_sq(visit(param, s->exp_avg_sq(), "exp_avg_sq"));
        s->max_exp_avg_sq(visit(param, s->max_exp_avg_sq(), "max_exp_avg_sq"));
      } else if (auto* s = dynamic_cast<SGDParamState*>(state)) {
        s->momentum_buffer(visit(param, s->momentum_buffer(), "momentum_buffer"));
      } else if (auto* s = dynamic_cast<RMSpropParamState*>(state)) {
        s->square_avg(visit(param, s->square_avg(), "square_avg"));
        s->momentum_buffer(visit(param, s->momentum_buffer(), "momentum_buffer"));
        s->grad_avg(visit(param, s->grad_avg(), "grad_avg"));
      } else if (auto* s = dynamic_cast<AdagradParamState*>(state)) {
        s->sum(visit(param, s->sum(), "sum"));
      }
    }
  }
}

/// Puts every state tensor on its parameter's device, floating-point ones in its dtype, as
/// PyTorch's Optimizer.load_state_dict does (its `cast`). LibTorch's load leaves them where the
/// archive was mapped (the CPU) and its step() then mixes devices on a CUDA tower.
void moveStateToParameters(torch::optim::Optimizer& optimizer) {
  forEachStateBuffer(
      optimizer,
      [](const torch::Tensor& param, const torch::Tensor& buffer, const char*) -> torch::Tensor {
        if (!buffer.defined()) return buffer;
        if (buffer.is_floating_point() && param.is_floating_point()) {
          return buffer.to(param.device(), param.scalar_type());
        }
        return buffer.to(param.device());
      });
}

void loadOptimizer(torch::optim::Optimizer& optimizer, const char* data, size_t size) {
  torch::serialize::InputArchive archive;
  archive.load_from(data, size, torch::Device(torch::kCPU));
  optimizer.load(archive);
  moveStateToParameters(optimizer);
}

/// Throws std::runtime_error when a known optimizer's per-parameter state does not have its
/// parameter's shape (LibTorch's load only checks the number of parameters).
void checkOptimizerShapes(torch::optim::Optimizer& optimizer) {
  forEachStateBuffer(optimizer,
                     [](const torch::Tensor& param, const torch::Tensor& buffer,
                        const char* what) -> torch::Tensor {
                       if (buffer.defined() && buffer.sizes() != param.sizes()) {
                         throw std::runtime_error(str(what, " has shape ", shapeString(buffer),
                                                      ", its parameter ", shapeString(param)));
                       }
                       return buffer;
                     });
}

/// Loads `saved` (of C++ class `savedType`) into `optimizer`, rolling back on failure.
void loadOptimizerState(torch::optim::Optimizer& optimizer, const torch::Tensor& saved,
                        const std::string& savedType, const std::string& where) {
  const std::string type = optimizerTypeName(optimizer);
  if (!savedType.empty() && savedType != type) {
    throw InputError(str(where, "the optimizer state is for \"", savedType,
                         "\", the optimizer is \"", type, "\""));
  }
  // LibTorch's load can fail after it replaced part of the state; keep a copy to roll back.
  const std::string backup = serializeOptimizer(optimizer);
  const auto bytes = saved.contiguous();
  try {
    loadOptimizer(optimizer, reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()),
                  static_cast<size_t>(bytes.numel()));
    checkOptimizerShapes(optimizer);
  } catch (const std::exception& e) {
    optimizer.state().clear();
    loadOptimizer(optimizer, backup.data(), backup.size());
    throw InputError(str(where, "the optimizer state does not fit this \"", type, "\" optimizer (",
                         torchReason(e), ")"));
  }
}

}  // namespace

OptimizerState captureOptimizer(const torch::optim::Optimizer& optimizer) {
  return {bytesToTensor(serializeOptimizer(optimizer)), optimizerTypeName(optimizer)};
}

void restoreOptimizer(torch::optim::Optimizer& optimizer, const TrainingState& state) {
  if (!state.optimizer.defined() || state.optimizer.numel() == 0) {
    TB_LOG(Warning) << prefix(state.path)
                    << "the checkpoint has no optimizer state; the optimizer starts afresh";
    return;
  }
  loadOptimizerState(optimizer, state.optimizer, state.optimizerType, prefix(state.path));
}

void restoreOptimizer(torch::optim::Optimizer& optimizer, const TrainingState& state,
                      const std::string& role) {
  auto it = state.namedOptimizers.find(role);
  if (it == state.namedOptimizers.end()) {
    std::string saved;
    for (const auto& [name, unused] : state.namedOptimizers) saved += " \"" + name + "\"";
    throw InputError(str(prefix(state.path), "the checkpoint has no state for the \"", role,
                         "\" optimizer (it has:", saved.empty() ? " none" : saved, ")"));
  }
  loadOptimizerState(optimizer, it->second.bytes, it->second.type,
                     str(prefix(state.path), "\"", role, "\" optimizer: "));
}

}  // namespace tbench
