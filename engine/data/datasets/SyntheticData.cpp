#include "engine/data/datasets/SyntheticData.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>

#include "engine/core/Check.h"
#include "engine/data/SeededRng.h"

namespace tbench {

SyntheticData::SyntheticData() : SyntheticData(Options()) {}

SyntheticData::SyntheticData(Options options)
    : TensorData(options.shuffle(), options.seed()), options_(options) {
  const auto fail = [](const std::string& message) {
    throw InputError("synthetic data: " + message);
  };
  if (options_.numSamples() <= 0) {
    fail(str("numSamples must be positive, got ", options_.numSamples()));
  }
  if (options_.imageSize() <= 0 || options_.imageSize() > 4096) {
    fail(str("imageSize must be in 1..4096, got ", options_.imageSize()));
  }
  if (options_.numClasses() < 2) {
    fail(str("numClasses must be at least 2, got ", options_.numClasses()));
  }
  const int64_t pixels = options_.imageSize() * options_.imageSize();
  if (pixels < 62 && options_.numClasses() > (int64_t{1} << pixels)) {
    fail(str("numClasses ", options_.numClasses(), " exceeds the ", int64_t{1} << pixels,
             " distinct -1/+1 patterns of ", options_.imageSize(), "x", options_.imageSize(),
             " pixels"));
  }
  if (!std::isfinite(options_.noise()) || options_.noise() < 0) {
    fail(str("noise must be a non-negative number, got ", options_.noise()));
  }
  if (options_.limit() < 0) {
    fail(str("limit must be 0 (all samples) or positive, got ", options_.limit()));
  }
  numSamples_ = options_.limit() > 0 ? std::min(options_.limit(), options_.numSamples())
                                     : options_.numSamples();
}

void SyntheticData::onResetState() {
  // A private generator: the data depends on dataSeed alone, not on torch::manual_seed or on
  // whatever else drew random numbers before.
  auto generator = at::make_generator<at::CPUGeneratorImpl>(options_.dataSeed());
  const int64_t classes = options_.numClasses();
  const int64_t side = options_.imageSize();
  const int64_t pixels = side * side;

  // Redraw any pattern equal to an earlier one, so every class is learnable.
  torch::Tensor bits = torch::randint(0, 2, {classes, pixels}, generator, torch::kUInt8);
  std::set<std::string> seen;
  for (int64_t k = 0; k < classes; ++k) {
    for (;;) {
      const torch::Tensor row = bits[k].contiguous();
      const auto* begin = row.data_ptr<uint8_t>();
      if (seen.emplace(begin, begin + pixels).second) break;
      bits[k].copy_(torch::randint(0, 2, {pixels}, generator, torch::kUInt8));
    }
  }
  patterns_ = bits.to(torch::kFloat32).mul_(2).sub_(1).view({classes, 1, side, side});

  const int64_t total = options_.numSamples();
  auto samples = options_.sampleSeed() == 0 ? generator
                                            : at::make_generator<at::CPUGeneratorImpl>(mixSeed(
                                                  options_.dataSeed(), options_.sampleSeed()));
  torch::Tensor labels = torch::randint(0, classes, {total}, samples, torch::kInt64);
  torch::Tensor noise =
      torch::randn({total, 1, side, side}, samples, torch::kFloat32).mul_(options_.noise());
  labels_ = labels.narrow(0, 0, numSamples_).clone();
  images_ = patterns_.index_select(0, labels_).add_(noise.narrow(0, 0, numSamples_));
  setTensors({images_, labels_});
}

}  // namespace tbench
