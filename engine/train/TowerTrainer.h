#pragma once
// TowerTrainer: a trainer whose model is built as towers (one replica per device) from a model
// description, fed by an InputSource (tensorpack's TowerTrainer). SingleCostTrainer and
// GanTrainer derive from it; docs/WRITE-A-TRAINER.md walks through writing another.
//
// Note [Trainer state]: what a trainer owns (its main module, every optimizer by role, the
// generator state, hyper-parameters, callbacks' state and its own extra state) is captured
// and restored as a whole by captureTrainingState / restoreTrainingState, so a trainer with
// several optimizers resumes exactly like a single-cost one. Derived trainers declare what they
// own (optimizerSlots, extraState) and nothing else.

#include "engine/checkpoint/Checkpoint.h"
#include "engine/core/Stopwatch.h"
#include "engine/input/InputSource.h"
#include "engine/train/ModelDesc.h"
#include "engine/train/ParamGroups.h"
#include "engine/train/SpeedSettings.h"
#include "engine/train/Trainer.h"

namespace tbench {

class TowerTrainer : public Trainer {
 public:
  /// The optimizers of one role, on every tower that has its own (tower 0's first).
  struct OptimizerSlot {
    /// "" for a single-cost trainer's one optimizer (the checkpoint's "optimizer" entry);
    /// otherwise the role, e.g. "generator" (an entry of the checkpoint's "optimizers").
    std::string role;
    std::vector<torch::optim::Optimizer*> copies;
  };

  /// Once, before train(): sets `input` up with the model's inputs, builds the towers and the
  /// optimizers. Throws InputError when `model` is not a description this trainer trains.
  virtual void setupGraph(InputSourcePtr input, ModelDescBasePtr model) = 0;

  /// The devices of the training towers, in tower order.
  const std::vector<Device>& devices() const { return devices_; }
  int numTowers() const { return static_cast<int>(devices_.size()); }
  int64_t samplesPerStep() const override { return samplesPerStep_; }
  /// Note [Step scalars read in batches]: read them after at most `steps` steps or `seconds`
  /// since the last read (whichever comes first; 0 seconds: no time limit), and at every
  /// epoch's last step. Before train(). Default: 50 steps, 1 s.
  void setStepScalarReads(int64_t steps, double seconds);
  /// The project's "speed" settings that act on towers (channels-last); before setupGraph.
  void setSpeedSettings(SpeedSettings settings) { speed_ = std::move(settings); }
  /// Whether the towers hold their convolution weights and take image batches in
  /// channels-last order (decided when the first tower is made).
  bool channelsLast() const { return channelsLast_; }
  /// "trainer.ema_decay" (Note [Weight average]): `decay` in (0, 1) keeps an exponential
  /// moving average of the main module's parameters; 0 turns it off. Before train().
  void setWeightAverage(double decay);
  double weightAverageDecay() const { return emaDecay_; }
  /// The averaged parameters (name, tensor), empty when off or before training starts.
  const std::vector<std::pair<std::string, torch::Tensor>>& weightAverage() const { return ema_; }
  /// "optimizer.param_groups" (ParamGroups.h): every replica makeTower makes freezes what it
  /// says; a single-cost trainer groups its optimizer by it. Before setupGraph().
  void setParamGroups(ParamGroupSettings settings);
  const ParamGroupSettings& paramGroups() const { return paramGroups_; }
  /// The replica of the main tower (tower 0): the one checkpoints are taken from. Holds every
  /// network of the model (a GAN's generator and discriminator as submodules).
  virtual torch::nn::Module& mainModule() = 0;
  /// Every optimizer, by role: checkpoints save each role's first copy, resuming restores it
  /// into every copy.
  virtual std::vector<OptimizerSlot> optimizerSlots() = 0;
  /// What else the trainer owns that resuming must restore (counters, a gradient scaler), by
  /// name; the checkpoint's "trainer_state". Default: nothing.
  virtual std::map<std::string, torch::Tensor> extraState() { return {}; }
  /// Restores extraState(); InputError when `state` lacks what the trainer needs.
  virtual void restoreExtraState(const std::map<std::string, torch::Tensor>& state) {}
  /// Batches one step takes from the input (a resumed run skips globalStep() times this).
  virtual int64_t batchesPerStep() const { return numTowers(); }
  /// Processes that train together, each taking batchesPerStep() batches a step (distributed
  /// ranks); 1 in one process.
  virtual int64_t worldSize() const { return 1; }
  /// The scalars a progress bar shows by default.
  virtual std::vector<std::string> progressScalars() const { return {"cost"}; }

  /// Note [Trainer state]: everything a checkpoint keeps, now.
  TrainingState captureTrainingState();
  /// Restores all of `state` (model, every optimizer, RNG, hyper-parameters, callbacks, extra
  /// state). Throws InputError naming the file when it does not fit this trainer. Before
  /// train(), after setupGraph().
  void restoreTrainingState(const TrainingState& state);

