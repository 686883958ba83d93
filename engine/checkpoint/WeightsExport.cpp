#include "engine/checkpoint/WeightsExport.h"

#include <torch/serialize.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/checkpoint/PlainPickle.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"

namespace tbench {
namespace {

const char* safetensorsDtype(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat64:
      return "F64";
    case torch::kFloat32:
      return "F32";
    case torch::kFloat16:
      return "F16";
    case torch::kBFloat16:
      return "BF16";
    case torch::kInt64:
      return "I64";
    case torch::kInt32:
      return "I32";
    case torch::kInt16:
      return "I16";
    case torch::kInt8:
      return "I8";
    case torch::kUInt8:
      return "U8";
    case torch::kBool:
      return "BOOL";
    default:
      return nullptr;
  }
}

}  // namespace

std::string weightsToPt(const TrainingState& state) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& [name, tensor] : state.model) dict.insert(name, tensor);
  const std::vector<char> bytes = plainPickle(dict);
  return std::string(bytes.begin(), bytes.end());
}

std::string weightsToSafetensors(const TrainingState& state) {
  // The byte buffer holds the tensors in the header's name order (nlohmann::json keeps object
  // keys sorted), so offsets are contiguous and follow the header.
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (const auto& [name, tensor] : state.model) {
    if (name == "__metadata__") {
      throw InputError(str(state.path, ": a tensor named \"__metadata__\" cannot be exported"));
    }
    if (!safetensorsDtype(tensor.scalar_type())) {
      throw InputError(str(state.path, ": tensor \"", name, "\" has dtype ",
                           c10::toString(tensor.scalar_type()), ", which safetensors cannot hold"));
    }
    tensors.emplace_back(name, tensor.to(torch::kCPU).contiguous());
  }
  std::sort(tensors.begin(), tensors.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    const size_t bytes = tensor.numel() * tensor.element_size();
    header[name] = {{"dtype", safetensorsDtype(tensor.scalar_type())},
                    {"shape", tensor.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  header["__metadata__"] = {{"format", "pt"},
                            {"source", "towerbench"},
                            {"global_step", std::to_string(state.globalStep)},
                            {"epoch_num", std::to_string(state.epochNum)}};
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');

  std::string out;
  out.reserve(8 + json.size() + offset);
  uint64_t length = json.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += json;
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian");
  for (const auto& [name, tensor] : tensors) {
    out.append(static_cast<const char*>(tensor.data_ptr()), tensor.numel() * tensor.element_size());
  }
  return out;
}

void exportWeights(const std::string& checkpointPath, const std::string& format,
                   const std::string& outPath) {
  if (format != "pt" && format != "safetensors") {
    throw InputError(
        str("unknown export format \"", format, "\" (expected \"pt\" or \"safetensors\")"));
  }
  const TrainingState state = readCheckpointFile(checkpointPath);
  writeFileAtomically(outPath, format == "pt" ? weightsToPt(state) : weightsToSafetensors(state));
}

}  // namespace tbench
