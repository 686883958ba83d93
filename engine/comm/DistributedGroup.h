#pragma once
// DistributedGroup: this process's place in a multi-process run on c10d (the `distributed`
// strategy): the rendezvous store, a Gloo process group for CPU tensors, the refusal of a
// rank that runs another project or world size, and the diagnosis of a rank that died or hangs
// (Note [Distributed faults]). One per process, made by join() and kept as current().
//
// Note [Distributed faults]: every rank bumps "beat/<rank>" in the store once a second from
// a thread of its own (with the global step it is at), and a rank that fails publishes
// "failed/<rank>" with its message. When a collective throws (a dead peer makes Gloo throw
// within milliseconds, a live peer that never joins throws at `timeout`), the rank reads the
// store: a published failure, a heartbeat that stopped (SIGKILL, SIGSTOP) or a rank behind the
// others names the culprit, and the rank throws DistributedError with that name and the cause.
// If the store itself is gone, the rank that hosted it (rank 0, unless torchrun's agent hosts
// it) is named. After a failure the group is unusable: every rank ends, and --resume restarts
// all of them from the last checkpoint. A store host that is stopped (SIGSTOP) keeps its
// connections open and never answers: the diagnosis has a deadline and then names it (Note [A
// store that stops answering], DistributedGroup.cpp). A connection reset that LibTorch's own
// store thread cannot survive ends the rank with status 1 naming the store's host (Note
// [LibTorch's store threads]).
//
// Threads: join, the collectives and diagnose are called from the engine thread only; the
// heartbeat runs on its own thread with its own store connection.

#include <torch/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/comm/WorkerEnvironment.h"

namespace tbench {

/// A collective failed; the message names the rank and the cause (a std::runtime_error, so the
/// CLI reports it as a failed run with exit status 1).
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DistributedOptions {
  /// How long a collective or the rendezvous may wait for a peer.
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  /// Every rank must run the same project: its hash and name, compared at join.
  std::string projectHash;
  std::string projectName;
  std::chrono::milliseconds heartbeat{1000};
};

/// An all-reduce in flight; wait() blocks until it is done and throws what it threw.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
  /// Calls `done` once the collective completes, successfully or not: on the thread that
  /// completes it, or at once on this one when it already has. For measurement only
  /// (GradientReducer's timing): `done` must be quick, must not throw, and may outlive the
  /// caller's objects (capture by value).
  virtual void whenDone(std::function<void()> done) = 0;
};

class DistributedGroup {
 public:
  /// Connects to the store (hosting it on rank 0 unless the agent does), checks that every rank
  /// runs the same project and world size (InputError naming the rank otherwise, or naming the
  /// ranks that did not come within the timeout), builds the Gloo group and starts the
  /// heartbeat. Becomes current(). A second join in one process throws CheckError.
  static std::shared_ptr<DistributedGroup> join(const WorkerEnvironment& env,
                                                const DistributedOptions& options);
  /// The group this process joined, or null.
  static std::shared_ptr<DistributedGroup> current();

  ~DistributedGroup();
  DistributedGroup(const DistributedGroup&) = delete;
  DistributedGroup& operator=(const DistributedGroup&) = delete;

  int rank() const { return env_.rank; }
  int worldSize() const { return env_.worldSize; }
  const WorkerEnvironment& environment() const { return env_; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }

  /// Rank 0 tells every rank a value (the run directory); receive waits up to the timeout.
  void publish(const std::string& key, const std::string& value);
  std::string receive(const std::string& key);

  /// Sums a CPU tensor over the ranks, in place, asynchronously. Every rank must issue the
  /// collectives in the same order.
  std::unique_ptr<PendingCollective> allReduceSum(torch::Tensor tensor);
  /// Copies rank `root`'s tensors into everyone's, in place.
  void broadcast(std::vector<torch::Tensor> tensors, int root = 0);
  void barrier();

  /// The global step the heartbeat reports (the engine thread sets it every step).
  void setProgress(int64_t globalStep) { progress_.store(globalStep); }
  /// Turns a collective's failure into a DistributedError naming the rank that died or hangs
  /// (Note [Distributed faults]) and publishes this rank's own failure. `during` says what was
  /// running ("the all-reduce of step 12").
  [[noreturn]] void fail(const std::exception& cause, const std::string& during);
  /// Publishes a failure of this rank (an exception of its own) for the others' diagnosis.
  void reportFailure(const std::string& message);
  /// A clean end: stops the heartbeat and waits for every rank (rank 0 hosts the store, so it
  /// must not leave first). Failures here are ignored.
  void finish();

 private:
  struct State;
  DistributedGroup(WorkerEnvironment env, DistributedOptions options);
  std::string diagnose(const std::string& cause);

  WorkerEnvironment env_;
  DistributedOptions options_;
  std::unique_ptr<State> state_;
  std::atomic<int64_t> progress_{0};
  bool failed_ = false;
};

/// FNV-1a of `text` as 16 hex digits (the project hash compared at join).
std::string stableHash(const std::string& text);

}  // namespace tbench
