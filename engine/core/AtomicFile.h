#pragma once
// Atomic file replacement: write to a temporary file beside the target, flush it to disk,
// then rename it over the target. A kill at any moment leaves either the old or the new file.

#include <cstdint>
#include <optional>
#include <string>

namespace tbench {

/// Writes `contents` to `path` atomically. Throws std::runtime_error naming the path and the
/// system's reason on failure; the previous file, if any, is untouched then.
void writeFileAtomically(const std::string& path, const std::string& contents);

/// Who writes a temporary file of writeFileAtomically: the host and pid in its name
/// ("<target>.tmp-<host>-<pid>"). A writer killed before its rename leaves the file behind.
struct TemporaryFileWriter {
  std::string target;  ///< the file name it was to become
  std::string host;
  int64_t pid = 0;
};
/// The writer of the temporary file named `fileName` (no directory); nullopt for another name.
std::optional<TemporaryFileWriter> temporaryFileWriter(const std::string& fileName);

/// Reads a whole file. Throws InputError naming the path if it cannot be read.
std::string readFile(const std::string& path);

}  // namespace tbench
