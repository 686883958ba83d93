#pragma once
// Multi-tensor optimizers (issue 36): Adam, AdamW and SGD whose step updates all of a parameter
// group's tensors with ATen's _foreach_* ops, as PyTorch's `foreach=True` does, instead of one
// chain of small ops per parameter. On CUDA those ops launch one kernel per chunk of tensors
// (multi_tensor_apply) instead of several per parameter: the launches, not the arithmetic, are
// what a small model's update costs on a GPU. On the CPU, LibTorch 1.13 runs them as a loop of
// the per-tensor kernels, so the CPU keeps LibTorch's own loop (auto).
//
// Same options, state and archive as LibTorch's classes (they derive from them): a checkpoint of
// either loads into the other, optimizerTypeName says "adam"/"adamw"/"sgd", and param_groups'
// set_lr (schedules, plateau rules, a live learning-rate edit) works unchanged. The update is
// LibTorch 1.13's formula op for op (torch/csrc/api/src/optim/{adam,adamw,sgd}.cpp), so on the
// CPU it equals the per-parameter step exactly (tests/engine/train/test_ForeachOptimizers.cpp).
// amsgrad (not a project key) keeps the per-parameter step.
//
// Device learning rate (`deviceLearningRate`): the learning rate and the step count live in
// tensors on the parameters' device, and the update reads them there, as PyTorch's
// `capturable=True`: a step that a CUDA graph captures then replays with the current rate, and
// reads nothing back to the host. set_lr() still sets it: the new rate is copied into the
// tensor before the next step (no host read). The host step count in the state is kept too
// (checkpoints). Equal to the host-rate step within float rounding (1e-6), not bitwise: the
// bias corrections are computed in the parameters' dtype on the device.

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include <map>
#include <string>
#include <vector>

namespace tbench {

/// "optimizer.foreach": "auto" (multi-tensor when the parameters are on CUDA), "on", "off".
enum class ForeachMode { Auto, On, Off };
ForeachMode foreachModeOf(const std::string& text);
/// Whether `mode` uses the multi-tensor step for `params` (Auto: all on CUDA).
bool useForeach(ForeachMode mode, const std::vector<torch::Tensor>& params);

/// What the device-learning-rate mode keeps per parameter group.
struct DeviceRate {
  torch::Tensor lr;  ///< 0-dim, the group's dtype and device
  double hostLr = -1;
  std::map<const void*, torch::Tensor> steps;  ///< per parameter (its TensorImpl): 0-dim
};

class ForeachAdam : public torch::optim::Adam {
 public:
  ForeachAdam(std::vector<torch::Tensor> params, torch::optim::AdamOptions options,
              bool deviceLearningRate = false)
      : Adam(std::move(params), std::move(options)), deviceLr_(deviceLearningRate) {}
  torch::Tensor step(LossClosure closure = nullptr) override;
  /// The rate the update reads, of group `g` (device mode; undefined before the first step).
  torch::Tensor deviceLearningRate(size_t g) const;

 private:
  bool deviceLr_;
  std::vector<DeviceRate> rates_;
};

class ForeachAdamW : public torch::optim::AdamW {
 public:
  ForeachAdamW(std::vector<torch::Tensor> params, torch::optim::AdamWOptions options,
               bool deviceLearningRate = false)
      : AdamW(std::move(params), std::move(options)), deviceLr_(deviceLearningRate) {}
  torch::Tensor step(LossClosure closure = nullptr) override;

 private:
  bool deviceLr_;
  std::vector<DeviceRate> rates_;
};

class ForeachSGD : public torch::optim::SGD {
 public:
  ForeachSGD(std::vector<torch::Tensor> params, torch::optim::SGDOptions options,
             bool deviceLearningRate = false)
      : SGD(std::move(params), std::move(options)), deviceLr_(deviceLearningRate) {}
  torch::Tensor step(LossClosure closure = nullptr) override;

 private:
  void sgdGroup(size_t g);

  bool deviceLr_;
  std::vector<DeviceRate> rates_;
};

}  // namespace tbench
