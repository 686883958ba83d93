#include "engine/data/MultiThreadMapData.h"

#include "engine/core/PipelineThread.h"

#include <algorithm>

#include "engine/core/Check.h"
#include "engine/data/MapData.h"

namespace tbench {

namespace {

const char* kDropped =
    "the MultiThreadMapData function dropped a datapoint; construct it with mayDrop(true) to "
    "allow that (its size() is then unknown)";

}  // namespace

MultiThreadMapData::MultiThreadMapData(DataFlowPtr child, int64_t numThreads, Function function,
                                       Options options)
    : ProxyDataFlow(std::move(child)),
      function_(std::move(function)),
      numThreads_(numThreads),
      options_(options) {
  TB_CHECK(static_cast<bool>(function_), "MultiThreadMapData needs a function");
  TB_CHECK(numThreads_ >= 0, "MultiThreadMapData: numThreads must be >= 0, got ", numThreads_);
  TB_CHECK(options_.bufferSize() >= 1, "MultiThreadMapData: bufferSize must be >= 1, got ",
           options_.bufferSize());
  const int64_t buffer = options_.bufferSize();
  takeChunk_ = std::clamp<int64_t>(buffer / (4 * std::max<int64_t>(numThreads_, 1)), 1, 8);
  wakeBatch_ = std::clamp<int64_t>(buffer / 4, 1, 16);
  roomBatch_ = std::clamp<int64_t>(std::min(takeChunk_, buffer / 4), 1, 8);
}

MultiThreadMapData::~MultiThreadMapData() { stopWorkers(); }

void MultiThreadMapData::startPass() {
  ProxyDataFlow::startPass();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ring_.assign(static_cast<size_t>(numThreads_ > 0 ? options_.bufferSize() : 0), Slot{});
    taken_ = finished_ = delivered_ = 0;
    inputEnded_ = stopping_ = failed_ = false;
    consumerWaiting_ = workerWaitingForRoom_ = false;
    workerFailure_ = nullptr;
  }
  if (numThreads_ == 0) return;
  try {
    for (int64_t i = 0; i < numThreads_; ++i) workers_.emplace_back([this] { work(); });
  } catch (...) {
    stopWorkers();
    ProxyDataFlow::endPass();
    throw;
  }
}

void MultiThreadMapData::endPass() {
  stopWorkers();
  ProxyDataFlow::endPass();
}

void MultiThreadMapData::stopWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  room_.notify_all();
  ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  ring_.clear();  // results nobody will take (tensors) are released now, not at the next pass
}

// Note [Batched hand-over]
// Handing every datapoint over with its own wake-up costs a context switch each: decoding small
// PNGs on two workers ran at 0.6x the speed of decoding them on the consumer's thread. So the
// threads hand over in batches, and only sleepers are woken:
//  - a worker reads up to takeChunk_ datapoints of the child at a time;
//  - a consumer whose next result is missing sleeps until wakeBatch_ results in a row are ready
//    (or every datapoint taken is done), and a worker wakes it only then;
//  - a worker that finds the buffer full sleeps until roomBatch_ places are free.
// Whoever finds work ready takes it without waiting. No one waits forever: a worker waits for
// room only when bufferSize results are outstanding, which the others complete, and
// wakeBatch_ + roomBatch_ <= bufferSize + 1.

bool MultiThreadMapData::takeInputs(std::vector<Datapoint>& inputs, int64_t& first) {
  inputs.clear();
  std::lock_guard<std::mutex> reading(inputMutex_);
  int64_t room = 0;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto ready = [&] {
      return stopping_ || inputEnded_ || taken_ - delivered_ < options_.bufferSize();
    };
    if (!ready()) {
      workerWaitingForRoom_ = true;
      room_.wait(lock, ready);
      workerWaitingForRoom_ = false;
    }
    if (stopping_ || inputEnded_) return false;
    // Only this thread (holding inputMutex_) takes, and the consumer only frees places: the
    // room can only grow until the datapoints are counted below.
    room = options_.bufferSize() - (taken_ - delivered_);
  }
  // The child is read outside mutex_, so that the consumer takes results meanwhile.
  bool ended = false;
  std::exception_ptr error;
  try {
    const int64_t want = std::min(room, takeChunk_);
    for (int64_t k = 0; k < want; ++k) {
      Datapoint point;
      if (!childPass().next(point)) {
        ended = true;
        break;
      }
      inputs.push_back(std::move(point));
    }
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  first = taken_;
  taken_ += static_cast<int64_t>(inputs.size());
  if (ended || error) {
    inputEnded_ = true;
    if (error) {
      Slot slot;
      slot.error = error;
      store(taken_++, std::move(slot));
    }
    wakeConsumerIfDue();
  }
  return !inputs.empty();
}

