#pragma once
// Loss: what a supervised model minimises, shared by the built-in models (SupervisedModel) and
// TorchScript models (ScriptModel).
//
//  - CrossEntropy: outputs [N, K] are class logits, the second input "label" is int64 [N]. Every
//    step reports "train_error" (the fraction of the batch misclassified); validation outputs
//    "cost" and, per sample, "wrong" (float 1/0), "prediction" (int64 argmax), "label" (int64)
//    and "logits" [N, K]: ScalarStats, ClassificationError and ConfusionMatrix consume them.
//  - MeanSquaredError: outputs [N, T] (or [N] when T = 1), the second input "target" is
//    float32 [N, T]. Validation outputs "cost".
//  - Scalar (TorchScript only): the module's forward(input, label) returns the cost itself.

#include <torch/types.h>

#include <map>
#include <string>
#include <vector>

#include "engine/input/InputSpec.h"
#include "engine/train/TowerContext.h"

namespace tbench {

enum class Loss { CrossEntropy, MeanSquaredError, Scalar };

/// "cross_entropy", "mse", "scalar" (the project file's names).
const char* lossName(Loss loss);
/// Throws InputError for another name.
Loss parseLoss(const std::string& name);

/// The spec of the second input (the label or target) for `loss` over `targets` targets.
InputSpec targetSpec(Loss loss, int64_t targets);

/// The cost of `outputs` against the batch's `target` (CrossEntropy or MeanSquaredError); for
/// CrossEntropy on the main tower it also reports "train_error".
torch::Tensor lossOf(Loss loss, TowerContext& tower, const torch::Tensor& outputs,
                     const torch::Tensor& target);
/// What validation sees for one batch: {"cost"} and, for CrossEntropy, {"wrong", "prediction",
/// "label", "logits"}.
std::map<std::string, torch::Tensor> lossOutputs(Loss loss, const torch::Tensor& outputs,
                                                 const torch::Tensor& target);
/// The names lossOutputs returns.
std::vector<std::string> lossOutputNames(Loss loss);

/// The fraction of rows of `logits` [N, K] whose first largest entry is not at `labels` [N]
/// (argmax semantics: ties go to the lower class, NaN counts as largest), as a 0-dim float
/// tensor without gradient.
torch::Tensor topOneError(const torch::Tensor& logits, const torch::Tensor& labels);

}  // namespace tbench
