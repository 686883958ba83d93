#pragma once
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of TFRecord framing, and
// the TFRecord mask applied to it. Table-driven (slicing-by-8, portable C++: no CPU-specific
// instructions).
//
//   crc32c("123456789", 9) == 0xE3069283   (the standard check value)

#include <cstddef>
#include <cstdint>

namespace tbench {

/// The CRC-32C of `size` bytes at `data`, continuing from `crc` (the CRC of the bytes before
/// them; 0 to start).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

/// TFRecord's masked CRC: rotate right by 15 and add a constant, so that a CRC stored inside
/// the data it covers does not checksum to a fixed value.
inline uint32_t maskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

/// The inverse of maskCrc32c.
inline uint32_t unmaskCrc32c(uint32_t masked) {
  const uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace tbench
