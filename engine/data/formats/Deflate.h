#pragma once
// What the readers of compressed files (gzip'd IDX files, .npz members) know of DEFLATE.

#include <cstdint>

namespace tbench {

/// DEFLATE cannot expand one input byte into more than 1032 output bytes (a length code of 258
/// bytes from 2 bits), so a compressed size bounds the decompressed one: a header claiming more
/// is lying, and nothing is allocated for it.
inline constexpr int64_t kMaxDeflateRatio = 1032;

}  // namespace tbench
