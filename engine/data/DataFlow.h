#pragma once
// DataFlow: a re-iterable source of datapoints (tensorpack's DataFlow, in C++).
//
// Contract:
//  - resetState() is called once and only once, before the first pass, by the consumer that
//    will iterate (for a background thread, on that thread). A second call throws.
//  - pass() starts a fresh pass over the data; DataPass::next() yields datapoints until it
//    returns false. Each pass is a new epoch of the underlying data.
//  - Only one pass may be open at a time (the reentrancy guard): opening a second one while
//    the first is alive throws CheckError. A pass closes when its DataPass is destroyed.
//  - size() is the number of datapoints per pass when known.

#include <torch/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace tbench {

/// One datapoint: a list of components (for example {image, label}). Components are matched
/// to the model's inputs by position.
using Datapoint = std::vector<torch::Tensor>;

class DataFlow;

/// An open pass over a DataFlow. Move-only; closing it (destruction) releases the guard.
class DataPass {
 public:
  DataPass(DataPass&& other) noexcept;
  DataPass& operator=(DataPass&& other) noexcept;
  DataPass(const DataPass&) = delete;
  DataPass& operator=(const DataPass&) = delete;
  ~DataPass();

  /// Writes the next datapoint into `out` and returns true, or returns false at the end of
  /// the pass (and on every later call).
  bool next(Datapoint& out);
  /// Note [Stacked reads]: writes the next (up to) `n` datapoints stacked along a new first
  /// dimension into `out`, as torch::stack of their components would, and returns how many it
  /// took (0 at the end of the pass); -1 when the flow cannot (then nothing was taken and
  /// next() is the way). A flow holding its samples in memory answers with one gather
  /// (BatchData uses it), not n datapoints and a stack.
  int64_t nextStacked(int64_t n, Datapoint& out);

 private:
  friend class DataFlow;
  explicit DataPass(DataFlow* flow) : flow_(flow) {}
  void close();
  DataFlow* flow_ = nullptr;
  bool ended_ = false;
};

class DataFlow {
 public:
  virtual ~DataFlow() = default;

  /// Prepares the flow (opens files, seeds RNGs). Once and only once, before pass().
  void resetState();
  /// Starts a fresh pass. Throws CheckError if resetState() was not called or a pass is open.
  DataPass pass();
  /// Datapoints per pass, when known.
  virtual std::optional<int64_t> size() const { return std::nullopt; }

 protected:
  virtual void onResetState() {}
  /// Begins a fresh pass.
  virtual void startPass() = 0;
  /// Produces the next datapoint or returns false at the end of the pass.
  virtual bool nextPoint(Datapoint& out) = 0;
  /// Note [Stacked reads]: the next up to `n` datapoints, stacked; -1 (the default) when this
  /// flow has no faster way than nextPoint. An override returns exactly what stacking the
  /// datapoints nextPoint would have produced returns, bit for bit, in the same order.
  virtual int64_t nextStackedPoints(int64_t n, Datapoint& out) { return -1; }
  /// Called when the consumer closes the pass (it may not have reached the end).
  virtual void endPass() {}

 private:
  friend class DataPass;
  bool resetDone_ = false;
  std::atomic<bool> passOpen_{false};
};

using DataFlowPtr = std::shared_ptr<DataFlow>;

}  // namespace tbench
