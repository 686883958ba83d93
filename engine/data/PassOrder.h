#pragma once
// PassOrder: the order in which an in-memory DataFlow visits its n samples in one pass, shared
// by DataFromList, TensorData (the IDX, NumPy, CSV and synthetic sources), ImageFolderData and
// ResidentInput. Without
// shuffle it is 0..n-1; with shuffle, pass k (the k-th start()) is a permutation drawn from
// mixSeed(seed, k), so the order is a function of the seed and of how many passes came before
// (Note [Restorable data order], engine/train/TrainConfig.cpp).

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "engine/data/SeededRng.h"

namespace tbench {

class PassOrder {
 public:
  PassOrder(bool shuffle, uint64_t seed) : shuffle_(shuffle), seed_(seed) {}

  /// Starts the next pass over `count` samples.
  void start(size_t count) {
    order_.resize(count);
    std::iota(order_.begin(), order_.end(), int64_t{0});
    if (shuffle_) {
      Rng rng(mixSeed(seed_, passIndex_));
      std::shuffle(order_.begin(), order_.end(), rng);
    }
    ++passIndex_;
    cursor_ = 0;
  }

  /// The next sample's index; false at the end of the pass.
  bool next(int64_t& index) {
    if (cursor_ >= order_.size()) return false;
    index = order_[cursor_++];
    return true;
  }

 private:
  bool shuffle_;
  uint64_t seed_;
  uint64_t passIndex_ = 0;
  std::vector<int64_t> order_;
  size_t cursor_ = 0;
};

}  // namespace tbench
