#pragma once
// AsyncTrainer (tensorpack's AsyncMultiGPUTrainer): every tower refreshes its replica from the
// shared master, computes its gradient and applies it, scaled by 1/N, to the master as soon as
// it is done, without waiting for the other towers. Updates are serialised by a lock, so none
// is lost; across devices their order follows the towers' timing, so such runs are not
// bitwise reproducible. Towers that share a device run one after another (Note [One thread per
// device]): tower t then starts from the master as towers < t of the same step left it, i.e.
// plain sequential updates on 1/N-scaled gradients, reproducible, with no stale gradient. The
// loop's step boundary still joins the towers (callbacks see a consistent master). Checkpoints are
// taken from the master.

#include <mutex>

#include "engine/strategies/MultiTowerTrainer.h"

namespace tbench {

class AsyncTrainer : public MultiTowerTrainer {
 public:
  explicit AsyncTrainer(std::vector<Device> devices, Device masterDevice = Device{});
  torch::nn::Module& mainModule() override { return *master_; }
  std::vector<torch::optim::Optimizer*> optimizers() override { return {optimizer_.get()}; }
  /// Updates applied to the master so far (towers × steps when none was lost).
  int64_t updatesApplied() const { return updates_; }

 protected:
  void buildTowers() override;
  void runStep() override;

 private:
  Device masterDevice_;
  std::shared_ptr<torch::nn::Module> master_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::mutex masterMutex_;  // guards master_'s values and gradients, optimizer_, updates_
  int64_t updates_ = 0;
};

}  // namespace tbench
