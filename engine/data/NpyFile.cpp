#include "engine/data/NpyFile.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>

#include "engine/core/Check.h"

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

std::ifstream openFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str(path, ": cannot be read (", std::strerror(errno), ")"));
  return in;
}

int64_t fileSize(std::ifstream& in) {
  in.seekg(0, std::ios::end);
  const int64_t size = static_cast<int64_t>(in.tellg());
  in.seekg(0, std::ios::beg);
  return size;
}

/// The value of `key` in the header dict text, or "" when absent.
std::string dictValue(const std::string& header, const std::string& key) {
  const std::regex pattern("['\"]" + key +
                           "['\"]\\s*:\\s*('[^']*'|\"[^\"]*\"|True|False|\\([^)]*\\))");
  std::smatch match;
  return std::regex_search(header, match, pattern) ? match[1].str() : "";
}

NpyHeader parseHeader(const std::string& path, std::ifstream& in, int64_t size) {
  char start[10] = {};
  if (size < 10 || !in.read(start, 10)) {
    throw InputError(str(path, ": not a .npy file (", size, " bytes, shorter than its preamble)"));
  }
  if (std::memcmp(start, kMagic, 6) != 0) {
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
    if (!in.read(more, 2)) throw InputError(str(path, ": truncated in its preamble"));
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
  in.read(header.data(), headerLength);

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
  const std::regex number("\\s*([0-9]+)\\s*(,|$)");
  std::string inner = shape.substr(1, shape.size() - 2);
  std::smatch match;
  while (std::regex_search(inner, match, number)) {
    if (match.position(0) != 0) break;
    out.shape.push_back(std::stoll(match[1].str()));
    inner = match.suffix().str();
  }
  if (inner.find_first_not_of(" \t") != std::string::npos) {
    throw InputError(
        str(path, ": cannot read the shape ", shape, " in the header at byte ", headerStart));
  }
  return out;
}

}  // namespace

NpyHeader readNpyHeader(const std::string& path) {
  std::ifstream in = openFile(path);
  const int64_t size = fileSize(in);
  return parseHeader(path, in, size);
}

torch::Tensor readNpyFile(const std::string& path, NpyHeader* headerOut) {
  std::ifstream in = openFile(path);
  const int64_t size = fileSize(in);
  const NpyHeader header = parseHeader(path, in, size);
  int64_t count = 1;
  for (int64_t d : header.shape) {
    if (d != 0 && count > (int64_t{1} << 40) / d) {
      throw InputError(str(path, ": shape too large"));
    }
    count *= d;
  }
  const int64_t expected = count * header.elementSize;
  const int64_t present = size - header.dataOffset;
  if (present < expected) {
    throw InputError(str(path, ": truncated: the shape needs ", expected,
                         " bytes of data from byte ", header.dataOffset, ", the file has ",
                         present));
  }
  if (present > expected) {
    throw InputError(str(path, ": ", present - expected,
                         " bytes after the data, which ends at byte ",
                         header.dataOffset + expected));
  }
  const Dtype* dtype = findDtype(header.descr);
  torch::Tensor data = torch::empty(header.shape, torch::TensorOptions().dtype(dtype->type));
  in.seekg(header.dataOffset);
  if (expected > 0 && !in.read(static_cast<char*>(data.data_ptr()), expected)) {
    throw InputError(str(path, ": read error after byte ", header.dataOffset));
  }
  if (dtype->type == torch::kFloat32 || dtype->type == torch::kFloat64) {
    if (!torch::isfinite(data).all().item<bool>()) {
      const int64_t index = torch::logical_not(torch::isfinite(data.reshape({-1})))
                                .nonzero()
                                .index({0, 0})
                                .item<int64_t>();
      throw InputError(str(path, ": element ", index, " (byte ",
                           header.dataOffset + index * header.elementSize, ") is NaN or infinite"));
    }
  }
  if (headerOut != nullptr) *headerOut = header;
  return data;
}

}  // namespace tbench
