#pragma once
// GradientReducer: averages the gradients of one replica over the ranks of a DistributedGroup
// while backward is still running (what DistributedDataParallel's reducer does, written here
// because LibTorch has no C++ DDP and c10d/reducer.hpp does not compile against Debian's
// headers).
//
// Note [Gradient buckets]: parameters go into buckets of about `bucketBytes`, in reverse
// registration order (the order backward produces their gradients). A post-hook on each
// parameter's gradient accumulator marks it ready; when every parameter of a bucket is ready
// and every earlier bucket has been launched, the bucket is flattened into one buffer and its
// all-reduce (sum) starts asynchronously, so communication overlaps the rest of backward.
// Buckets launch in the same order on every rank whatever order the hooks fire in. finish()
// runs after backward: a parameter that got no gradient this step (an unused branch) counts
// as a zero gradient instead of hanging every rank, the remaining buckets launch, and every
// bucket is waited for, divided by the world size and copied back into the gradients.
//
// Mode::PerParameter is the plain reference: no hooks; finish() all-reduces each gradient on
// its own, one after another (tests compare the buckets against it).
//
// Note [Reducer timing]: with enableTiming(true) (bench/bench_distributed), every bucket's
// all-reduce is timed from its launch to its completion (PendingCollective::whenDone), and
// finish() accumulates, per step, the time during which at least one bucket was in flight and
// the part of it that lay before backward returned (finish() is called when backward returns):
// their ratio is the share of communication hidden behind backward. Off by default, and then
// the reducer reads no clock.
//
// Threads: the hooks run on the thread that runs backward; prepare() and finish() on the
// engine thread, which is the same thread for CPU backward. The completion callbacks of the
// timing run on Gloo's threads and only store a time.

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "engine/comm/DistributedGroup.h"
#include "engine/core/TorchCompat.h"

namespace tbench {

class GradientReducer {
 public:
  enum class Mode { Buckets, PerParameter };

  /// `params` in registration order; `group` outlives the reducer.
  GradientReducer(std::vector<torch::Tensor> params, DistributedGroup& group, Mode mode,
                  int64_t bucketBytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /// Before backward: marks every parameter not ready.
  void prepare();
  /// After backward: averages every gradient over the ranks (see the Note). Throws what a
  /// collective threw (the trainer turns it into a DistributedError).
  /// `whileReducing`, when given, runs once every gradient's all-reduce has been issued and
  /// before they are waited for: a collective issued there comes after them in the order every
  /// rank issues collectives in.
  void finish(const std::function<void()>& whileReducing = {});

  int numBuckets() const { return static_cast<int>(buckets_.size()); }
  /// Buckets whose all-reduce started before backward returned, in the last step.
  int launchedDuringBackward() const { return launchedDuringBackward_; }

  /// What the all-reduces of the reduced steps cost, summed over steps (Note [Reducer timing]).
  struct Timing {
    int64_t steps = 0;
    int64_t buckets = 0;                 ///< all-reduces launched
    int64_t launchedDuringBackward = 0;  ///< of those, launched before backward returned
    double inFlightS = 0;  ///< time with at least one all-reduce of the step in flight
    double hiddenS = 0;    ///< the part of inFlightS before backward returned
    double finishS = 0;    ///< time in finish(): waiting, averaging, copying back
    /// The share of the all-reduce time hidden behind backward, in [0, 1].
    double hiddenShare() const { return inFlightS > 0 ? hiddenS / inFlightS : 0; }
    /// What was added since `earlier` (a snapshot of the same reducer).
    Timing since(const Timing& earlier) const;
  };
  /// Engine thread, between steps. Off by default.
  void enableTiming(bool on);
  const Timing& timing() const { return timing_; }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_
    int pending = 0;             // parameters not ready yet this step
    torch::Tensor buffer;
    std::unique_ptr<PendingCollective> work;
    // Note [Reducer timing], set only while timing: when the all-reduce started, and when it
    // completed (steady-clock nanoseconds, 0 before; stored by Gloo's thread).
    std::chrono::steady_clock::time_point launchedAt;
    std::shared_ptr<std::atomic<int64_t>> doneAtNs;
  };
  void markReady(size_t param);
  void launchReadyBuckets();
  void launch(Bucket& bucket);
  void recordTiming(std::chrono::steady_clock::time_point backwardEnd);

  std::vector<torch::Tensor> params_;
  DistributedGroup& group_;
  Mode mode_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucketOf_;  // param -> bucket
  std::vector<bool> ready_;
  size_t nextToLaunch_ = 0;
  bool inBackward_ = false;
  int launchedDuringBackward_ = 0;
  bool timingOn_ = false;
  Timing timing_;
  // Keeps each accumulator (and so its hook) alive: a variable holds it only weakly.
  std::vector<compat::GradAccumulatorPtr> accumulators_;
};

}  // namespace tbench
