#pragma once
// GanTrainer: trains a GanModelDesc by alternating its two costs (tensorpack's
// SeparateGANTrainer, examples/GAN/GAN.py), on one device or as synchronous replicas.
//
// Each step runs the model's schedule(): `discriminatorSteps` discriminator updates, each on its
// own batch of real images (one per tower) and fresh noise, then `generatorSteps` generator updates
// on fresh noise. An update is: zero every gradient, compute the role's cost on every tower,
// average the role's gradients over the towers (Communicator, as SyncReplicatedTrainer), and step
// the role's optimizer on every replica. Only the role's parameters change; the generated images of
// a discriminator update are computed without gradient. After every step the replicas take tower
// 0's buffers (Note [Buffers follow tower 0]); before training, tower 0's parameters and buffers.
//
// Scalars of each step: "d_loss" and "g_loss" (mean over towers and over the step's updates of
// that role), tower 0's summaries of its last discriminator update ("accuracy_real",
// "accuracy_fake"). "learning_rate" sets both optimizers.
//
// Differences from tensorpack: its GANTrainer runs the generator's update then the
// discriminator's on one batch; its SeparateGANTrainer runs them every d_period / g_period
// steps. Here the ratio is a count of updates per step, and every discriminator update reads
// its own batch (WGAN-style critic iterations), so a step consumes
// towers x discriminatorSteps batches.
//
// Note [Trainer state]: the two optimizers are checkpoint roles "generator" and
// "discriminator"; the update counters are extra state.
//
// Not done here: gradient clipping and "grad_norm" (SingleCostTrainer's GradientProcessing);
// launchTrainWithConfig refuses a config that asks this trainer to clip.

#include <array>
#include <functional>

#include "engine/comm/Communicator.h"
#include "engine/strategies/TowerWorkers.h"
#include "engine/train/GanModelDesc.h"
#include "engine/train/TowerTrainer.h"

namespace tbench {

/// One update, as the observer sees it (tests record the alternation with it).
struct GanUpdate {
  GanRole role = GanRole::Discriminator;
  int64_t step = 0;   ///< the global step being run (1 for the first)
  int64_t index = 0;  ///< the update's index among the step's updates of its role
};

class GanTrainer : public TowerTrainer {
 public:
  /// One tower per device; CheckError for an empty list.
  explicit GanTrainer(std::vector<Device> devices);
  ~GanTrainer() override;

  /// `model` must be a GanModelDesc (InputError otherwise) with a valid schedule().
  void setupGraph(InputSourcePtr input, ModelDescBasePtr model) override;
  torch::nn::Module& mainModule() override { return *replicas_.at(0); }
  torch::nn::Module& replica(int t) { return *replicas_.at(static_cast<size_t>(t)); }
  std::vector<OptimizerSlot> optimizerSlots() override;
  std::map<std::string, torch::Tensor> extraState() override;
  void restoreExtraState(const std::map<std::string, torch::Tensor>& state) override;
  int64_t batchesPerStep() const override { return numTowers() * schedule_.discriminatorSteps; }
  std::vector<std::string> progressScalars() const override { return {"d_loss", "g_loss"}; }
  const GanSchedule& schedule() const { return schedule_; }
  GanModelDesc& model() const { return *model_; }
  /// Updates done so far (restored on resume).
  int64_t discriminatorUpdates() const { return updates_[1]; }
  int64_t generatorUpdates() const { return updates_[0]; }
  /// Called before every update, on the engine thread. Before train().
  void setUpdateObserver(std::function<void(const GanUpdate&)> observer) {
    observer_ = std::move(observer);
  }

 protected:
  void runStep() override;

 private:
  class Broadcaster;
  /// One update of `role` on every tower; `batches` holds one batch per tower (discriminator)
  /// or is empty (generator). Returns the mean cost over towers.
  torch::Tensor update(GanRole role, const std::vector<Batch>& batches, int64_t index);
  std::vector<torch::Tensor>& params(GanRole role, int t);
  void broadcast(bool buffersOnly);

  GanSchedule schedule_;
  GanModelDescPtr model_;
  std::vector<std::unique_ptr<TowerContext>> towers_;
  std::vector<std::shared_ptr<torch::nn::Module>> replicas_;
  std::vector<torch::Device> torchDevices_;
  // Per tower, indexed by role (0 generator, 1 discriminator).
  std::vector<std::array<std::vector<torch::Tensor>, 2>> params_;
  std::vector<std::array<std::unique_ptr<torch::optim::Optimizer>, 2>> optimizers_;
  std::unique_ptr<TowerWorkers> workers_;
  std::unique_ptr<Communicator> communicator_;
  std::array<int64_t, 2> updates_{0, 0};
  int64_t batchSize_ = 0;                           // of the step's last discriminator batch
  std::map<std::string, torch::Tensor> summaries_;  // tower 0's, of the step being run
  std::function<void(const GanUpdate&)> observer_;
};

}  // namespace tbench
