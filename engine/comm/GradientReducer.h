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
// Threads: the hooks run on the thread that runs backward; prepare() and finish() on the
// engine thread, which is the same thread for CPU backward.

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "engine/comm/DistributedGroup.h"

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
  void finish();

  int numBuckets() const { return static_cast<int>(buckets_.size()); }
  /// Buckets whose all-reduce started before backward returned, in the last step.
  int launchedDuringBackward() const { return launchedDuringBackward_; }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_
    int pending = 0;             // parameters not ready yet this step
    torch::Tensor buffer;
    std::unique_ptr<PendingCollective> work;
  };
  void markReady(size_t param);
  void launchReadyBuckets();
  void launch(Bucket& bucket);

  std::vector<torch::Tensor> params_;
  DistributedGroup& group_;
  Mode mode_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucketOf_;  // param -> bucket
  std::vector<bool> ready_;
  size_t nextToLaunch_ = 0;
  bool inBackward_ = false;
  int launchedDuringBackward_ = 0;
  // Keeps each accumulator (and so its hook) alive: a variable holds it only weakly.
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
};

}  // namespace tbench