  /// The project JSON text stored in checkpoints.
  void setProjectText(std::string text) { projectText_ = std::move(text); }
  const std::string& projectText() const { return projectText_; }
  /// The checkpoints' "data" entry (Checkpoint.h).
  void setDataText(std::string text) { dataText_ = std::move(text); }

  void saveCheckpoint(const std::string& path) override;
  std::map<std::string, torch::Tensor> runInference(const Datapoint& datapoint) override;
  std::vector<std::pair<std::string, torch::Tensor>> parameters() override;
  InputSource& input() const { return *input_; }
  ModelDescBase& modelDesc() const { return *model_; }
  bool isGraphSetUp() const { return model_ != nullptr; }

 protected:
  explicit TowerTrainer(std::vector<Device> devices);
  /// Remembers the input and model and adds the input's callbacks.
  void attach(InputSourcePtr input, ModelDescBasePtr model);
  /// Queues the tower's summaries as scalars of the step being run (see putStepScalar).
  void putSummaries(TowerContext& tower);
  /// A scalar of the step being run ("cost"), put once the step is counted (onStepCounted).
  void putStepScalar(std::string name, double value) {
    pendingScalars_.push_back({std::move(name), value, {}});
  }
  /// A scalar of the step being run, as a one-element tensor where it was computed: kept there
  /// and read with the others in one batch (Note [Step scalars read in batches]).
  void putStepScalar(std::string name, torch::Tensor value);
  void onStepCounted() override;
  /// Starts the weight average from the parameters (after init and a resume, before the first
  /// step); a derived trainer that changes the parameters in its own initialize() calls this
  /// after doing so.
  void initialize() override;
  void readStepScalars() override;
  void setSamplesPerStep(int64_t samples) { samplesPerStep_ = samples; }
  /// Note [One tower maker]: every replica of the model (training towers, a parameter
  /// server's or async master, the inference tower) is made here: the device checked
  /// (requireAvailable), the model's buildTower(tower), the module moved to the tower's
  /// device. With `keepGenerator` its initial draws leave the CPU generator where it was (for
  /// a replica whose weights are overwritten at once, drawn at a step that differs between a
  /// run and its resume).
  /// With param groups set, the replica's frozen parameters have requires_grad off.
  std::shared_ptr<torch::nn::Module> makeTower(const TowerContext& tower,
                                               bool keepGenerator = false);
  /// module.train(), then eval() for its frozen BatchNorm layers (ParamGroups.h). Every step
  /// of a strategy puts its replicas in training mode with this. Thread-safe across replicas.
  void enterTrainMode(torch::nn::Module& module);
  /// The one way a step takes its batches: one per entry of `devices` (a tower's device, in
  /// tower order), each from input() and moved there. The first call sets samplesPerStep() to
  /// the first batch's size × batchesPerStep() × worldSize().
  std::vector<Batch> takeBatches(const std::vector<torch::Device>& devices);
  /// The inference tower copies the main tower's weights and buffers again at its next use
  /// (after they changed within a step: a distributed trainer's buffer broadcast).
  void invalidateInferenceTower() { inferenceWeightsStep_ = -1; }

 private:
  std::vector<Device> devices_;
  InputSourcePtr input_;
  ModelDescBasePtr model_;
  int64_t samplesPerStep_ = 0;
  struct StepScalar {
    std::string name;
    double value = 0;      // when `tensor` is undefined
    torch::Tensor tensor;  // a one-element tensor not yet read
  };
  std::vector<StepScalar> pendingScalars_;  // of the step being run
  struct StepScalars {
    MetricStamp stamp;
    std::vector<StepScalar> scalars;
  };
  std::vector<StepScalars> unread_;  // steps counted, their scalars not yet put
  SpeedSettings speed_;
  ParamGroupSettings paramGroups_;
  double emaDecay_ = 0;
  std::vector<std::pair<std::string, torch::Tensor>> ema_;
  std::vector<torch::Tensor> emaSources_;  // the main module's parameter of each ema_ entry
  void updateWeightAverage();
  void restoreWeightAverage(const TrainingState& state);
  // Per replica made by makeTower: its frozen BatchNorm layers (read-only once built).
  std::map<const torch::nn::Module*, std::vector<std::shared_ptr<torch::nn::Module>>> frozenNorms_;
  bool channelsLast_ = false;
  bool channelsLastDecided_ = false;
  int64_t readEverySteps_ = 50;
  double readEverySeconds_ = 1.0;
  Stopwatch sinceRead_;
  std::string projectText_;
  std::string dataText_;
  // The inference tower, built on first use; its weights are copied from the main tower
  // whenever the global step moved since the last copy.
  std::unique_ptr<TowerContext> inferenceTower_;
  std::shared_ptr<torch::nn::Module> inferenceModule_;
  int64_t inferenceWeightsStep_ = -1;
};

}  // namespace tbench
