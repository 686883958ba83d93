#pragma once
// Test support: a file's bytes, read or written whole (the readers' tests corrupt copies of
// real files byte by byte).

#include <fstream>
#include <iterator>
#include <string>

namespace tbench::testing {

/// The bytes of `file`; empty when it cannot be read.
inline std::string readBytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Writes `bytes` as the whole of `file`.
inline void writeBytes(const std::string& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

}  // namespace tbench::testing
