#include "engine/train/GanModelDesc.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

const char* roleName(GanRole role) {
  return role == GanRole::Generator ? "generator" : "discriminator";
}

torch::Tensor GanModelDesc::sampleNoise(int64_t count,
                                        c10::optional<at::Generator> generator) const {
  return torch::rand({count, noiseDim()}, generator, torch::kFloat32) * 2 - 1;
}

torch::Tensor GanModelDesc::discriminatorLoss(TowerContext& tower, const torch::Tensor& realLogits,
                                              const torch::Tensor& fakeLogits) {
  namespace F = torch::nn::functional;
  const auto lossReal =
      F::binary_cross_entropy_with_logits(realLogits, torch::ones_like(realLogits));
  const auto lossFake =
      F::binary_cross_entropy_with_logits(fakeLogits, torch::zeros_like(fakeLogits));
  {
    torch::NoGradGuard noGrad;
    // A logit above 0 says "real" (tensorpack's accuracy_real / accuracy_fake).
    tower.summary("accuracy_real", (realLogits > 0).to(torch::kFloat32).mean());
    tower.summary("accuracy_fake", (fakeLogits < 0).to(torch::kFloat32).mean());
  }
  return (lossReal + lossFake) * 0.5;
}

torch::Tensor GanModelDesc::generatorLoss(TowerContext&, const torch::Tensor& fakeLogits) {
  return torch::nn::functional::binary_cross_entropy_with_logits(fakeLogits,
                                                                 torch::ones_like(fakeLogits));
}

std::vector<torch::Tensor> GanModelDesc::parametersOf(torch::nn::Module& net, GanRole role) {
  const std::string name = roleName(role);
  for (const auto& child : net.named_children()) {
    if (child.key() == name) return child.value()->parameters();
  }
  std::string children;
  for (const auto& child : net.named_children()) children += " \"" + child.key() + "\"";
  TB_CHECK(false, "a GAN tower must have a submodule named \"", name,
           "\"; buildTower's module has:", children.empty() ? " none" : children);
  return {};
}

std::vector<InputSpec> GanModelDesc::inferenceInputs() const {
  return {{"noise", torch::kFloat32, {-1, noiseDim()}}};
}

std::map<std::string, torch::Tensor> GanModelDesc::inferenceOutputs(TowerContext&,
                                                                    torch::nn::Module& net,
                                                                    const Batch& batch) {
  return {{"samples", generate(net, batch["noise"])}};
}

}  // namespace tbench
