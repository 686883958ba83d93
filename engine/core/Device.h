#pragma once
// Device strings as users write them: "cpu", "cuda:0", "cuda:1", ... Torch-free so that the
// project layer, the bridge and the GUI can all use it.

#include <string>

namespace tbench {

/// A device a tower can run on.
struct Device {
  enum class Kind { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  int index = -1;  ///< -1 for cpu; the CUDA ordinal otherwise

  /// Parses "cpu", "cuda" (= cuda:0) or "cuda:N". Throws InputError naming the string.
  static Device parse(const std::string& text);
  /// The canonical string: "cpu" or "cuda:N".
  std::string toString() const;
  bool isCuda() const { return kind == Kind::Cuda; }
  bool operator==(const Device& other) const { return kind == other.kind && index == other.index; }
  bool operator!=(const Device& other) const { return !(*this == other); }
};

}  // namespace tbench
