#pragma once
// TensorData: a DataFlow over tensors that share their first dimension, as PyTorch's
// TensorDataset: sample i is {t[i] for every tensor t}. A pass visits the samples in a PassOrder
// (in order, or shuffled from the seed pass by pass); a stacked read takes the next n samples
// with one index_select a tensor (Note [Stacked reads]). The sources that hold their samples in
// memory derive from it and hand it their tensors once loaded: IdxClassificationData
// (FashionMnist), NumpyClassificationData, SyntheticData and CsvData.

#include <cstdint>
#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/data/PassOrder.h"

namespace tbench {

class TensorData : public DataFlow {
 protected:
  /// With `shuffle`, pass k visits the samples in an order drawn from mixSeed(seed, k).
  TensorData(bool shuffle, uint64_t seed) : order_(shuffle, seed) {}

  /// The samples' tensors, each [N, ...] with the same N (the tensors are shared, not copied);
  /// set before the first pass, by the constructor or onResetState(). CheckError when their
  /// lengths differ.
  void setTensors(std::vector<torch::Tensor> tensors);

  void startPass() override;
  bool nextPoint(Datapoint& out) override;
  int64_t nextStackedPoints(int64_t n, Datapoint& out) override;

 private:
  std::vector<torch::Tensor> tensors_;
  PassOrder order_;
};

}  // namespace tbench
