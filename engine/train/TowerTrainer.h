#pragma once
// TowerTrainer: a trainer whose model is built as towers (one replica per device) from a
// ModelDesc, fed by an InputSource (tensorpack's TowerTrainer).

#include "engine/input/InputSource.h"
#include "engine/train/ModelDesc.h"
#include "engine/train/Trainer.h"

namespace tbench {

class TowerTrainer : public Trainer {
 public:
  /// The devices of the training towers, in tower order.
  const std::vector<Device>& devices() const { return devices_; }
  int numTowers() const { return static_cast<int>(devices_.size()); }
  int64_t samplesPerStep() const override { return samplesPerStep_; }
  /// The replica of the main tower (tower 0): the one checkpoints are taken from.
  virtual torch::nn::Module& mainModule() = 0;
  /// The optimizer whose state checkpoints keep (tower 0's), or null.
  virtual torch::optim::Optimizer* mainOptimizer() = 0;
  /// The project JSON text stored in checkpoints.
  void setProjectText(std::string text) { projectText_ = std::move(text); }
  /// The checkpoints' "data" entry (Checkpoint.h).
  void setDataText(std::string text) { dataText_ = std::move(text); }

  void saveCheckpoint(const std::string& path) override;
  std::map<std::string, torch::Tensor> runInference(const Datapoint& datapoint) override;
  std::vector<std::pair<std::string, torch::Tensor>> parameters() override;
  InputSource& input() const { return *input_; }
  ModelDesc& model() const { return *model_; }

 protected:
  explicit TowerTrainer(std::vector<Device> devices);
  /// Remembers the input and model and adds the input's callbacks.
  void attach(InputSourcePtr input, ModelDescPtr model);
  /// Queues the tower's summaries as scalars of the step being run (see putStepScalar).
  void putSummaries(TowerContext& tower);
  /// A scalar of the step being run ("cost"), put once the step is counted (onStepCounted).
  void putStepScalar(std::string name, double value) {
    pendingScalars_.emplace_back(std::move(name), value);
  }
  void onStepCounted() override;
  void setSamplesPerStep(int64_t samples) { samplesPerStep_ = samples; }

 private:
  std::vector<Device> devices_;
  InputSourcePtr input_;
  ModelDescPtr model_;
  int64_t samplesPerStep_ = 0;
  std::vector<std::pair<std::string, double>> pendingScalars_;
  std::string projectText_;
  std::string dataText_;
  // The inference tower, built on first use; its weights are copied from the main tower
  // whenever the global step moved since the last copy.
  std::unique_ptr<TowerContext> inferenceTower_;
  std::shared_ptr<torch::nn::Module> inferenceModule_;
  int64_t inferenceWeightsStep_ = -1;
};

}  // namespace tbench
