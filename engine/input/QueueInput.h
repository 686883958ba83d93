#pragma once
// QueueInput: runs the DataFlow on a background thread that fills a bounded queue; the
// trainer pops from it (tensorpack's QueueInput). Passes are repeated forever.
//
// - The thread starts in beforeTrain of the callback from callbacks() (or at the first
//   nextBatch), calls resetState() itself and stops in afterTrain, or in stop()/destruction.
//   A stop never leaves the thread hanging on a full queue.
// - An exception in the DataFlow is kept and rethrown by nextBatch() on the trainer's thread,
//   with its original type and message, once the batches produced before it are consumed.
// - The callback puts "QueueInput/queue_fullness" (that average over the capacity, in [0, 1])
//   and "QueueInput/queue_size": the average number of batches waiting when the trainer asked
//   for one during the epoch. Near 0 means training waits for data (data-bound).

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/data/DataFlow.h"
#include "engine/input/InputSource.h"

namespace tbench {

class QueueInput : public InputSource {
 public:
  static constexpr int64_t kDefaultCapacity = 50;
  explicit QueueInput(DataFlowPtr dataflow, int64_t capacity = kDefaultCapacity);
  ~QueueInput() override;
  std::optional<int64_t> size() const override { return dataflow_->size(); }
  std::vector<CallbackPtr> callbacks() override;
  void stop() override;
  /// Starts the worker thread if it is not running. Engine thread.
  void start();
  /// Batches currently waiting.
  int64_t queueSize() const;
  int64_t capacity() const { return capacity_; }

 protected:
  Datapoint nextDatapoint() override;

 private:
  class Reporter;
  void work();

  DataFlowPtr dataflow_;
  int64_t capacity_;
  std::thread worker_;

  mutable std::mutex mutex_;  // guards queue_, error_, stopping_, finished_, the size sums
  std::condition_variable notEmpty_;
  std::condition_variable notFull_;
  std::deque<Datapoint> queue_;
  std::exception_ptr error_;
  bool stopping_ = false;
  bool finished_ = false;
  double sizeSum_ = 0;
  int64_t sizeCount_ = 0;
};

}  // namespace tbench
