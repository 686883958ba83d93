#pragma once
// GanModelDesc: what a user writes to train a generative adversarial network with GanTrainer
// (tensorpack's GANModelDesc, examples/GAN/GAN.py).
//
//  - buildTower(tower): ONE module holding both networks as submodules registered under the
//    names "generator" and "discriminator"; checkpoints therefore name their tensors
//    "generator.*" and "discriminator.*", and each role's optimizer gets the parameters of its
//    submodule (parametersOf).
//  - noiseDim() / sampleNoise(n): the generator's input. The trainer draws the noise on the
//    engine thread from LibTorch's CPU generator, so a run is reproducible and resumes exactly
//    whatever the towers (Note [Trainer state]).
//  - generate(net, noise): images in the data's range (a batch like the data's first input).
//  - discriminate(net, images): one logit per image, [N].
//  - discriminatorLoss / generatorLoss: by default tensorpack's build_losses: the discriminator
//    minimises the mean of sigmoid cross-entropy on real (label 1) and fake (label 0) logits and
//    reports "accuracy_real" and "accuracy_fake" as summaries; the generator minimises the
//    non-saturating cross-entropy of fake logits against label 1.
//  - optimizer(role, params): one optimizer per role.
//  - schedule(): how many updates of each network a step runs (part of the recipe: WGAN's
//    critic takes 5 per generator update); default one each, discriminator first.
// The inference tower takes noise ([N, noiseDim()], input "noise") and outputs "samples".
// Called on the engine thread, or on a tower's worker thread for generate/discriminate/losses.

#include "engine/train/ModelDesc.h"

namespace tbench {

enum class GanRole { Generator, Discriminator };

/// "generator" or "discriminator": the submodule's name and the optimizer's checkpoint role.
const char* roleName(GanRole role);

/// Updates per training step (GanTrainer).
struct GanSchedule {
  int64_t discriminatorSteps = 1;  ///< >= 1, each on its own batch
  int64_t generatorSteps = 1;      ///< >= 1
};

class GanModelDesc : public ModelDescBase {
 public:
  virtual GanSchedule schedule() const { return {}; }
  virtual int64_t noiseDim() const = 0;
  /// [count, noiseDim()] float32 on the CPU, drawn from `generator` (default: LibTorch's CPU
  /// generator); default uniform in [-1, 1).
  virtual torch::Tensor sampleNoise(int64_t count,
                                    c10::optional<at::Generator> generator = c10::nullopt) const;
  virtual torch::Tensor generate(torch::nn::Module& net, const torch::Tensor& noise) = 0;
  virtual torch::Tensor discriminate(torch::nn::Module& net, const torch::Tensor& images) = 0;
  /// The real images of a data batch; default its first input.
  virtual torch::Tensor realImages(const Batch& batch) const { return batch.tensors().front(); }
  virtual std::unique_ptr<torch::optim::Optimizer> optimizer(GanRole role,
                                                             std::vector<torch::Tensor> params) = 0;
  virtual torch::Tensor discriminatorLoss(TowerContext& tower, const torch::Tensor& realLogits,
                                          const torch::Tensor& fakeLogits);
  virtual torch::Tensor generatorLoss(TowerContext& tower, const torch::Tensor& fakeLogits);

  /// The parameters of `role`: those of net's submodule named roleName(role). CheckError when
  /// buildTower made no such submodule.
  static std::vector<torch::Tensor> parametersOf(torch::nn::Module& net, GanRole role);

  std::vector<InputSpec> inferenceInputs() const override;
  std::map<std::string, torch::Tensor> inferenceOutputs(TowerContext& tower, torch::nn::Module& net,
                                                        const Batch& batch) override;
  std::vector<std::string> inferenceOutputNames() const override { return {"samples"}; }
};

using GanModelDescPtr = std::shared_ptr<GanModelDesc>;

}  // namespace tbench
