#pragma once
// SyntheticData: an image classification set that trains in seconds, for tests, demos and
// benchmarks that must not depend on a download.
//
// Class k has a fixed pattern of -1/+1 pixels [1, S, S], distinct from every other class's.
// A sample is pattern[label] + noise * N(0, 1) with a label drawn uniformly. Everything is
// drawn from `dataSeed` in resetState(), so the same options give the same data on every run
// (with the same LibTorch build). Datapoints have FashionMnist's form: {image float32
// [1, S, S], label int64 scalar}, views into one tensor (read-only for the consumer).
//
// With noise 0.5 the classes are far apart (two patterns differ in about half their pixels),
// so a small MLP reaches near-zero training error within a few hundred steps.

#include <torch/arg.h>

#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/data/datasets/TensorData.h"

namespace tbench {

class SyntheticData : public TensorData {
 public:
  struct Options {
    TORCH_ARG(int64_t, numSamples) = 2048;
    /// Images are imageSize x imageSize.
    TORCH_ARG(int64_t, imageSize) = 8;
    TORCH_ARG(int64_t, numClasses) = 4;
    /// Standard deviation of the Gaussian noise added to the pattern.
    TORCH_ARG(double, noise) = 0.5;
    /// Seeds the patterns, labels and noise.
    TORCH_ARG(uint64_t, dataSeed) = 1;
    /// 0: samples drawn right after the patterns from dataSeed. Otherwise the samples (labels
    /// and noise) come from their own generator, so that a validation set can share the
    /// training set's patterns (same dataSeed) with different samples.
    TORCH_ARG(uint64_t, sampleSeed) = 0;
    /// With shuffle, pass k visits the samples in an order drawn from mixSeed(seed, k).
    TORCH_ARG(bool, shuffle) = false;
    TORCH_ARG(uint64_t, seed) = 0;
    /// Use only the first `limit` samples; 0 = all.
    TORCH_ARG(int64_t, limit) = 0;
  };

  /// Throws InputError for options out of range (non-positive sizes, fewer than 2 classes,
  /// more classes than distinct patterns, negative or non-finite noise).
  SyntheticData();
  explicit SyntheticData(Options options);

  std::optional<int64_t> size() const override { return numSamples_; }
  int64_t numClasses() const { return options_.numClasses(); }
  /// The shape of one image: {1, S, S}.
  std::vector<int64_t> imageShape() const {
    return {1, options_.imageSize(), options_.imageSize()};
  }
  /// The class patterns, float32 [K, 1, S, S] of -1/+1. Undefined before resetState().
  const torch::Tensor& patterns() const { return patterns_; }
  /// float32 [N, 1, S, S]. Undefined before resetState().
  const torch::Tensor& images() const { return images_; }
  /// int64 [N]. Undefined before resetState().
  const torch::Tensor& labels() const { return labels_; }

 protected:
  /// Draws the patterns and samples; the samples are (images[i], labels[i]) (TensorData).
  void onResetState() override;

 private:
  Options options_;
  int64_t numSamples_;
  torch::Tensor patterns_;
  torch::Tensor images_;
  torch::Tensor labels_;
};

}  // namespace tbench
