#include "engine/input/QueueInput.h"

#include <algorithm>

#include <ATen/Parallel.h>

#include "engine/core/Check.h"
#include "engine/core/Environment.h"
#include "engine/core/Logging.h"
#include "engine/core/PipelineThread.h"

namespace tbench {

class QueueInput::Reporter : public Callback {
 public:
  explicit Reporter(QueueInput& input) : input_(input) {}
  std::string name() const override { return "QueueInput"; }

 private:
  void onBeforeTrain() override { input_.start(); }
  void onTriggerEpoch() override {
    double average = 0;
    {
      std::lock_guard<std::mutex> lock(input_.mutex_);
      if (input_.sizeCount_ == 0) return;
      average = input_.sizeSum_ / static_cast<double>(input_.sizeCount_);
      input_.sizeSum_ = 0;
      input_.sizeCount_ = 0;
    }
    // Fullness first: a monitor that shows it (the window) may then leave queue_size out.
    context().monitors().putScalar("QueueInput/queue_fullness",
                                   average / static_cast<double>(input_.capacity_));
    context().monitors().putScalar("QueueInput/queue_size", average);
  }
  void onAfterTrain() override { input_.stop(); }

  QueueInput& input_;
};

QueueInput::QueueInput(DataFlowPtr dataflow, int64_t capacity)
    : dataflow_(std::move(dataflow)), capacity_(capacity) {
  TB_CHECK(dataflow_ != nullptr, "QueueInput needs a DataFlow");
  TB_CHECK(capacity_ > 0, "QueueInput capacity must be positive, got ", capacity_);
}

QueueInput::~QueueInput() { stop(); }

std::vector<CallbackPtr> QueueInput::callbacks() { return {std::make_shared<Reporter>(*this)}; }

QueueInput::Producer QueueInput::producer() const { return producer_; }

QueueInput::Producer QueueInput::resolveProducer() const {
  if (producer_ != Producer::Auto) return producer_;
  const std::vector<Device>& towers = towerDevices();
  // Consumers unknown (the input used without a trainer): the thread, as tensorpack has it.
  if (towers.empty()) return Producer::Thread;
  const bool allCpu =
      std::none_of(towers.begin(), towers.end(), [](const Device& d) { return d.isCuda(); });
  if (!allCpu) return Producer::Thread;
  return at::get_num_threads() >= coresForThisProcess() ? Producer::TrainingThread
                                                        : Producer::Thread;
}

void QueueInput::start() {
  if (started_) return;
  TB_CHECK(isSetUp(), "QueueInput::start() before setup()");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    TB_CHECK(!stopping_, "QueueInput cannot be restarted after stop()");
  }
  const bool automatic = producer_ == Producer::Auto;
  producer_ = resolveProducer();
  started_ = true;
  // Issue 33: the data is opened (resetState: reading and decoding its files) here, in
  // beforeTrain, before the first step's clock starts, as FeedInput does in setup: made lazily
  // by the first step, Fashion-MNIST's 0.5 s of decoding had counted as training time and the
  // MLP project's first epoch read 320 steps/s against simple's 640 (the steady-state epochs are
  // equal). The producer thread's first batch is waited for for the same reason.
  if (producer_ == Producer::TrainingThread) {
    if (automatic) {
      TB_LOG(Info) << "QueueInput: batches are made on the training thread: the step's "
                   << at::get_num_threads() << " intra-op threads take every core of this "
                   << "process, and a producer thread could only run by preempting them "
                   << "(\"producer\": \"thread\" forces one)";
    }
    dataflow_->resetState();
    flowReady_ = true;
    skip_ = takeSkipCount();
    return;
  }
  worker_ = std::thread([this] { work(); });
  std::unique_lock<std::mutex> lock(mutex_);
  notEmpty_.wait(lock, [&] { return !queue_.empty() || finished_ || stopping_; });
}

void QueueInput::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  notFull_.notify_all();
  notEmpty_.notify_all();
  if (worker_.joinable()) worker_.join();
}

int64_t QueueInput::queueSize() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(queue_.size());
}

void QueueInput::work() {
  // Batching and normalising here must not take the training step's cores: Note [Pipeline
  // threads].
  useOneIntraOpThreadHere();
  try {
    dataflow_->resetState();
    int64_t skip = takeSkipCount();
    bool producedAny = false;
    while (true) {
      DataPass pass = dataflow_->pass();
      Datapoint point;
      bool passHadData = false;
      while (pass.next(point)) {
        passHadData = producedAny = true;
        if (skip > 0) {
          --skip;
          continue;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        notFull_.wait(lock,
                      [&] { return stopping_ || static_cast<int64_t>(queue_.size()) < capacity_; });
        if (stopping_) return;
        queue_.push_back(std::move(point));
        lock.unlock();
        notEmpty_.notify_one();
      }
      if (!passHadData) {
        throw InputError(producedAny ? "the training DataFlow produced an empty pass"
                                     : "the training DataFlow produced no data");
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::current_exception();
    finished_ = true;
  }
  notEmpty_.notify_all();
}

Datapoint QueueInput::produceHere() {
  if (!flowReady_) {
    dataflow_->resetState();
    flowReady_ = true;
    skip_ = takeSkipCount();
  }
  while (true) {
    if (!pass_) {
      pass_.emplace(dataflow_->pass());
      passHadData_ = false;
    }
    Datapoint point;
    while (pass_->next(point)) {
      passHadData_ = producedAny_ = true;
      if (skip_ > 0) {
        --skip_;
        continue;
      }
      return point;
    }
    pass_.reset();
    if (!passHadData_) {
      throw InputError(producedAny_ ? "the training DataFlow produced an empty pass"
                                    : "the training DataFlow produced no data");
    }
  }
}

Datapoint QueueInput::nextDatapoint() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) throw std::runtime_error("QueueInput was stopped");
  if (!started_) {
    lock.unlock();
    start();
    lock.lock();
  }
  if (producer_ == Producer::TrainingThread) {
    lock.unlock();
    return produceHere();
  }
  sizeSum_ += static_cast<double>(queue_.size());
  ++sizeCount_;
  notEmpty_.wait(lock, [&] { return !queue_.empty() || finished_ || stopping_; });
  if (!queue_.empty()) {
    Datapoint point = std::move(queue_.front());
    queue_.pop_front();
    // Wake the worker only once the queue is half empty: it then refills in one go instead of
    // waking (and preempting a compute thread on a small machine) at every step.
    const bool refill = static_cast<int64_t>(queue_.size()) <= capacity_ / 2;
    lock.unlock();
    if (refill) notFull_.notify_one();
    return point;
  }
  if (error_) std::rethrow_exception(error_);
  throw std::runtime_error("QueueInput was stopped");
}

}  // namespace tbench
