#include "engine/checkpoint/WeightsFile.h"

#include <torch/csrc/jit/serialization/import.h>
#include <torch/torch.h>

#include <cstring>
#include <filesystem>
#include <optional>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/checkpoint/TorchSaveFile.h"
#include "engine/checkpoint/ZipIntegrity.h"
#include "engine/core/Check.h"

namespace tbench {

namespace {

namespace fs = std::filesystem;

const char* const kKinds =
    "a Towerbench checkpoint or run directory, a PyTorch state_dict saved with torch.save, a "
    ".safetensors file or a TorchScript module";

/// The tensors of a dict whose values are tensors (other values skipped); empty when none is.
NamedTensorList tensorsOf(const PickleValue& value) {
  NamedTensorList out;
  if (value.kind != PickleValue::Kind::Dict) return out;
  for (const auto& [key, v] : value.entries) {
    if (key->kind == PickleValue::Kind::String && v->kind == PickleValue::Kind::Tensor) {
      out.emplace_back(key->text, v->tensor);
    }
  }
  return out;
}

/// The value under string `key` of dict `value`, or null.
const PickleValue* entry(const PickleValue& value, const std::string& key) {
  if (value.kind != PickleValue::Kind::Dict) return nullptr;
  for (const auto& [k, v] : value.entries) {
    if (k->kind == PickleValue::Kind::String && k->text == key) return v.get();
  }
  return nullptr;
}

NamedWeights fromStateDict(const std::string& path, const PickleValue& root) {
  NamedWeights w;
  w.path = path;
  w.tensors = tensorsOf(root);
  if (!w.tensors.empty()) {
    w.source = "PyTorch state_dict";
    return w;
  }
  if (root.kind == PickleValue::Kind::Dict) {
    for (const char* key :
         {"state_dict", "model_state_dict", "model", "module", "net", "network"}) {
      const PickleValue* nested = entry(root, key);
      if (nested == nullptr) continue;
      w.tensors = tensorsOf(*nested);
      if (!w.tensors.empty()) {
        w.source = str("PyTorch state_dict (under \"", key, "\")");
        return w;
      }
    }
    std::string keys;
    for (const auto& [k, v] : root.entries) {
      if (keys.size() > 200) break;
      keys += (keys.empty() ? "" : ", ") + (k->kind == PickleValue::Kind::String ? k->text : "?");
    }
    throw InputError(str(path,
                         ": a torch.save dict without tensors, at its top or under state_dict, "
                         "model_state_dict, model, module, net or network (its keys: ",
                         keys.empty() ? "none" : keys, ")"));
  }
  throw InputError(str(
      path, ": torch.save holds ",
      root.kind == PickleValue::Kind::Opaque ? "an object of " + root.text : std::string("no dict"),
      ", not a state_dict (a dict of tensors)"));
}

NamedWeights fromTorchScript(const std::string& path) {
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const std::exception& e) {
    throw InputError(str(path, ": a TorchScript archive torch::jit::load cannot read (",
                         std::string(e.what()).substr(0, std::string(e.what()).find('\n')), ")"));
  }
  NamedWeights w;
  w.path = path;
  w.source = "TorchScript module";
  for (const auto& p : module.named_parameters()) w.tensors.emplace_back(p.name, p.value.detach());
  for (const auto& b : module.named_buffers()) {
    if (b.value.defined()) w.tensors.emplace_back(b.name, b.value);
  }
  return w;
}

}  // namespace

NamedWeights readWeightsFile(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const std::string latest = latestCheckpoint(path);
    if (latest.empty()) {
      throw InputError(str(path, ": a directory without a checkpoint (init takes ", kKinds, ")"));
    }
    NamedWeights w = readWeightsFile(latest);
    w.source += str(", the latest of run ", fs::path(path).filename().string());
    return w;
  }
  if (!fs::exists(path, ec)) throw InputError(str(path, ": no such file"));
  const std::vector<char> bytes = readFileBytes(path);
  if (looksLikeSafetensors(bytes.data(), bytes.size())) {
    NamedWeights w;
    w.path = path;
    w.source = "safetensors";
    w.tensors = readSafetensors(bytes.data(), bytes.size(), path);
    return w;
  }
  if (bytes.size() < 4 || std::memcmp(bytes.data(), "PK\x03\x04", 4) != 0) {
    throw InputError(str(path, ": not a weights file: init takes ", kKinds));
  }
  // A TorchScript archive holds code/ and constants.pkl beside its data.pkl; a torch.save one
  // does not.
  std::optional<std::vector<ZipRecord>> records;
  try {
    records = verifyZipArchive(bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    throw InputError(str(path, ": truncated or corrupt file (", e.what(), ")"));
  }
  if (records) {
    for (const ZipRecord& r : *records) {
      if (r.name.size() >= 14 && r.name.compare(r.name.size() - 14, 14, "/constants.pkl") == 0) {
        return fromTorchScript(path);
      }
    }
  }
  if (!records) {
    throw InputError(str(path, ": a zip64 archive (over 4 GiB), which init does not read"));
  }
  const PickleValuePtr root = readTorchSave(path, bytes, *records);
  if (const PickleValue* format = entry(*root, "format");
      format != nullptr && format->kind == PickleValue::Kind::String) {
    // A Towerbench checkpoint: its model, read as resume reads it.
    const TrainingState state = readCheckpointFile(path);
    NamedWeights w;
    w.path = path;
    w.source = str("Towerbench checkpoint (global step ", state.globalStep, ")");
    w.tensors.assign(state.model.begin(), state.model.end());
    return w;
  }
  return fromStateDict(path, *root);
}

}  // namespace tbench