void MultiThreadMapData::store(int64_t sequence, Slot slot) {
  const int64_t position = options_.ordered() ? sequence : finished_;
  ++finished_;
  Slot& target = ring_[static_cast<size_t>(position % options_.bufferSize())];
  TB_CHECK(!target.filled, "MultiThreadMapData: result ", position, " overwrites another");
  target = std::move(slot);
  target.filled = true;
}

bool MultiThreadMapData::consumerDue() const {
  const int64_t outstanding = taken_ - delivered_;
  const int64_t limit = std::min(outstanding, wakeBatch_);
  int64_t ready = 0;
  while (ready < limit &&
         ring_[static_cast<size_t>((delivered_ + ready) % options_.bufferSize())].filled) {
    ++ready;
  }
  return ready >= wakeBatch_ || (inputEnded_ && ready == outstanding);
}

void MultiThreadMapData::wakeConsumerIfDue() {
  if (consumerWaiting_ && consumerDue()) ready_.notify_one();
}

void MultiThreadMapData::work() {
  useOneIntraOpThreadHere();  // Note [Pipeline threads]
  try {
    std::vector<Datapoint> inputs;
    int64_t first = 0;
    while (takeInputs(inputs, first)) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        Slot slot;
        try {
          slot.point = function_(std::move(inputs[k]));
          if (!slot.point && !options_.mayDrop()) throw CheckError(kDropped);
        } catch (...) {
          slot.error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(mutex_);
        // Nothing is taken after a failure; the results before it still come.
        if (slot.error) inputEnded_ = true;
        store(first + static_cast<int64_t>(k), std::move(slot));
        wakeConsumerIfDue();
        if (stopping_) return;  // the pass is closing: the rest of the chunk is not wanted
      }
    }
  } catch (...) {
    // Not the function's or the child's error (those are results): a broken invariant. The
    // consumer rethrows it instead of the process terminating.
    std::lock_guard<std::mutex> lock(mutex_);
    if (!workerFailure_) workerFailure_ = std::current_exception();
    inputEnded_ = true;
    ready_.notify_all();
    room_.notify_all();
  }
}

bool MultiThreadMapData::nextInline(Datapoint& out) {
  if (failed_) return false;
  try {
    return MapData::nextMapped(childPass(), function_, options_.mayDrop(), kDropped, out);
  } catch (...) {
    failed_ = true;  // as with workers: an error ends the pass
    throw;
  }
}

bool MultiThreadMapData::nextPoint(Datapoint& out) {
  if (numThreads_ == 0) return nextInline(out);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!failed_) {
    if (workerFailure_) {
      failed_ = true;
      std::rethrow_exception(workerFailure_);
    }
    Slot& slot = ring_[static_cast<size_t>(delivered_ % options_.bufferSize())];
    if (!slot.filled) {
      if (inputEnded_ && delivered_ == taken_) return false;  // every result was delivered
      consumerWaiting_ = true;                                // Note [Batched hand-over]
      ready_.wait(lock, [&] { return workerFailure_ || consumerDue(); });
      consumerWaiting_ = false;
      continue;
    }
    Slot taken = std::move(slot);
    slot = Slot{};
    ++delivered_;
    if (taken.error) failed_ = true;
    const bool wakeWorker =
        workerWaitingForRoom_ && options_.bufferSize() - (taken_ - delivered_) >= roomBatch_;
    lock.unlock();
    if (wakeWorker) room_.notify_one();  // only the worker holding inputMutex_ waits for room
    if (taken.error) std::rethrow_exception(taken.error);
    if (taken.point) {
      out = std::move(*taken.point);
      return true;
    }
    lock.lock();  // dropped: take the next one
  }
  return false;
}

}  // namespace tbench
