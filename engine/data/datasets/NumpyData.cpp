#include "engine/data/datasets/NumpyData.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

#include "engine/core/Check.h"
#include "engine/data/SeededRng.h"
#include "engine/data/formats/NpyFile.h"

namespace tbench {

namespace {

std::string shapeText(const torch::Tensor& t) {
  std::string text;
  for (int64_t d : t.sizes()) text += (text.empty() ? "" : ", ") + std::to_string(d);
  return "(" + text + ")";
}

}  // namespace

NumpyClassificationData::NumpyClassificationData(std::string featuresPath, std::string labelsPath,
                                                 Options options)
    : TensorData(options.shuffle(), options.seed()), options_(options) {
  torch::Tensor features = readNpyFile(featuresPath);
  torch::Tensor labels = readNpyFile(labelsPath);
  if (features.dim() < 2 || features.dim() > 4) {
    throw InputError(str(featuresPath, ": features of shape ", shapeText(features),
                         " (expected [N, D], [N, H, W] or [N, C, H, W])"));
  }
  if (labels.dim() != 1) {
    throw InputError(str(labelsPath, ": labels of shape ", shapeText(labels), " (expected [N])"));
  }
  if (labels.scalar_type() != torch::kInt64 && labels.scalar_type() != torch::kUInt8) {
    throw InputError(tbench::str(labelsPath, ": labels are ", c10::toString(labels.scalar_type()),
                                 "; class labels must be integers (int64 or uint8)"));
  }
  if (features.size(0) != labels.size(0)) {
    throw InputError(str(featuresPath, " has ", features.size(0), " samples but ", labelsPath,
                         " has ", labels.size(0), " labels"));
  }
  if (features.size(0) == 0) throw InputError(str(featuresPath, ": no samples"));
  labels = labels.to(torch::kInt64);
  const int64_t smallest = labels.min().item<int64_t>();
  if (smallest < 0) {
    const int64_t index = (labels < 0).nonzero().index({0, 0}).item<int64_t>();
    throw InputError(str(labelsPath, ": label ", index, " is ", labels[index].item<int64_t>(),
                         " (labels must be >= 0)"));
  }
  const int64_t count =
      options_.limit() > 0 ? std::min(options_.limit(), features.size(0)) : features.size(0);
  if (features.dim() == 2) features = features.unsqueeze(1).unsqueeze(1);  // [N, 1, 1, D]
  if (features.dim() == 3) features = features.unsqueeze(1);               // [N, 1, H, W]
  const bool bytes = features.scalar_type() == torch::kUInt8;
  features_ = features.narrow(0, 0, count).to(torch::kFloat32).contiguous();
  if (bytes) features_.div_(255.0f);
  labels_ = labels.narrow(0, 0, count).clone();
  numClasses_ = labels_.max().item<int64_t>() + 1;
  if (numClasses_ < 2) {
    throw InputError(str(labelsPath, ": every label is 0 (a classifier needs 2 classes or more)"));
  }
  setTensors({features_, labels_});
}

std::vector<int64_t> NumpyClassificationData::sampleShape() const {
  return {features_.size(1), features_.size(2), features_.size(3)};
}

}  // namespace tbench
