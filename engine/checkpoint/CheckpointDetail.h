#pragma once
// What Checkpoint.cpp, OptimizerState.cpp and RngState.cpp share: message helpers and the CUDA
// generators' capture. Not a public header.

#include <torch/torch.h>

#include <map>
#include <sstream>
#include <string>

namespace tbench::checkpoint_detail {

/// "<path>: " or "" for a state captured in memory.
inline std::string prefix(const std::string& path) { return path.empty() ? "" : path + ": "; }

/// The first line of a LibTorch error without its C++ backtrace, shortened for a message.
inline std::string torchReason(const std::exception& e) {
  const auto* c10error = dynamic_cast<const c10::Error*>(&e);
  std::string text = c10error ? c10error->what_without_backtrace() : e.what();
  text = text.substr(0, text.find('\n'));
  if (text.size() > 200) text = text.substr(0, 200) + "...";
  return text;
}

inline std::string shapeString(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

/// The CUDA generators' states of the devices that have a CUDA context (RngState.cpp).
std::map<std::string, torch::Tensor> captureCudaRngStates();

}  // namespace tbench::checkpoint_detail
