#include "engine/comm/GradientReducer.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {
namespace {

/// Calls `ready` after the accumulator added this step's gradient into `.grad`.
class ReadyHook : public torch::autograd::FunctionPostHook {
 public:
  explicit ReadyHook(std::function<void()> ready) : ready_(std::move(ready)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    ready_();
    return outputs;
  }

 private:
  std::function<void()> ready_;
};

}  // namespace

GradientReducer::GradientReducer(std::vector<torch::Tensor> params, DistributedGroup& group,
                                 Mode mode, int64_t bucketBytes)
    : params_(std::move(params)), group_(group), mode_(mode) {
  ready_.assign(params_.size(), false);
  bucketOf_.assign(params_.size(), 0);
  if (mode_ == Mode::PerParameter) return;
  // Note [Gradient buckets]: reverse order, a new bucket once the current one is full.
  int64_t bytes = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const torch::Tensor& p = params_[k];
    TB_CHECK(p.device().is_cpu(), "the Gloo reducer takes CPU parameters, got ", p.device());
    if (buckets_.empty() || (bytes >= bucketBytes && !buckets_.back().params.empty())) {
      buckets_.emplace_back();
      bytes = 0;
    }
    buckets_.back().params.push_back(k);
    bucketOf_[k] = buckets_.size() - 1;
    bytes += p.numel() * static_cast<int64_t>(p.element_size());
  }
  for (size_t k = 0; k < params_.size(); ++k) {
    auto accumulator = torch::autograd::impl::grad_accumulator(params_[k]);
    TB_CHECK(accumulator != nullptr, "parameter ", k, " has no gradient accumulator");
    accumulator->add_post_hook(std::make_unique<ReadyHook>([this, k] { markReady(k); }));
    accumulators_.push_back(std::move(accumulator));
  }
}

GradientReducer::~GradientReducer() = default;

void GradientReducer::prepare() {
  std::fill(ready_.begin(), ready_.end(), false);
  for (Bucket& b : buckets_) {
    b.pending = static_cast<int>(b.params.size());
    b.work.reset();
  }
  nextToLaunch_ = 0;
  launchedDuringBackward_ = 0;
  inBackward_ = true;
}

void GradientReducer::markReady(size_t param) {
  // Hooks also fire outside a reduced step (inference never calls backward; a test may):
  // only steps between prepare() and finish() count.
  if (!inBackward_ || ready_[param]) return;
  ready_[param] = true;
  Bucket& bucket = buckets_[bucketOf_[param]];
  if (--bucket.pending == 0) launchReadyBuckets();
}

void GradientReducer::launchReadyBuckets() {
  while (nextToLaunch_ < buckets_.size() && buckets_[nextToLaunch_].pending == 0) {
    launch(buckets_[nextToLaunch_]);
    if (inBackward_) ++launchedDuringBackward_;
    ++nextToLaunch_;
  }
}

void GradientReducer::launch(Bucket& bucket) {
  std::vector<torch::Tensor> grads;
  grads.reserve(bucket.params.size());
  for (size_t k : bucket.params) {
    const torch::Tensor& g = params_[k].grad();
    grads.push_back(g.defined() ? g.reshape({-1})
                                : torch::zeros({params_[k].numel()}, params_[k].options()));
  }
  bucket.buffer = torch::cat(grads);
  bucket.work = group_.allReduceSum(bucket.buffer);
}

void GradientReducer::finish() {
  torch::NoGradGuard noGrad;
  const double scale = 1.0 / group_.worldSize();
  if (mode_ == Mode::PerParameter) {
    for (torch::Tensor& p : params_) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      group_.allReduceSum(p.grad())->wait();
      p.grad().mul_(scale);
    }
    return;
  }
  inBackward_ = false;
  // A parameter without a gradient this step counts as zero (Note [Gradient buckets]).
  for (Bucket& bucket : buckets_) {
    if (bucket.pending == 0) continue;
    for (size_t k : bucket.params) {
      if (!ready_[k]) {
        ready_[k] = true;
        --bucket.pending;
      }
    }
  }
  launchReadyBuckets();
  for (Bucket& bucket : buckets_) {
    bucket.work->wait();
    bucket.buffer.mul_(scale);
    int64_t offset = 0;
    for (size_t k : bucket.params) {
      torch::Tensor& p = params_[k];
      const int64_t n = p.numel();
      torch::Tensor averaged = bucket.buffer.narrow(0, offset, n).view(p.sizes());
      if (p.grad().defined()) {
        p.mutable_grad().copy_(averaged);
      } else {
        p.mutable_grad() = averaged.clone();
      }
      offset += n;
    }
    bucket.work.reset();
  }
}

}  // namespace tbench
