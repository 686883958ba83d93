#pragma once
// HoldOut: a seeded split of a data set's samples into a training part and a held-out "test"
// part, for sources that hold one set and validate on part of it (CSV tables, image folders).
//
// The project keys of such a source (the same names for every type that has them):
//   "split": "train" | "test"   which part this source yields ("train" by default; the
//                               validation slot defaults it to "test")
//   "test_fraction": [0, 1)     how much is held out; 0 holds out nothing ("train" is then
//                               every sample and "test" is refused)
//   "split_seed": seed          which samples are held out
// The held-out part is the first round(n * fraction) entries of a permutation of 0..n-1 drawn
// from mixSeed(split_seed, 0): a function of (n, fraction, seed) alone, so a training source and
// its validation copy with the same three values are disjoint and together cover the set.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "engine/data/SeededRng.h"

namespace tbench {

/// The sorted sample indices of one part of `count` samples: the held-out part when `test`,
/// else the rest.
inline std::vector<int64_t> holdOutIndices(int64_t count, double fraction, uint64_t seed,
                                           bool test) {
  std::vector<int64_t> order(static_cast<size_t>(std::max<int64_t>(count, 0)));
  std::iota(order.begin(), order.end(), int64_t{0});
  const auto held = static_cast<size_t>(std::clamp<double>(
      std::llround(static_cast<double>(count) * fraction), 0.0, static_cast<double>(order.size())));
  if (held == 0) return test ? std::vector<int64_t>{} : order;
  Rng rng(mixSeed(seed, 0));
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int64_t> part = test ? std::vector<int64_t>(order.begin(), order.begin() + held)
                                   : std::vector<int64_t>(order.begin() + held, order.end());
  std::sort(part.begin(), part.end());
  return part;
}

}  // namespace tbench
