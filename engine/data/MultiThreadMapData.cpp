#include "engine/data/MultiThreadMapData.h"

#include "engine/core/Check.h"

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
}

MultiThreadMapData::~MultiThreadMapData() { stopWorkers(); }

void MultiThreadMapData::startPass() {
  ProxyDataFlow::startPass();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ring_.assign(static_cast<size_t>(numThreads_ > 0 ? options_.bufferSize() : 0), Slot{});
    taken_ = finished_ = delivered_ = 0;
    inputEnded_ = stopping_ = failed_ = false;
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

bool MultiThreadMapData::takeInput(Datapoint& input, int64_t& sequence) {
  std::lock_guard<std::mutex> reading(inputMutex_);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] {
      return stopping_ || inputEnded_ || taken_ - delivered_ < options_.bufferSize();
    });
    if (stopping_ || inputEnded_) return false;
  }
  // The child is read outside mutex_, so that the consumer takes results meanwhile.
  bool got = false;
  std::exception_ptr error;
  try {
    got = childPass().next(input);
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (got) {
    sequence = taken_++;
    return true;
  }
  inputEnded_ = true;
  if (error) {
    Slot slot;
    slot.error = error;
    store(taken_++, std::move(slot));
  }
  // Wake the consumer (the pass may be over) and whichever worker waits for room.
  ready_.notify_one();
  room_.notify_all();
  return false;
}

void MultiThreadMapData::store(int64_t sequence, Slot slot) {
  const int64_t position = options_.ordered() ? sequence : finished_;
  ++finished_;
  Slot& target = ring_[static_cast<size_t>(position % options_.bufferSize())];
  TB_CHECK(!target.filled, "MultiThreadMapData: result ", position, " overwrites another");
  target = std::move(slot);
  target.filled = true;
}

void MultiThreadMapData::work() {
  try {
    Datapoint input;
    int64_t sequence = 0;
    while (takeInput(input, sequence)) {
      Slot slot;
      try {
        slot.point = function_(std::move(input));
        if (!slot.point && !options_.mayDrop()) throw CheckError(kDropped);
      } catch (...) {
        slot.error = std::current_exception();
      }
      input.clear();
      std::lock_guard<std::mutex> lock(mutex_);
      if (slot.error) {
        inputEnded_ = true;  // nothing after a failure; the results before it still come
        room_.notify_all();
      }
      store(sequence, std::move(slot));
      ready_.notify_one();
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
    Datapoint point;
    while (childPass().next(point)) {
      auto mapped = function_(std::move(point));
      if (mapped) {
        out = std::move(*mapped);
        return true;
      }
      TB_CHECK(options_.mayDrop(), kDropped);
    }
  } catch (...) {
    failed_ = true;  // as with workers: an error ends the pass
    throw;
  }
  return false;
}

bool MultiThreadMapData::nextPoint(Datapoint& out) {
  if (numThreads_ == 0) return nextInline(out);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!failed_) {
    Slot* slot = nullptr;
    ready_.wait(lock, [&] {
      slot = &ring_[static_cast<size_t>(delivered_ % options_.bufferSize())];
      return slot->filled || workerFailure_ || (inputEnded_ && delivered_ == taken_);
    });
    if (workerFailure_) {
      failed_ = true;
      std::rethrow_exception(workerFailure_);
    }
    if (!slot->filled) return false;  // every datapoint of the pass was delivered
    Slot taken = std::move(*slot);
    *slot = Slot{};
    ++delivered_;
    if (taken.error) failed_ = true;
    lock.unlock();
    room_.notify_one();  // only the worker holding inputMutex_ waits for room
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
