#pragma once
// Note [Checkpoint integrity]: LibTorch's zip reader does not verify the CRC-32 that the zip
// format stores for every record, so a flipped bit in tensor data loads silently (measured:
// ~90% of single-byte corruptions of a small checkpoint loaded). Before unpickling, every
// stored record's CRC is checked (verifyZipArchive). Once the archive is known to be intact, a
// pickle that LibTorch cannot read is a foreign file, not a damaged one. Zip64 archives (records
// over 4 GiB) are not walked; LibTorch's reader alone judges them. Nor is an archive handed to
// LibTorch that it would refuse while opening it, or whose pickle its unpickler cannot take
// (torchArchiveProblem): LibTorch 1.13's reader leaks its zip state when its constructor throws,
// and its unpickler trusts lengths and its stack (found by fuzz_checkpoint_file).
//
// Checkpoint files are zip archives (torch::pickle_save), see engine/checkpoint/Checkpoint.h.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tbench {

/// The zip format's CRC-32 of `size` bytes.
uint32_t crc32(const uint8_t* data, size_t size);

/// A record of a zip archive, as its central directory names it.
struct ZipRecord {
  std::string name;
  bool stored = false;  ///< uncompressed: `offset` and `size` locate its bytes
  uint64_t offset = 0;
  uint64_t size = 0;
};

/// Throws std::runtime_error saying what is wrong (no end record, a damaged directory entry, a
/// record cut off or flagged as a directory, a CRC mismatch naming the record) when the zip
/// archive in `data` is not intact. Records stored uncompressed are checked against their CRC;
/// compressed records and zip64 archives are not walked. Returns the records, or nullopt for a
/// zip64 archive.
std::optional<std::vector<ZipRecord>> verifyZipArchive(const char* data, size_t size);

/// What LibTorch's reader would refuse while opening the intact archive `data` with `records`
/// (from verifyZipArchive), "" when nothing: its records must be in one top directory with a
/// `version` record (or `.data/version`) holding a format version it reads (1 to 10 in 1.13);
/// and a data.pkl whose lengths and memo indices fit in it and whose opcodes find the values
/// they take on the stack (Note [Pickles LibTorch cannot take], ZipIntegrity.cpp).
std::string torchArchiveProblem(const char* data, const std::vector<ZipRecord>& records);

}  // namespace tbench
