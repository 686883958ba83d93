#pragma once
// TowerWorkers: one persistent thread per tower (the same thread every step), so that towers
// run concurrently and each device is always driven from the same thread.
//
// run(work) calls work(tower) on every tower's thread and returns when all have finished. The
// first exception thrown by any tower (in tower order) is rethrown on the calling thread after
// all towers finished the step, with its original type and message. With one tower, work runs
// on the calling thread. Engine thread only.

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tbench {

class TowerWorkers {
 public:
  explicit TowerWorkers(int towers);
  ~TowerWorkers();
  TowerWorkers(const TowerWorkers&) = delete;
  TowerWorkers& operator=(const TowerWorkers&) = delete;

  int size() const { return towers_; }
  void run(const std::function<void(int tower)>& work);

 private:
  void loop(int tower);

  int towers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;  // guards work_, generation_, pending_, errors_, shutdown_
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int)>* work_ = nullptr;
  uint64_t generation_ = 0;
  int pending_ = 0;
  std::vector<std::exception_ptr> errors_;
  bool shutdown_ = false;
};

}  // namespace tbench
