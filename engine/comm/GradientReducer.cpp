#include "engine/comm/GradientReducer.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <utility>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t nanoseconds(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

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

GradientReducer::Timing GradientReducer::Timing::since(const Timing& earlier) const {
  Timing d;
  d.steps = steps - earlier.steps;
  d.buckets = buckets - earlier.buckets;
  d.launchedDuringBackward = launchedDuringBackward - earlier.launchedDuringBackward;
  d.inFlightS = inFlightS - earlier.inFlightS;
  d.hiddenS = hiddenS - earlier.hiddenS;
  d.finishS = finishS - earlier.finishS;
  return d;
}

void GradientReducer::enableTiming(bool on) {
  timingOn_ = on;
  for (Bucket& b : buckets_) {
    if (on && !b.doneAtNs) b.doneAtNs = std::make_shared<std::atomic<int64_t>>(0);
  }
}

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
  if (timingOn_) bucket.launchedAt = Clock::now();
  bucket.work = group_.allReduceSum(bucket.buffer);
  if (timingOn_) {
    // Note [Reducer timing]: the callback may run after this reducer is gone (a failed
    // group), so it holds the cell it writes.
    bucket.doneAtNs->store(0);
    bucket.work->whenDone([done = bucket.doneAtNs] { done->store(nanoseconds(Clock::now())); });
  }
}

void GradientReducer::recordTiming(Clock::time_point backwardEnd) {
  const int64_t end = nanoseconds(backwardEnd);
  std::vector<std::pair<int64_t, int64_t>> spans;  // [launched, done] of each bucket
  for (const Bucket& b : buckets_) {
    const int64_t done = b.doneAtNs->load();
    // wait() returned, so the collective is done; a callback not seen yet ends it now.
    spans.emplace_back(nanoseconds(b.launchedAt), done > 0 ? done : nanoseconds(Clock::now()));
  }
  std::sort(spans.begin(), spans.end());
  int64_t inFlight = 0, hidden = 0;
  auto add = [&](int64_t from, int64_t to) {
    inFlight += to - from;
    hidden += std::max<int64_t>(0, std::min(to, end) - from);
  };
  int64_t from = spans.front().first, to = spans.front().second;
  for (const auto& [a, b] : spans) {
    if (a > to) {
      add(from, to);
      from = a;
    }
    to = std::max(to, b);
  }
  add(from, to);
  timing_.inFlightS += inFlight * 1e-9;
  timing_.hiddenS += hidden * 1e-9;
  timing_.buckets += static_cast<int64_t>(buckets_.size());
  timing_.launchedDuringBackward += launchedDuringBackward_;
}

void GradientReducer::finish(const std::function<void()>& whileReducing) {
  const Clock::time_point backwardEnd = timingOn_ ? Clock::now() : Clock::time_point{};
  torch::NoGradGuard noGrad;
  const double scale = 1.0 / group_.worldSize();
  if (mode_ == Mode::PerParameter) {
    for (torch::Tensor& p : params_) {
      if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
      group_.allReduceSum(p.grad())->wait();
      p.grad().mul_(scale);
    }
    if (whileReducing) whileReducing();
    if (timingOn_) {
      // Nothing overlaps backward here: all of it is in flight after, one at a time.
      const double s = std::chrono::duration<double>(Clock::now() - backwardEnd).count();
      timing_.steps += 1;
      timing_.buckets += static_cast<int64_t>(params_.size());
      timing_.inFlightS += s;
      timing_.finishS += s;
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
  if (whileReducing) whileReducing();
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
  if (timingOn_ && !buckets_.empty()) {
    recordTiming(backwardEnd);
    timing_.steps += 1;
    timing_.finishS += std::chrono::duration<double>(Clock::now() - backwardEnd).count();
  }
}

}  // namespace tbench
