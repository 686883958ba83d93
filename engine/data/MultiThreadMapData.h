#pragma once
// MultiThreadMapData: MapData on worker threads (tensorpack's MultiThreadMapData), for work
// that dominates reading the child, such as decoding images.
//
// - Each pass starts `numThreads` workers. A worker takes the child's next datapoints (a few
//   at a time; the child is read by one worker at a time, in its own order), applies the
//   function to each and hands the results to the consumer. At most `bufferSize` datapoints
//   are between the child and the consumer (being mapped or waiting to be taken); a worker
//   that would exceed it waits. Threads hand over in batches (Note [Batched hand-over]).
// - ordered (the default): results come in the child's order, so a pass is a function of the
//   child's pass alone, whatever the thread count or timing. Otherwise they come as they
//   finish (tensorpack's behaviour; a slow datapoint does not hold the others back).
// - An exception thrown by the function or by the child on a worker ends the pass: next()
//   rethrows it on the consumer's thread with its type and message (ordered: after the results
//   of the datapoints before it), and returns false after that. Nothing calls std::terminate.
// - Closing a pass early (destroying its DataPass) stops the workers: each finishes the
//   datapoint it is mapping and exits, and the close joins them. The next pass starts afresh.
// - numThreads 0 maps on the consumer's thread, as MapData does.
//
// The function runs on several threads at once and must be thread-safe. It should not rely on
// LibTorch's intra-op threads (each worker calling a parallel kernel would start a team of
// its own); plain loops over a tensor's data are what it is for.

#include <torch/arg.h>

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/data/ProxyDataFlow.h"

namespace tbench {

struct MultiThreadMapOptions {
  /// Datapoints taken from the child and not yet returned by next(), at most (>= 1).
  TORCH_ARG(int64_t, bufferSize) = 64;
  /// Results in the child's order (deterministic); false: in the order they finish.
  TORCH_ARG(bool, ordered) = true;
  /// The function may return std::nullopt to drop a point (size() is then unknown).
  TORCH_ARG(bool, mayDrop) = false;
};

class MultiThreadMapData : public ProxyDataFlow {
 public:
  /// As MapData's: may return std::nullopt to drop the point when the flow allows it.
  using Function = std::function<std::optional<Datapoint>(Datapoint)>;

  using Options = MultiThreadMapOptions;

  MultiThreadMapData(DataFlowPtr child, int64_t numThreads, Function function,
                     Options options = {});
  ~MultiThreadMapData() override;

  std::optional<int64_t> size() const override {
    return options_.mayDrop() ? std::nullopt : ProxyDataFlow::size();
  }
  int64_t numThreads() const { return numThreads_; }

 protected:
  void startPass() override;
  bool nextPoint(Datapoint& out) override;
  void endPass() override;

 private:
  /// A result waiting for the consumer: a point, an error, or neither (dropped).
  struct Slot {
    bool filled = false;
    std::optional<Datapoint> point;
    std::exception_ptr error;
  };

  void work();
  /// Takes the child's next datapoints (up to takeChunk_) and the sequence number of the first;
  /// false when the worker is done.
  bool takeInputs(std::vector<Datapoint>& inputs, int64_t& first);
  /// Puts a result in the ring (under mutex_).
  void store(int64_t sequence, Slot slot);
  /// Whether a waiting consumer should wake (Note [Batched hand-over]); under mutex_.
  bool consumerDue() const;
  void wakeConsumerIfDue();
  bool nextInline(Datapoint& out);
  void stopWorkers();

  Function function_;
  int64_t numThreads_;
  Options options_;
  int64_t takeChunk_ = 1;  // Note [Batched hand-over], MultiThreadMapData.cpp
  int64_t wakeBatch_ = 1;
  int64_t roomBatch_ = 1;
  std::vector<std::thread> workers_;

  // Taken first by the worker that reads the child: one reader at a time, and datapoints get
  // their sequence numbers in the child's order.
  std::mutex inputMutex_;
  mutable std::mutex mutex_;       // guards everything below
  std::condition_variable room_;   // a worker waits for taken_ - delivered_ < bufferSize
  std::condition_variable ready_;  // the consumer waits for slot delivered_ or the end
  // Result n sits in ring_[n % bufferSize]; at most bufferSize are outstanding. Ordered, n is
  // the datapoint's sequence number; unordered, the order in which results finished.
  std::vector<Slot> ring_;
  int64_t taken_ = 0;                  // datapoints taken from the child in this pass
  int64_t finished_ = 0;               // results stored (unordered numbering)
  int64_t delivered_ = 0;              // results the consumer took
  bool inputEnded_ = false;            // the child's pass ended, or failed: no more takes
  bool stopping_ = false;              // the pass is closing: workers exit
  bool failed_ = false;                // next() rethrew an error: the pass is over
  std::exception_ptr workerFailure_;   // a worker broke outside the function and the child
  bool consumerWaiting_ = false;       // the consumer sleeps on ready_
  bool workerWaitingForRoom_ = false;  // a worker sleeps on room_
};

}  // namespace tbench
