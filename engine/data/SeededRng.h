#pragma once
// The random generator of the shuffling DataFlows. Pass k of a flow seeded with s draws from
// a generator seeded with mix(s, k), so the order of every pass is a function of the seed and
// the pass number alone: reproducible, and restorable by counting passes.

#include <cstdint>
#include <random>

namespace tbench {

inline uint64_t mixSeed(uint64_t seed, uint64_t stream) {
  // splitmix64 of the pair; distinct (seed, stream) pairs give unrelated generators.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

using Rng = std::mt19937_64;

}  // namespace tbench
