#include "engine/checkpoint/Checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <cxxabi.h>
#include <torch/serialize.h>
#include <torch/torch.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "engine/checkpoint/CheckpointDetail.h"
#include "engine/checkpoint/PlainPickle.h"
#include "engine/checkpoint/ZipIntegrity.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/core/TorchCompat.h"

namespace tbench {
namespace {

using checkpoint_detail::prefix;
using checkpoint_detail::shapeString;
using checkpoint_detail::torchReason;

void appendNames(std::ostringstream& out, const char* label,
                 const std::vector<std::string>& names) {
  if (names.empty()) return;
  out << "; " << label << ": ";
  for (size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << names[i];
}

/// The whole file, read straight into the buffer torch::pickle_load takes (a 40 MB checkpoint
/// in ~15 ms; going through readFile's string stream took ~90 ms).
std::vector<char> readBytes(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw InputError(str("cannot open ", path, ": ", std::strerror(errno)));
  std::vector<char> bytes;
  char chunk[1 << 16];
  size_t n = 0;
  if (std::fseek(file, 0, SEEK_END) == 0) {
    const long size = std::ftell(file);
    if (size > 0) bytes.reserve(static_cast<size_t>(size));
    std::rewind(file);
  }
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  const bool failed = std::ferror(file);
  const int err = errno;
  std::fclose(file);
  if (failed) throw InputError(str("cannot read ", path, ": ", std::strerror(err)));
  return bytes;
}

// Reading: every way a foreign or damaged file can fail ends here as an InputError.

[[noreturn]] void notA(const std::string& kind, const std::string& path, const std::string& why) {
  throw InputError(str(path, ": not ", kind, " (", why, ")"));
}

[[noreturn]] void notACheckpoint(const std::string& path, const std::string& why) {
  notA("a Towerbench checkpoint", path, why);
}

// Note [Pickles LibTorch cannot take] (ZipIntegrity.cpp), continued: LibTorch 1.13 builds a
// tensor from the pickle's sizes, strides and offset without checking that they stay inside its
// storage, and the first read (contiguous(), a copy) goes past it: a crash (found by
// fuzz_checkpoint_file). Every tensor of the pickle is checked here, containers walked without
// recursion.
void checkTensorsFitStorage(const std::string& path, const c10::IValue& root,
                            const std::string& kind) {
  std::vector<const c10::IValue*> pending{&root};
  while (!pending.empty()) {
    const c10::IValue& value = *pending.back();
    pending.pop_back();
    if (value.isGenericDict()) {
      for (const auto& entry : value.toGenericDict()) pending.push_back(&entry.value());
    } else if (value.isList()) {
      for (const c10::IValue& item : value.toListRef()) pending.push_back(&item);
    } else if (value.isTuple()) {
      for (const c10::IValue& item : value.toTupleRef().elements()) pending.push_back(&item);
    } else if (value.isTensor() && value.toTensor().defined()) {
      const at::Tensor& tensor = value.toTensor();
      bool fits = tensor.storage_offset() >= 0;
      int64_t last = tensor.storage_offset();  // the last element's index in the storage
      const bool empty = tensor.numel() == 0;
      for (int64_t d = 0; fits && !empty && d < tensor.dim(); ++d) {
        int64_t step = 0;
        fits = tensor.stride(d) >= 0 &&
               !__builtin_mul_overflow(tensor.size(d) - 1, tensor.stride(d), &step) &&
               !__builtin_add_overflow(last, step, &last);
      }
      int64_t bytes = 0;
      fits =
          fits && (empty || (!__builtin_add_overflow(last, 1, &bytes) &&
                             !__builtin_mul_overflow(bytes, int64_t(tensor.itemsize()), &bytes) &&
                             bytes <= static_cast<int64_t>(tensor.storage().nbytes())));
      if (!fits) {
        notA(kind, path,
             tbench::str("a tensor of shape ", tensor.sizes(), ", strides ", tensor.strides(),
                         " and offset ", tensor.storage_offset(), " reaches past its storage of ",
                         tensor.storage().nbytes(), " bytes"));
      }
    }
  }
}

const c10::IValue& requireKey(const std::string& path, const c10::impl::GenericDict& dict,
                              const std::string& key) {
  auto it = dict.find(c10::IValue(key));
  if (it == dict.end()) notACheckpoint(path, str("no \"", key, "\" key"));
  return it->value();
}

[[noreturn]] void wrongType(const std::string& path, const std::string& key,
                            const c10::IValue& value, const char* expected) {
  notACheckpoint(path, str("\"", key, "\" is a ", value.tagKind(), ", expected ", expected));
}

int64_t requireInt(const std::string& path, const c10::impl::GenericDict& dict,
                   const std::string& key) {
  const auto& value = requireKey(path, dict, key);
  if (!value.isInt()) wrongType(path, key, value, "an int");
  return value.toInt();
}

std::string requireString(const std::string& path, const c10::impl::GenericDict& dict,
                          const std::string& key) {
  const auto& value = requireKey(path, dict, key);
  if (!value.isString()) wrongType(path, key, value, "a str");
  return value.toStringRef();
}

torch::Tensor requireBytes(const std::string& path, const c10::impl::GenericDict& dict,
                           const std::string& key) {
  const auto& value = requireKey(path, dict, key);
  if (value.isNone()) return torch::empty({0}, torch::kUInt8);
  if (!value.isTensor()) wrongType(path, key, value, "a uint8 tensor");
  const auto tensor = value.toTensor();
  if (tensor.scalar_type() != torch::kUInt8 || tensor.dim() != 1) {
    notACheckpoint(
        path, str("\"", key, "\" is a ", c10::toString(tensor.scalar_type()), " tensor of shape ",
                  shapeString(tensor), ", expected a 1-d uint8 tensor"));
  }
  return tensor.contiguous();
}

/// "optimizers" {role: bytes} and "optimizer_types" {role: str}, both or neither.
void readNamedOptimizers(const std::string& path, const c10::impl::GenericDict& dict,
                         TrainingState& state) {
  auto it = dict.find(c10::IValue(std::string("optimizers")));
  if (it == dict.end()) return;
  if (!it->value().isGenericDict()) wrongType(path, "optimizers", it->value(), "a dict");
  const auto& types = requireKey(path, dict, "optimizer_types");
  if (!types.isGenericDict()) wrongType(path, "optimizer_types", types, "a dict");
  const auto typeDict = types.toGenericDict();
  for (const auto& entry : it->value().toGenericDict()) {
    if (!entry.key().isString()) notACheckpoint(path, "\"optimizers\" has a key that is no str");
    const std::string role = entry.key().toStringRef();
    c10::impl::GenericDict one(c10::StringType::get(), c10::AnyType::get());
    one.insert("optimizers." + role, entry.value());
    OptimizerState optimizer;
    optimizer.bytes = requireBytes(path, one, "optimizers." + role);
    auto type = typeDict.find(c10::IValue(role));
    if (type == typeDict.end() || !type->value().isString()) {
      notACheckpoint(path, str("\"optimizer_types\" has no type for \"", role, "\""));
    }
    optimizer.type = type->value().toStringRef();
    state.namedOptimizers[role] = std::move(optimizer);
  }
}

TrainingState stateFromPickleIn(const std::string& path, const c10::IValue& root) {
  if (!root.isGenericDict()) {
    notACheckpoint(path, str("the pickle holds a ", root.tagKind(), ", not a dict"));
  }
  const auto dict = root.toGenericDict();
  if (dict.find(c10::IValue(std::string("format"))) == dict.end()) {
    notACheckpoint(path, "no \"format\" key");
  }
  const std::string format = requireString(path, dict, "format");
  if (format != kCheckpointFormat) {
    notACheckpoint(path, str("format \"", format, "\", expected \"", kCheckpointFormat, "\""));
  }
  TrainingState state;
  state.path = path;
  const auto& model = requireKey(path, dict, "model");
  if (!model.isGenericDict()) wrongType(path, "model", model, "a dict of tensors");
  for (const auto& entry : model.toGenericDict()) {
    if (!entry.key().isString() || !entry.value().isTensor() ||
        !entry.value().toTensor().defined()) {
      notACheckpoint(path, str("\"model\" has an entry ", entry.key().tagKind(), " -> ",
                               entry.value().tagKind(), ", expected str -> tensor"));
    }
    state.model.emplace_back(entry.key().toStringRef(), entry.value().toTensor());
  }
  state.optimizer = requireBytes(path, dict, "optimizer");
  state.optimizerType = requireString(path, dict, "optimizer_type");
  state.globalStep = requireInt(path, dict, "global_step");
  state.epochNum = requireInt(path, dict, "epoch_num");
  state.rngState = requireBytes(path, dict, "rng_state");
  state.project = requireString(path, dict, "project");
  if (dict.find(c10::IValue(std::string("data"))) != dict.end()) {
    state.data = requireString(path, dict, "data");
  }
  // Older checkpoints have no "epoch_step": resuming then derives it (see TrainConfig.cpp).
  if (dict.find(c10::IValue(std::string("epoch_step"))) != dict.end()) {
    state.epochStep = requireInt(path, dict, "epoch_step");
  }
  // Optional, like "epoch_step": {str: float} and {str: str}.
  if (auto it = dict.find(c10::IValue(std::string("hyper_params"))); it != dict.end()) {
    if (!it->value().isGenericDict()) wrongType(path, "hyper_params", it->value(), "a dict");
    for (const auto& entry : it->value().toGenericDict()) {
      const c10::IValue& value = entry.value();
      const bool scalar = value.isDouble() || (value.isTensor() && value.toTensor().defined() &&
                                               value.toTensor().numel() == 1);
      if (!entry.key().isString() || !scalar) {
        notACheckpoint(path, "\"hyper_params\" is not a dict of str -> scalar");
      }
      state.hyperParams[entry.key().toStringRef()] =
          value.isDouble() ? value.toDouble() : value.toTensor().item<double>();
    }
  }
  if (auto it = dict.find(c10::IValue(std::string("callbacks"))); it != dict.end()) {
    if (!it->value().isGenericDict()) wrongType(path, "callbacks", it->value(), "a dict");
    for (const auto& entry : it->value().toGenericDict()) {
      if (!entry.key().isString() || !entry.value().isString()) {
        notACheckpoint(path, "\"callbacks\" is not a dict of str -> str");
      }
      state.callbackStates[entry.key().toStringRef()] = entry.value().toStringRef();
    }
  }
  readNamedOptimizers(path, dict, state);
  if (auto it = dict.find(c10::IValue(std::string("topology"))); it != dict.end()) {
    if (!it->value().isGenericDict()) wrongType(path, "topology", it->value(), "a dict");
    for (const auto& entry : it->value().toGenericDict()) {
      if (!entry.key().isString() || !entry.value().isInt()) {
        notACheckpoint(path, "\"topology\" is not a dict of str -> int");
      }
      state.topology[entry.key().toStringRef()] = entry.value().toInt();
    }
  }
  if (auto it = dict.find(c10::IValue(std::string("cuda_rng_states"))); it != dict.end()) {
    if (!it->value().isGenericDict()) wrongType(path, "cuda_rng_states", it->value(), "a dict");
    for (const auto& entry : it->value().toGenericDict()) {
      if (!entry.key().isString() || entry.key().toStringRef().rfind("cuda:", 0) != 0) {
        notACheckpoint(path, "\"cuda_rng_states\" has a key that is no \"cuda:N\"");
      }
      const std::string device = entry.key().toStringRef();
      c10::impl::GenericDict one(c10::StringType::get(), c10::AnyType::get());
      one.insert("cuda_rng_states." + device, entry.value());
      state.cudaRngStates[device] = requireBytes(path, one, "cuda_rng_states." + device);
    }
  }
  if (auto it = dict.find(c10::IValue(std::string("trainer_state"))); it != dict.end()) {
    if (!it->value().isGenericDict()) wrongType(path, "trainer_state", it->value(), "a dict");
    for (const auto& entry : it->value().toGenericDict()) {
      if (!entry.key().isString() || !entry.value().isTensor()) {
        notACheckpoint(path, "\"trainer_state\" is not a dict of str -> tensor");
      }
      state.trainerState[entry.key().toStringRef()] = entry.value().toTensor();
    }
  }
  if (state.globalStep < 0 || state.epochNum < 0) {
    notACheckpoint(path, str("negative counters: global_step ", state.globalStep, ", epoch_num ",
                             state.epochNum));
  }
  return state;
}

}  // namespace

TrainingState captureState(torch::nn::Module& module, torch::optim::Optimizer* optimizer,
                           int64_t globalStep, int64_t epochNum, const std::string& project) {
  torch::NoGradGuard noGrad;
  TrainingState state;
  auto copy = [](const torch::Tensor& t) {
    // Contiguous whatever the tower's memory format (channels-last weights): what torch.load
    // users and the exports expect.
    return t.detach().to(torch::kCPU, /*non_blocking=*/false, /*copy=*/true).contiguous();
  };
  for (const auto& item : module.named_parameters()) {
    state.model.emplace_back(item.key(), copy(item.value()));
  }
  for (const auto& item : module.named_buffers()) {
    if (item.value().defined()) state.model.emplace_back(item.key(), copy(item.value()));
  }
  if (optimizer) {
    OptimizerState captured = captureOptimizer(*optimizer);
    state.optimizer = captured.bytes;
    state.optimizerType = captured.type;
  } else {
    state.optimizer = torch::empty({0}, torch::kUInt8);
  }
  state.globalStep = globalStep;
  state.epochNum = epochNum;
  {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    state.rngState = generator.get_state();
  }
  state.cudaRngStates = checkpoint_detail::captureCudaRngStates();
  state.project = project;
  return state;
}

void writeCheckpointFile(const std::string& path, const TrainingState& state) {
  std::vector<char> bytes;
  try {
    c10::Dict<std::string, torch::Tensor> model;
    for (const auto& [name, tensor] : state.model) {
      TB_CHECK(tensor.defined(), "undefined tensor \"", name, "\" in the state for ", path);
      model.insert(name, tensor.device().is_cpu() ? tensor : tensor.to(torch::kCPU));
    }
    // Note: a GenericDict(str, Any) is what Python's torch.load reads back as a plain dict
    // (STACK-NOTES, Interoperability); c10::Dict<std::string, IValue> does not exist.
    c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
    dict.insert("format", std::string(kCheckpointFormat));
    dict.insert("model", model);
    dict.insert("optimizer",
                state.optimizer.defined() ? state.optimizer : torch::empty({0}, torch::kUInt8));
    dict.insert("optimizer_type", state.optimizerType);
    dict.insert("global_step", state.globalStep);
    dict.insert("epoch_num", state.epochNum);
    dict.insert("rng_state",
                state.rngState.defined() ? state.rngState : torch::empty({0}, torch::kUInt8));
    dict.insert("project", state.project);
    dict.insert("epoch_step", state.epochStep);
    if (!state.topology.empty()) {
      c10::impl::GenericDict topology(c10::StringType::get(), c10::IntType::get());
      for (const auto& [name, value] : state.topology) topology.insert(name, value);
      dict.insert("topology", topology);
    }
    if (!state.cudaRngStates.empty()) {
      c10::Dict<std::string, torch::Tensor> cuda;
      for (const auto& [device, bytes] : state.cudaRngStates) cuda.insert(device, bytes);
      dict.insert("cuda_rng_states", cuda);
    }
    if (!state.data.empty()) dict.insert("data", state.data);
    // 0-dim float64 tensors, not Python floats: torch 1.13's weights_only unpickler has no
    // BINFLOAT opcode (newer ones do), and a tensor reads the same everywhere.
    c10::Dict<std::string, torch::Tensor> hyperParams;
    for (const auto& [name, value] : state.hyperParams) {
      hyperParams.insert(name, torch::scalar_tensor(value, torch::kFloat64));
    }
    dict.insert("hyper_params", hyperParams);
    c10::impl::GenericDict callbacks(c10::StringType::get(), c10::StringType::get());
    for (const auto& [name, text] : state.callbackStates) callbacks.insert(name, text);
    dict.insert("callbacks", callbacks);
    if (!state.namedOptimizers.empty()) {
      c10::Dict<std::string, torch::Tensor> optimizers;
      c10::impl::GenericDict types(c10::StringType::get(), c10::StringType::get());
      for (const auto& [role, optimizer] : state.namedOptimizers) {
        optimizers.insert(role, optimizer.bytes);
        types.insert(role, optimizer.type);
      }
      dict.insert("optimizers", optimizers);
      dict.insert("optimizer_types", types);
    }
    if (!state.trainerState.empty()) {
      c10::Dict<std::string, torch::Tensor> extra;
      for (const auto& [name, tensor] : state.trainerState) {
        extra.insert(name, tensor.device().is_cpu() ? tensor : tensor.to(torch::kCPU));
      }
      dict.insert("trainer_state", extra);
    }
    bytes = plainPickle(dict);
  } catch (const c10::Error& e) {
    throw std::runtime_error(
        str("cannot serialize the checkpoint for ", path, ": ", torchReason(e)));
  }
  writeFileAtomically(path, std::string(bytes.begin(), bytes.end()));
}

c10::IValue readTorchPickle(const std::string& path, const std::vector<char>& bytes,
                            const std::string& kind) {
  if (bytes.empty()) throw InputError(str(path, ": empty file, not ", kind));
  // torch::pickle_save and torch.save write a zip archive; anything else (a JSON file, a legacy
  // torch.save pickle, random bytes) is rejected before LibTorch's reader sees it.
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "PK\x03\x04", 4) != 0) {
    notA(kind, path, "not a zip archive written by torch::pickle_save or torch.save");
  }
  std::optional<std::vector<ZipRecord>> records;
  try {
    records = verifyZipArchive(bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    throw InputError(
        str(path, ": truncated or corrupt (", e.what(), "): not ", kind, " that can be read"));
  }
  // Note [Checkpoint integrity]: what LibTorch would refuse leaking, or allocate for, is refused.
  if (records) {
    const std::string problem = torchArchiveProblem(bytes.data(), *records);
    if (!problem.empty()) notA(kind, path, problem);
  }
  c10::IValue root;
  try {
    root = torch::pickle_load(bytes);
  } catch (const std::exception& e) {
    // The archive is intact (Note [Checkpoint integrity]), so this is a zip or a pickle
    // LibTorch cannot read, e.g. a torch.save pickle using opcodes LibTorch does not know.
    notA(kind, path, str("LibTorch cannot unpickle it: ", torchReason(e)));
  }
  checkTensorsFitStorage(path, root, kind);
  return root;
}

std::vector<char> readFileBytes(const std::string& path) { return readBytes(path); }

bool matchesIgnoreList(const std::string& name, const std::vector<std::string>& ignore) {
  for (const auto& entry : ignore) {
    if (name == entry) return true;
    if (!entry.empty() && entry.back() == '.' && name.compare(0, entry.size(), entry) == 0) {
      return true;
    }
  }
  return false;
}

TrainingState readCheckpointFile(const std::string& path) {
  const std::vector<char> bytes = readBytes(path);
  return stateFromPickle(path, readTorchPickle(path, bytes, "a Towerbench checkpoint"));
}

TrainingState stateFromPickle(const std::string& path, const c10::IValue& root) {
  return stateFromPickleIn(path, root);
}

std::string RestoreReport::toString() const {
  std::ostringstream out;
  out << "restored " << loaded.size() << " tensors, " << missing.size() << " missing, "
      << unexpected.size() << " unexpected, " << shapeMismatch.size() << " of another shape, "
      << ignored.size() << " ignored";
  appendNames(out, "missing from the checkpoint", missing);
  appendNames(out, "unexpected in the checkpoint", unexpected);
  appendNames(out, "shape mismatch", shapeMismatch);
  appendNames(out, "ignored", ignored);
  return out.str();
}

RestoreReport restoreModel(torch::nn::Module& module, const TrainingState& state,
                           const std::vector<std::string>& ignore) {
  torch::NoGradGuard noGrad;
  std::map<std::string, torch::Tensor> saved(state.model.begin(), state.model.end());
  std::vector<std::pair<std::string, torch::Tensor>> targets;
  for (const auto& item : module.named_parameters()) targets.emplace_back(item.key(), item.value());
  for (const auto& item : module.named_buffers()) {
    if (item.value().defined()) targets.emplace_back(item.key(), item.value());
  }
  RestoreReport report;
  std::set<std::string> seen;
  for (auto& [name, target] : targets) {
    seen.insert(name);
    if (matchesIgnoreList(name, ignore)) {
      report.ignored.push_back(name);
      continue;
    }
    auto it = saved.find(name);
    if (it == saved.end()) {
      report.missing.push_back(name);
    } else if (it->second.sizes() != target.sizes()) {
      report.shapeMismatch.push_back(
          str(name, ": checkpoint ", shapeString(it->second), " vs model ", shapeString(target)));
    } else {
      target.copy_(it->second);
      report.loaded.push_back(name);
    }
  }
  for (const auto& [name, tensor] : state.model) {
    if (seen.count(name)) continue;
    if (matchesIgnoreList(name, ignore)) {
      report.ignored.push_back(name);
    } else {
      report.unexpected.push_back(name);
    }
  }
  return report;
}

}  // namespace tbench
