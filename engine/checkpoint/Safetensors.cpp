#include "engine/checkpoint/Safetensors.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/core/Check.h"

namespace tbench {

namespace {

using nlohmann::json;

constexpr uint64_t kMaxHeader = 100ull << 20;  // the format's own limit (100 MB)

struct DtypeInfo {
  const char* name;
  torch::ScalarType type;
  size_t bytes;
};

const std::vector<DtypeInfo>& dtypes() {
  static const std::vector<DtypeInfo> all = {
      {"F64", torch::kFloat64, 8},   {"F32", torch::kFloat32, 4}, {"F16", torch::kFloat16, 2},
      {"BF16", torch::kBFloat16, 2}, {"I64", torch::kInt64, 8},   {"I32", torch::kInt32, 4},
      {"I16", torch::kInt16, 2},     {"I8", torch::kInt8, 1},     {"U8", torch::kUInt8, 1},
      {"BOOL", torch::kBool, 1}};
  return all;
}

uint64_t headerLength(const char* bytes) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  return n;
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InputError(str(path, ": not a readable safetensors file: ", why));
}

}  // namespace

bool looksLikeSafetensors(const char* bytes, size_t size) {
  if (size < 10) return false;
  const uint64_t n = headerLength(bytes);
  if (n < 2 || n > size - 8 || n > kMaxHeader) return false;
  return bytes[8] == '{';
}

NamedTensorList readSafetensors(const char* bytes, size_t size, const std::string& path) {
  if (size < 8) refuse(path, str("only ", size, " bytes, less than the 8-byte header length"));
  const uint64_t n = headerLength(bytes);
  if (n > size - 8 || n > kMaxHeader) {
    refuse(path, str("the header says ", n, " bytes, the file has ", size - 8, " after it"));
  }
  json header;
  try {
    header = json::parse(bytes + 8, bytes + 8 + n);
  } catch (const json::exception& e) {
    refuse(path, str("its header is not JSON (", e.what(), ")"));
  }
  if (!header.is_object()) refuse(path, "its header is not a JSON object");
  const char* data = bytes + 8 + n;
  const uint64_t dataSize = size - 8 - n;
  struct Entry {
    std::string name;
    uint64_t begin, end;
    torch::ScalarType type;
    std::vector<int64_t> shape;
  };
  std::vector<Entry> entries;
  for (const auto& item : header.items()) {
    const std::string name = item.key();  // a copy, not a structured binding: lambdas take it
    const json& info = item.value();
    if (name == "__metadata__") {
      if (!info.is_object()) refuse(path, "__metadata__ is not an object");
      continue;
    }
    const auto where = [&](const std::string& why) {
      refuse(path, str("tensor \"", name, "\": ", why));
    };
    if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") ||
        !info.contains("data_offsets")) {
      where("not {\"dtype\", \"shape\", \"data_offsets\"}");
    }
    const json& dtype = info["dtype"];
    const auto known = std::find_if(dtypes().begin(), dtypes().end(), [&](const DtypeInfo& d) {
      return dtype.is_string() && dtype.get<std::string>() == d.name;
    });
    if (known == dtypes().end()) where(str("dtype ", dtype.dump(), " is not one this reads"));
    const json& shape = info["shape"];
    if (!shape.is_array()) where("shape is not a list");
    Entry e{name, 0, 0, known->type, {}};
    uint64_t count = 1;
    for (const json& d : shape) {
      if (!d.is_number_unsigned()) where(str("shape ", shape.dump(), " is not of sizes >= 0"));
      const uint64_t size = d.get<uint64_t>();
      if (size != 0 && count > std::numeric_limits<uint64_t>::max() / 16 / size) {
        where(str("shape ", shape.dump(), " is too large"));
      }
      count *= size;
      e.shape.push_back(static_cast<int64_t>(size));
    }
    const json& offsets = info["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned()) {
      where("data_offsets is not [begin, end]");
    }
    e.begin = offsets[0].get<uint64_t>();
    e.end = offsets[1].get<uint64_t>();
    if (e.begin > e.end || e.end > dataSize) {
      where(str("bytes [", e.begin, ", ", e.end, ") outside the file's ", dataSize,
                " bytes of data"));
    }
    if (e.end - e.begin != count * known->bytes) {
      where(str(e.end - e.begin, " bytes for shape ", shape.dump(), " of ", known->name, " (",
                count * known->bytes, " expected)"));
    }
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  NamedTensorList out;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (i > 0 && e.begin < entries[i - 1].end && e.end > e.begin) {
      refuse(path, str("tensors \"", entries[i - 1].name, "\" and \"", e.name, "\" overlap"));
    }
    torch::Tensor t = torch::empty(e.shape, torch::TensorOptions().dtype(e.type));
    if (e.end > e.begin) std::memcpy(t.data_ptr(), data + e.begin, e.end - e.begin);
    out.emplace_back(e.name, t);
  }
  return out;
}

const char* safetensorsDtype(torch::ScalarType type) {
  for (const DtypeInfo& d : dtypes()) {
    if (d.type == type) return d.name;
  }
  return nullptr;
}

std::string writeSafetensors(NamedTensorList tensors,
                             const std::vector<std::pair<std::string, std::string>>& metadata,
                             const std::string& path) {
  // The byte buffer holds the tensors in the header's name order (nlohmann::json keeps object
  // keys sorted), so offsets are contiguous and follow the header.
  for (auto& [name, tensor] : tensors) {
    if (name == "__metadata__") {
      throw InputError(str(path, ": a tensor named \"__metadata__\" cannot be exported"));
    }
    if (!safetensorsDtype(tensor.scalar_type())) {
      throw InputError(str(path, ": tensor \"", name, "\" has dtype ",
                           c10::toString(tensor.scalar_type()), ", which safetensors cannot hold"));
    }
    tensor = tensor.detach().to(torch::kCPU).contiguous();
  }
  std::sort(tensors.begin(), tensors.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  json header = json::object();
  size_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    const size_t bytes = tensor.numel() * tensor.element_size();
    header[name] = {{"dtype", safetensorsDtype(tensor.scalar_type())},
                    {"shape", tensor.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  header["__metadata__"] = json::object();
  for (const auto& [key, value] : metadata) header["__metadata__"][key] = value;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data aligned to 8 bytes

  std::string out;
  out.reserve(8 + text.size() + offset);
  const uint64_t length = text.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += text;
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little-endian");
  for (const auto& [name, tensor] : tensors) {
    out.append(static_cast<const char*>(tensor.data_ptr()), tensor.numel() * tensor.element_size());
  }
  return out;
}

}  // namespace tbench
