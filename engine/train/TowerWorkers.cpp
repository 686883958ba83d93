#include "engine/train/TowerWorkers.h"

#include "engine/core/Check.h"

namespace tbench {

TowerWorkers::TowerWorkers(int towers) : towers_(towers), errors_(towers) {
  TB_CHECK(towers_ >= 1, "at least one tower, got ", towers_);
  if (towers_ == 1) return;
  for (int t = 0; t < towers_; ++t) threads_.emplace_back([this, t] { loop(t); });
}

TowerWorkers::~TowerWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
  }
  start_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void TowerWorkers::run(const std::function<void(int tower)>& work) {
  if (towers_ == 1) {
    work(0);
    return;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  work_ = &work;
  pending_ = towers_;
  std::fill(errors_.begin(), errors_.end(), nullptr);
  ++generation_;
  start_.notify_all();
  done_.wait(lock, [&] { return pending_ == 0; });
  work_ = nullptr;
  for (auto& error : errors_) {
    if (error) std::rethrow_exception(error);
  }
}

void TowerWorkers::loop(int tower) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    start_.wait(lock, [&] { return shutdown_ || generation_ != seen; });
    if (shutdown_) return;
    seen = generation_;
    const auto* work = work_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*work)(tower);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    errors_[tower] = error;
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace tbench
