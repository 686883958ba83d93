#include "engine/strategies/TowerWorkers.h"

#include <algorithm>
#include <utility>

#include "engine/core/Check.h"

namespace tbench {

TowerWorkers::TowerWorkers(const std::vector<Device>& towerDevices)
    : towers_(static_cast<int>(towerDevices.size())), errors_(towerDevices.size()) {
  TB_CHECK(towers_ >= 1, "at least one tower, got ", towers_);
  std::vector<Device> devices;
  for (int t = 0; t < towers_; ++t) {
    const Device& device = towerDevices[static_cast<size_t>(t)];
    const auto it = std::find(devices.begin(), devices.end(), device);
    if (it == devices.end()) {
      devices.push_back(device);
      groups_.push_back({t});
    } else {
      groups_[static_cast<size_t>(it - devices.begin())].push_back(t);
    }
  }
  if (groups_.size() == 1) return;  // Note [One thread per device]: the calling thread
  try {
    for (size_t g = 0; g < groups_.size(); ++g) threads_.emplace_back([this, g] { loop(g); });
  } catch (...) {
    shutDown();  // the threads already started must not outlive a failed constructor
    throw;
  }
}

TowerWorkers::~TowerWorkers() { shutDown(); }

void TowerWorkers::shutDown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
  }
  start_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void TowerWorkers::runGroup(size_t g, const std::function<void(int)>& work) {
  // Each tower's outcome is written only by the thread of its group, and read by run() after
  // every group finished (under mutex_ when there are threads).
  for (int tower : groups_[g]) {
    try {
      work(tower);
      errors_[static_cast<size_t>(tower)] = nullptr;
    } catch (...) {
      errors_[static_cast<size_t>(tower)] = std::current_exception();
    }
  }
}

void TowerWorkers::run(const std::function<void(int tower)>& work) {
  if (threads_.empty()) {
    runGroup(0, work);
  } else {
    std::unique_lock<std::mutex> lock(mutex_);
    work_ = &work;
    pending_ = static_cast<int>(groups_.size());
    ++generation_;
    start_.notify_all();
    done_.wait(lock, [&] { return pending_ == 0; });
    work_ = nullptr;
  }
  for (auto& error : errors_) {
    if (error) std::rethrow_exception(std::exchange(error, nullptr));
  }
}

void TowerWorkers::loop(size_t group) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    start_.wait(lock, [&] { return shutdown_ || generation_ != seen; });
    if (shutdown_) return;
    seen = generation_;
    const auto* work = work_;
    lock.unlock();
    runGroup(group, *work);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

}  // namespace tbench
