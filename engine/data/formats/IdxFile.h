#pragma once
// IDX files: the array format of MNIST and Fashion-MNIST, plain or gzip-compressed.
//
// Layout (all integers big-endian):
//   bytes 0-1   zero
//   byte  2     element type: 0x08 ubyte, 0x09 byte, 0x0B int16, 0x0C int32, 0x0D float32,
//               0x0E float64
//   byte  3     number of dimensions d (1 to 4 accepted here)
//   4d bytes    the dimensions, uint32 each
//   then        the elements, row-major, exactly product(dims) * element size bytes
//
// A file whose first two bytes are the gzip magic (1f 8b) is decompressed on the fly. Every
// problem throws InputError naming the file, the byte offset (in the decompressed stream for a
// gzip file, and the message says so), what was expected and what was found. Nothing is
// trusted: truncation, trailing bytes, corrupt gzip data and absurd dimensions are all
// reported, never crash.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tbench {

/// What an IDX header says.
struct IdxHeader {
  uint8_t typeCode = 0;       ///< 0x08, 0x09, 0x0B, 0x0C, 0x0D or 0x0E
  std::vector<int64_t> dims;  ///< one entry per dimension, each positive
  int64_t headerBytes = 0;    ///< 4 + 4 * dims.size()
  int64_t payloadBytes = 0;   ///< product(dims) * element size
  bool compressed = false;    ///< the file is gzip-compressed
};

/// A whole IDX file in memory.
struct IdxArray {
  IdxHeader header;
  std::vector<int64_t> dims;  ///< same as header.dims
  /// Shape `dims`, dtype from the type code (uint8, int8, int16, int32, float32, float64),
  /// converted to host byte order, contiguous.
  torch::Tensor data;
};

/// Reads and validates only the header (cheap even for a large gzip file). Throws InputError.
IdxHeader readIdxHeader(const std::string& path);

/// Reads and validates the whole file. Throws InputError.
IdxArray readIdxFile(const std::string& path);

/// The element size in bytes of a supported type code, 0 for an unsupported one.
int64_t idxElementSize(uint8_t typeCode);

/// The name of a type code for messages: "0x08 (unsigned byte)".
std::string idxTypeName(uint8_t typeCode);

}  // namespace tbench
