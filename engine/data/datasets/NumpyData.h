#pragma once
// NumpyClassificationData: labelled samples from two .npy files (NpyFile.h), a features array
// [N, D], [N, H, W] or [N, C, H, W] and an integer labels array [N].
//
// Datapoints are {features float32 [C, H, W] (a vector is [1, 1, D]), label int64 0-dim}, views
// into one tensor holding the set. uint8 features are scaled to [0, 1] (images, as IDX data);
// float and int64 features are taken as they are. The constructor reads both files and checks
// everything (dtypes, ranks, counts, labels >= 0), throwing InputError naming the file.

#include <torch/arg.h>

#include <string>
#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/data/datasets/TensorData.h"

namespace tbench {

class NumpyClassificationData : public TensorData {
 public:
  struct Options {
    /// Use only the first `limit` samples; 0 = all.
    TORCH_ARG(int64_t, limit) = 0;
    /// With shuffle, pass k visits the samples in an order drawn from mixSeed(seed, k).
    TORCH_ARG(bool, shuffle) = false;
    TORCH_ARG(uint64_t, seed) = 0;
  };

  NumpyClassificationData(std::string featuresPath, std::string labelsPath, Options options);

  std::optional<int64_t> size() const override { return features_.size(0); }
  int64_t numClasses() const { return numClasses_; }
  /// The shape of one sample: {C, H, W}.
  std::vector<int64_t> sampleShape() const;
  const torch::Tensor& features() const { return features_; }
  const torch::Tensor& labels() const { return labels_; }

 private:
  Options options_;
  torch::Tensor features_;  // float32 [N, C, H, W]
  torch::Tensor labels_;    // int64 [N]
  int64_t numClasses_ = 0;
};

}  // namespace tbench
