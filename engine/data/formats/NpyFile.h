#pragma once
// .npy files: the array format NumPy writes with np.save, the common way to hand data from
// Python to other tools (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
//
// Layout:
//   bytes 0-5   "\x93NUMPY"
//   bytes 6-7   format version (1.0, 2.0 or 3.0)
//   then        the header length: uint16 little-endian (1.0) or uint32 (2.0, 3.0)
//   then        the header: a Python dict literal such as
//               {'descr': '<f4', 'fortran_order': False, 'shape': (150, 4), }
//   then        the elements, exactly product(shape) * element size bytes
//
// Accepted here: little-endian float32 ('<f4'), float64 ('<f8'), int64 ('<i8') and uint8
// ('|u1'), C order, up to 64 dimensions (NumPy's own limit). Anything else (big-endian, other
// dtypes, Fortran order, object arrays, structured dtypes) throws InputError naming the file and
// saying how to save the array instead; so do truncated files, trailing bytes and malformed
// headers, with the byte offset.
//
// .npz archives (np.savez, np.savez_compressed: a zip of .npy files, stored or deflated) are
// read one array at a time, named "ARCHIVE.npz:NAME": NAME is the keyword given to np.savez
// (np.savez('d.npz', x=a) -> "d.npz:x"; positional arrays are arr_0, arr_1, ...). The member
// is checked against its CRC-32 (ZipArchive.h); messages call it "d.npz:x", byte offsets are
// within the member. A path to an .npz without ":NAME" is refused with the arrays it holds.

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tbench {

/// What a .npy header says.
struct NpyHeader {
  std::string descr;           ///< "<f4", "<f8", "<i8" or "|u1"
  std::vector<int64_t> shape;  ///< empty for a 0-d array
  int64_t dataOffset = 0;      ///< where the elements start
  int64_t elementSize = 0;
};

/// Where an array is: a .npy file (`member` empty), or member `member` of the .npz `file`.
struct NpyLocation {
  std::string file;
  std::string member;
};
/// Splits "ARCHIVE.npz:NAME" at its last ".npz:" (any case); any other path is a .npy file.
NpyLocation parseNpyLocation(const std::string& path);

/// Reads and validates only the header (of a file, or "ARCHIVE.npz:NAME"). Throws InputError.
NpyHeader readNpyHeader(const std::string& path);

/// Reads and validates the whole array (a file, or "ARCHIVE.npz:NAME"): a contiguous tensor of the
/// header's shape and dtype (float32, float64, int64 or uint8). Throws InputError.
torch::Tensor readNpyFile(const std::string& path, NpyHeader* header = nullptr);

}  // namespace tbench
