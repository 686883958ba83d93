#include "engine/data/formats/NpyFile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>

#include "engine/core/Check.h"
#include "engine/data/formats/ZipArchive.h"

namespace tbench {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr int64_t kMaxHeaderBytes = 1 << 20;
constexpr const char* kHowToSave =
    "save it from Python as a little-endian float32, float64, int64 or uint8 array in C order, "
    "e.g. np.save(path, np.ascontiguousarray(a, dtype='<f4'))";

struct Dtype {
  const char* descr;
  int64_t size;
  torch::ScalarType type;
  const char* name;
};
const Dtype kDtypes[] = {{"<f4", 4, torch::kFloat32, "float32"},
                         {"<f8", 8, torch::kFloat64, "float64"},
                         {"<i8", 8, torch::kInt64, "int64"},
                         {"|u1", 1, torch::kUInt8, "uint8"}};

const Dtype* findDtype(const std::string& descr) {
  // NumPy writes uint8 as "|u1"; "<u1" and ">u1" mean the same for one byte.
  const std::string key = descr == "<u1" || descr == ">u1" ? "|u1" : descr;
  for (const Dtype& d : kDtypes) {
    if (key == d.descr) return &d;
  }
  return nullptr;
}

/// The bytes of one .npy: a file, or an .npz member in memory. `name` is what messages call it.
struct NpyBytes {
  std::string name;
  int64_t size = 0;
  /// Copies `count` bytes from `offset` into `out`; false when they are not all there.
  std::function<bool(int64_t offset, int64_t count, char* out)> read;
};

NpyBytes fileBytes(const std::string& path) {
  auto in = std::make_shared<std::ifstream>(path, std::ios::binary);
  if (!*in) throw InputError(str(path, ": cannot be read (", std::strerror(errno), ")"));
  in->seekg(0, std::ios::end);
  NpyBytes bytes{path, static_cast<int64_t>(in->tellg()), {}};
  bytes.read = [file = std::move(in)](int64_t offset, int64_t count, char* out) {
    file->clear();
    file->seekg(offset);
    return static_cast<bool>(file->read(out, count));
  };
  return bytes;
}

NpyBytes memoryBytes(std::string name, std::shared_ptr<const std::string> data, int64_t size) {
  NpyBytes bytes{std::move(name), size, {}};
  bytes.read = [data](int64_t offset, int64_t count, char* out) {
    if (offset < 0 || count < 0 || offset + count > static_cast<int64_t>(data->size())) {
      return false;
    }
    std::memcpy(out, data->data() + offset, static_cast<size_t>(count));
    return true;
  };
  return bytes;
}

std::string memberList(const ZipArchive& archive) {
  std::string names;
  for (const auto& m : archive.members()) {
    std::string name = m.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    names += (names.empty() ? "" : ", ") + name;
  }
  return names.empty() ? "no arrays" : names;
}

/// The member `location` names, read whole (or its first `limit` bytes, for the header).
NpyBytes memberBytes(const NpyLocation& location, uint64_t limit) {
  const ZipArchive archive(location.file);
  const ZipArchive::Member* member = archive.find(location.member + ".npy");
  if (member == nullptr) member = archive.find(location.member);
  if (member == nullptr) {
    throw InputError(str(location.file, ": no array \"", location.member,
                         "\" in the archive (it holds ", memberList(archive), ")"));
  }
  auto data = std::make_shared<const std::string>(archive.read(*member, limit));
  return memoryBytes(location.file + ":" + location.member, data,
                     static_cast<int64_t>(member->size));
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

size_t skipSpaces(const std::string& text, size_t at) {
  while (at < text.size() && isSpace(text[at])) ++at;
  return at;
}

/// The value of `key` in the header dict text ('...', "...", True, False or (...)), or "" when
/// absent. A scan, not std::regex: libstdc++'s regex recurses once per character matched and
/// overflowed the stack on a header of a few hundred kilobytes (fuzz/crashes/npy_file), and
/// every failed match position restarted it.
std::string dictValue(const std::string& header, const std::string& key) {
  for (size_t at = 0; at < header.size(); ++at) {
    if (header[at] != '\'' && header[at] != '"') continue;
    const size_t keyEnd = at + 1 + key.size();
    if (keyEnd >= header.size() || header.compare(at + 1, key.size(), key) != 0 ||
        (header[keyEnd] != '\'' && header[keyEnd] != '"')) {
      continue;
    }
    size_t value = skipSpaces(header, keyEnd + 1);
    if (value >= header.size() || header[value] != ':') continue;
    value = skipSpaces(header, value + 1);
    if (value >= header.size()) continue;
    const char first = header[value];
    if (first == '\'' || first == '"' || first == '(') {
      // No closing character here means none for any later key either: stop.
      const size_t close = header.find(first == '(' ? ')' : first, value + 1);
      if (close == std::string::npos) return "";
      return header.substr(value, close + 1 - value);
    }
    for (const char* word : {"True", "False"}) {
      if (header.compare(value, std::strlen(word), word) == 0) return word;
    }
  }
  return "";
}

NpyHeader parseHeader(const NpyBytes& bytes) {
  const std::string& path = bytes.name;
  const int64_t size = bytes.size;
  char start[10] = {};
  if (size < 10 || !bytes.read(0, 10, start)) {
    throw InputError(str(path, ": not a .npy file (", size, " bytes, shorter than its preamble)"));
  }
  if (std::memcmp(start, kMagic, 6) != 0) {
    if (std::memcmp(start, "PK\x03\x04", 4) == 0) {
      std::string arrays;
      try {
        arrays = memberList(ZipArchive(path));
      } catch (const InputError&) {
      }
      if (!arrays.empty()) {
        throw InputError(str(path,
                             ": a zip archive (.npz), not a .npy file: name one of its "
                             "arrays as \"",
                             path, ":NAME\" (it holds ", arrays, ")"));
      }
    }
    throw InputError(str(path, ": not a .npy file (bytes 0-5 are not \\x93NUMPY)"));
  }
  const int major = static_cast<unsigned char>(start[6]);
  int64_t headerLength = 0;
  int64_t headerStart = 0;
  if (major == 1) {
    headerLength =
        static_cast<unsigned char>(start[8]) | (static_cast<unsigned char>(start[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    char more[2] = {};
    if (!bytes.read(10, 2, more)) throw InputError(str(path, ": truncated in its preamble"));
    const auto* b = reinterpret_cast<const unsigned char*>(start + 8);
    headerLength = int64_t(b[0]) | (int64_t(b[1]) << 8) |
                   (int64_t(static_cast<unsigned char>(more[0])) << 16) |
                   (int64_t(static_cast<unsigned char>(more[1])) << 24);
    headerStart = 12;
  } else {
    throw InputError(
        str(path, ": unsupported .npy format version ", major, " at byte 6 (1, 2 or 3)"));
  }
  if (headerLength <= 0 || headerLength > kMaxHeaderBytes || headerStart + headerLength > size) {
    throw InputError(str(path, ": header length ", headerLength,
                         " at byte 8 does not fit the file (", size, " bytes)"));
  }
  std::string header(static_cast<size_t>(headerLength), '\0');
  if (!bytes.read(headerStart, headerLength, header.data())) {
    throw InputError(str(path, ": cannot read the header at byte ", headerStart));
  }

  NpyHeader out;
  out.dataOffset = headerStart + headerLength;
  std::string descr = dictValue(header, "descr");
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"')) {
    throw InputError(str(path, ": the header at byte ", headerStart,
                         " has no 'descr' string (a structured array?); ", kHowToSave));
  }
  descr = descr.substr(1, descr.size() - 2);
  const Dtype* dtype = findDtype(descr);
  if (dtype == nullptr) {
    const bool bigEndian = !descr.empty() && descr[0] == '>';
    throw InputError(str(path, ": dtype '", descr, "' is not accepted",
                         bigEndian ? " (big-endian)" : "", "; ", kHowToSave));
  }
  out.descr = dtype->descr;
  out.elementSize = dtype->size;
  const std::string fortran = dictValue(header, "fortran_order");
  if (fortran == "True") {
    throw InputError(str(path, ": the array is in Fortran order; ", kHowToSave));
  }
  if (fortran != "False") {
    throw InputError(str(path, ": the header at byte ", headerStart, " has no 'fortran_order'"));
  }
  const std::string shape = dictValue(header, "shape");
  if (shape.size() < 2 || shape.front() != '(') {
    throw InputError(str(path, ": the header at byte ", headerStart, " has no 'shape' tuple"));
  }
  // "(150, 4)", "(30,)", "()": numbers, each followed by a comma or the end.
  const std::string inner = shape.substr(1, shape.size() - 2);
  const auto unreadable = [&] {
    return InputError(
        str(path, ": cannot read the shape ", shape, " in the header at byte ", headerStart));
  };
  for (size_t at = skipSpaces(inner, 0); at < inner.size();) {
    const size_t digits = at;
    int64_t dim = 0;
    while (at < inner.size() && inner[at] >= '0' && inner[at] <= '9') {
      // No array has a dimension near this; the limit keeps the value from overflowing.
      if (dim > (int64_t{1} << 40)) {
        throw InputError(str(path, ": the shape ", shape, " in the header at byte ", headerStart,
                             " has a dimension over 2^40"));
      }
      dim = dim * 10 + (inner[at++] - '0');
    }
    if (at == digits) throw unreadable();
    // NumPy itself writes at most 64 dimensions (32 before 2.0).
    if (out.shape.size() == 64) {
      throw InputError(
          str(path, ": the shape in the header at byte ", headerStart, " has over 64 dimensions"));
    }
    out.shape.push_back(dim);
    at = skipSpaces(inner, at);
    if (at < inner.size() && inner[at] != ',') throw unreadable();
    at = skipSpaces(inner, at + 1);
  }
  return out;
}

}  // namespace

NpyLocation parseNpyLocation(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const size_t at = lower.rfind(".npz:");
  if (at == std::string::npos) return {path, ""};
  return {path.substr(0, at + 4), path.substr(at + 5)};
}

NpyHeader readNpyHeader(const std::string& path) {
  const NpyLocation location = parseNpyLocation(path);
  if (!location.member.empty()) {
    return parseHeader(memberBytes(location, uint64_t{12} + kMaxHeaderBytes));
  }
  return parseHeader(fileBytes(path));
}

torch::Tensor readNpyFile(const std::string& path, NpyHeader* headerOut) {
  const NpyLocation location = parseNpyLocation(path);
  const NpyBytes bytes = location.member.empty()
                             ? fileBytes(path)
                             : memberBytes(location, std::numeric_limits<uint64_t>::max());
  const NpyHeader header = parseHeader(bytes);
  const std::string& name = bytes.name;
  const int64_t size = bytes.size;
  int64_t count = 1;
  for (int64_t d : header.shape) {
    if (d != 0 && count > (int64_t{1} << 40) / d) {
      throw InputError(str(name, ": shape too large"));
    }
    count *= d;
  }
  const int64_t expected = count * header.elementSize;
  const int64_t present = size - header.dataOffset;
  if (present < expected) {
    throw InputError(str(name, ": truncated: the shape needs ", expected,
                         " bytes of data from byte ", header.dataOffset, ", the file has ",
                         present));
  }
  if (present > expected) {
    throw InputError(str(name, ": ", present - expected,
                         " bytes after the data, which ends at byte ",
                         header.dataOffset + expected));
  }
  const Dtype* dtype = findDtype(header.descr);
  torch::Tensor data = torch::empty(header.shape, torch::TensorOptions().dtype(dtype->type));
  if (expected > 0 &&
      !bytes.read(header.dataOffset, expected, static_cast<char*>(data.data_ptr()))) {
    throw InputError(str(name, ": read error after byte ", header.dataOffset));
  }
  if (dtype->type == torch::kFloat32 || dtype->type == torch::kFloat64) {
    if (!torch::isfinite(data).all().item<bool>()) {
      const int64_t index = torch::logical_not(torch::isfinite(data.reshape({-1})))
                                .nonzero()
                                .index({0, 0})
                                .item<int64_t>();
      throw InputError(str(name, ": element ", index, " (byte ",
                           header.dataOffset + index * header.elementSize, ") is NaN or infinite"));
    }
  }
  if (headerOut != nullptr) *headerOut = header;
  return data;
}

}  // namespace tbench
