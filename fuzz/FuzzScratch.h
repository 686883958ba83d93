#pragma once
// Scratch files for the fuzz targets (fuzz/README.md): the readers under test take a path, so
// each input is written to a file in a directory of this process, removed when it exits.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace tbench::fuzz {

/// A directory of this process: under /dev/shm where there is one (no disk writes at
/// thousands of inputs a second), else the system's temporary directory.
inline const std::string& scratchDir() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path base =
        fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path path = base / ("towerbench-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(path);
    static const std::string removed = path.string();
    std::atexit([] {
      std::error_code ignored;
      fs::remove_all(removed, ignored);
    });
    return path.string();
  }();
  return dir;
}

/// Writes `size` bytes of `data` to `name` in scratchDir(); returns the file's path.
inline std::string writeScratch(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) std::abort();  // the harness itself failed, not the reader
  return path;
}

}  // namespace tbench::fuzz
