#pragma once
// Atomic file replacement: write to a temporary file beside the target, flush it to disk,
// then rename it over the target. A kill at any moment leaves either the old or the new file.

#include <string>

namespace tbench {

/// Writes `contents` to `path` atomically. Throws std::runtime_error naming the path and the
/// system's reason on failure; the previous file, if any, is untouched then.
void writeFileAtomically(const std::string& path, const std::string& contents);

/// Reads a whole file. Throws InputError naming the path if it cannot be read.
std::string readFile(const std::string& path);

}  // namespace tbench
