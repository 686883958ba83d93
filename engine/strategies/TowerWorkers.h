#pragma once
// TowerWorkers: runs a step's work for every tower, one thread per device (the same thread
// every step), as docs/ARCHITECTURE.md prescribes for in-process towers.
//
// Note [One thread per device]: towers that share a device run one after another, in tower
// order, on that device's thread; towers on different devices run concurrently. Several CPU
// towers therefore share the engine thread and each uses every intra-op thread, instead of
// N threads with N OpenMP teams competing for the same cores (measured on 2 cores: two CPU
// towers on a thread each made an MLP step 3-6x slower than one tower on the whole batch).
//
// run(work) calls work(tower) for every tower and returns when all have finished. A tower
// that throws does not stop the others; the first exception in tower order is rethrown on the
// calling thread after all towers finished the step, with its original type and message. When
// every tower is on one device, the work runs on the calling thread. Engine thread only.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/Device.h"

namespace tbench {

class TowerWorkers {
 public:
  /// `towerDevices[t]` is the device of tower t; at least one tower.
  explicit TowerWorkers(const std::vector<Device>& towerDevices);
  ~TowerWorkers();
  TowerWorkers(const TowerWorkers&) = delete;
  TowerWorkers& operator=(const TowerWorkers&) = delete;

  int size() const { return towers_; }
  /// Distinct devices, i.e. groups of towers that run one after another.
  int deviceCount() const { return static_cast<int>(groups_.size()); }
  void run(const std::function<void(int tower)>& work);

 private:
  /// Runs work for the towers of group `g` in order, recording each tower's exception.
  void runGroup(size_t g, const std::function<void(int)>& work);
  void loop(size_t group);
  /// Stops and joins every thread started so far.
  void shutDown();

  int towers_;
  std::vector<std::vector<int>> groups_;  ///< the towers of each distinct device, in order
  std::vector<std::thread> threads_;      ///< one per group when there are several
  std::mutex mutex_;                      // guards work_, generation_, pending_, errors_, shutdown_
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int)>* work_ = nullptr;
  uint64_t generation_ = 0;
  int pending_ = 0;
  std::vector<std::exception_ptr> errors_;  ///< per tower
  bool shutdown_ = false;
};

}  // namespace tbench
