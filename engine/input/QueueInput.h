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
// - Note [Producer on the training thread]: the producer is a thread only where it has a core
//   of its own. Where every tower is on the CPU and the step's intra-op threads already take
//   every core of the process (the default on a CPU), a producer thread can only run by
//   preempting one of the step's OpenMP threads, and the whole parallel region then waits for
//   it at its barrier: measured on a 2-core AMD EPYC (Zen 5), the MLP project trained at
//   0.90-0.915 of a hand-written loop with the thread, 0.95-0.96 without. There (Producer::Auto)
//   the batches are made on the training thread when it asks for one, exactly as the thread
//   would have made them (same order, same skip on resume, same errors); no queue statistics
//   are put, since there is no queue. GPU towers, or fewer intra-op threads than cores, keep
//   the thread. Producer::Thread and Producer::TrainingThread force either.

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "engine/data/DataFlow.h"
#include "engine/input/InputSource.h"

namespace tbench {

class QueueInput : public InputSource {
 public:
  static constexpr int64_t kDefaultCapacity = 50;
  /// Where the batches are made: Note [Producer on the training thread].
  enum class Producer { Auto, Thread, TrainingThread };
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
  /// Before training starts.
  void setProducer(Producer producer) { producer_ = producer; }
  /// Where the batches are made, decided at start(): Thread or TrainingThread (Auto before).
  Producer producer() const;

 protected:
  Datapoint nextDatapoint() override;

 private:
  class Reporter;
  void work();
  /// Auto resolved against the tower devices and the calling thread's intra-op threads.
  Producer resolveProducer() const;
  /// TrainingThread: the next datapoint, made here.
  Datapoint produceHere();

  DataFlowPtr dataflow_;
  int64_t capacity_;
  Producer producer_ = Producer::Auto;
  std::thread worker_;

  // TrainingThread only (the training thread alone touches them).
  bool started_ = false;
  bool flowReady_ = false;  ///< resetState() done
  std::optional<DataPass> pass_;
  bool passHadData_ = false;
  bool producedAny_ = false;
  int64_t skip_ = 0;

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
