#pragma once
// Note [Checkpoint integrity]: LibTorch's zip reader does not verify the CRC-32 that the zip
// format stores for every record, so a flipped bit in tensor data loads silently (measured:
// ~90% of single-byte corruptions of a small checkpoint loaded). Before unpickling, every
// stored record's CRC is checked (verifyZipArchive). Once the archive is known to be intact, a
// pickle that LibTorch cannot read is a foreign file, not a damaged one. Zip64 archives (records
// over 4 GiB) are not walked; LibTorch's reader alone judges them.
//
// Checkpoint files are zip archives (torch::pickle_save), see engine/checkpoint/Checkpoint.h.

#include <cstddef>
#include <cstdint>

namespace tbench {

/// The zip format's CRC-32 of `size` bytes.
uint32_t crc32(const uint8_t* data, size_t size);

/// Throws std::runtime_error saying what is wrong (no end record, a damaged directory entry, a
/// record cut off or flagged as a directory, a CRC mismatch naming the record) when the zip
/// archive in `data` is not intact. Records stored uncompressed are checked against their CRC;
/// compressed records and zip64 archives are not walked.
void verifyZipArchive(const char* data, size_t size);

}  // namespace tbench
