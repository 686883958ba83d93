#include "engine/data/formats/ZipArchive.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "engine/core/Check.h"
#include "engine/data/formats/Deflate.h"

namespace tbench {

namespace {

constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kCentralSignature = 0x02014b50;
constexpr uint32_t kLocalSignature = 0x04034b50;
constexpr uint64_t kEndBytes = 22;
constexpr uint64_t kMaxComment = 65535;
constexpr size_t kChunkBytes = size_t{1} << 20;

/// A little-endian integer of `width` bytes at `offset` of `bytes` (the caller checked bounds).
uint64_t littleEndian(const std::string& bytes, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[offset + static_cast<size_t>(i)]);
  }
  return value;
}

std::ifstream openArchive(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw InputError(str(path, ": is a directory, not an archive"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str(path, ": cannot be read (", std::strerror(errno), ")"));
  return in;
}

/// `length` bytes at `offset`, or false when the file is shorter.
bool readAt(std::ifstream& in, uint64_t offset, uint64_t length, std::string& out) {
  out.resize(static_cast<size_t>(length));
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  return static_cast<bool>(in.read(out.data(), static_cast<std::streamsize>(length)));
}

uint32_t crcOf(const std::string& bytes) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < bytes.size(); done += kChunkBytes) {
    const size_t n = std::min(kChunkBytes, bytes.size() - done);
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

ZipArchive::ZipArchive(std::string path) : path_(std::move(path)) {
  std::ifstream in = openArchive(path_);
  in.seekg(0, std::ios::end);
  fileSize_ = static_cast<uint64_t>(in.tellg());
  // The end record is the last 22 bytes plus a comment of at most 64 KiB.
  const uint64_t tailSize = std::min(fileSize_, kEndBytes + kMaxComment);
  std::string tail;
  if (fileSize_ < kEndBytes || !readAt(in, fileSize_ - tailSize, tailSize, tail)) {
    throw InputError(str(path_, ": not a zip archive (", fileSize_, " bytes, no end record)"));
  }
  int64_t end = static_cast<int64_t>(tailSize - kEndBytes);
  for (; end >= 0; --end) {
    const auto at = static_cast<size_t>(end);
    if (littleEndian(tail, at, 4) == kEndSignature &&
        at + kEndBytes + littleEndian(tail, at + 20, 2) == tail.size()) {
      break;
    }
  }
  if (end < 0) {
    throw InputError(str(path_, ": no end-of-archive record: not a zip archive, or cut off"));
  }
  const auto at = static_cast<size_t>(end);
  const uint64_t entries = littleEndian(tail, at + 10, 2);
  const uint64_t directorySize = littleEndian(tail, at + 12, 4);
  const uint64_t directoryOffset = littleEndian(tail, at + 16, 4);
  if (entries == 0xFFFF || directorySize == 0xFFFFFFFF || directoryOffset == 0xFFFFFFFF) {
    throw InputError(str(path_,
                         ": a zip64 archive (over 4 GiB or 65535 members), which is not "
                         "read; save the arrays with np.save instead"));
  }
  const uint64_t endOffset = fileSize_ - tailSize + at;
  std::string directory;
  if (directoryOffset + directorySize > endOffset ||
      !readAt(in, directoryOffset, directorySize, directory)) {
    throw InputError(str(path_, ": the central directory (", directorySize, " bytes at byte ",
                         directoryOffset, ") lies outside the file"));
  }
  size_t offset = 0;
  for (uint64_t i = 0; i < entries; ++i) {
    if (offset + 46 > directory.size() || littleEndian(directory, offset, 4) != kCentralSignature) {
      throw InputError(str(path_, ": central directory entry ", i, " (byte ",
                           directoryOffset + offset, ") is damaged"));
    }
    Member m;
    m.flags = static_cast<uint16_t>(littleEndian(directory, offset + 8, 2));
    m.method = static_cast<uint16_t>(littleEndian(directory, offset + 10, 2));
    m.crc = static_cast<uint32_t>(littleEndian(directory, offset + 16, 4));
    m.compressedSize = littleEndian(directory, offset + 20, 4);
    m.size = littleEndian(directory, offset + 24, 4);
    const size_t nameLength = littleEndian(directory, offset + 28, 2);
    const size_t extraLength = littleEndian(directory, offset + 30, 2);
    const size_t commentLength = littleEndian(directory, offset + 32, 2);
    m.localHeader = littleEndian(directory, offset + 42, 4);
    if (offset + 46 + nameLength > directory.size()) {
      throw InputError(str(path_, ": central directory entry ", i, " is cut off"));
    }
    m.name = directory.substr(offset + 46, nameLength);
    if (m.compressedSize == 0xFFFFFFFF || m.size == 0xFFFFFFFF || m.localHeader == 0xFFFFFFFF) {
      throw InputError(str(path_, ": member \"", m.name,
                           "\" has zip64 sizes (over 4 GiB), which are not read; save the "
                           "array with np.save instead"));
    }
    members_.push_back(std::move(m));
    offset += 46 + nameLength + extraLength + commentLength;
  }
}

const ZipArchive::Member* ZipArchive::find(const std::string& name) const {
  for (const Member& m : members_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string ZipArchive::read(const Member& member, uint64_t limit) const {
  const std::string where = str(path_, ": member \"", member.name, "\"");
  if (member.flags & 0x1) throw InputError(str(where, " is encrypted"));
  if (member.method != 0 && member.method != 8) {
    throw InputError(str(where, " uses compression method ", member.method,
                         "; only stored and deflated members are read (np.savez, "
                         "np.savez_compressed)"));
  }
  std::ifstream in = openArchive(path_);
  std::string local;
  if (!readAt(in, member.localHeader, 30, local) || littleEndian(local, 0, 4) != kLocalSignature) {
    throw InputError(
        str(where, ": the local header at byte ", member.localHeader, " is damaged or cut off"));
  }
  const uint64_t begin =
      member.localHeader + 30 + littleEndian(local, 26, 2) + littleEndian(local, 28, 2);
  if (begin > fileSize_ || member.compressedSize > fileSize_ - begin) {
    throw InputError(str(where, " is cut off: ", member.compressedSize, " bytes from byte ", begin,
                         ", the file has ", fileSize_));
  }
  // The sizes come from the central directory: a damaged one must not make us allocate
  // gigabytes that the member's data cannot fill (a stored member is its own bytes; deflate
  // inflates at most 1032 times).
  if (member.method == 0 && member.size != member.compressedSize) {
    throw InputError(str(where, " is damaged: stored (not compressed), but its size of ",
                         member.size, " bytes differs from the ", member.compressedSize,
                         " bytes it holds at byte ", begin));
  }
  if (member.method == 8 &&
      member.size / static_cast<uint64_t>(kMaxDeflateRatio) > member.compressedSize) {
    throw InputError(str(where, " is damaged: ", member.size, " bytes cannot inflate from the ",
                         member.compressedSize, " compressed bytes at byte ", begin));
  }
  const bool whole = limit >= member.size;
  const uint64_t wanted = std::min(limit, member.size);
  std::string out;
  if (member.method == 0) {
    if (!readAt(in, begin, wanted, out)) throw InputError(str(where, ": read error"));
  } else {
    out.resize(static_cast<size_t>(wanted));
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) throw InputError(str(where, ": zlib failed"));
    std::string chunk;
    uint64_t consumed = 0;
    int status = Z_OK;
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(wanted);
    // A whole member must end its deflate stream exactly at its size; a prefix stops early.
    const auto more = [&] { return status == Z_OK && (whole || stream.avail_out > 0); };
    while (more() && consumed < member.compressedSize) {
      const uint64_t n = std::min<uint64_t>(kChunkBytes, member.compressedSize - consumed);
      if (!readAt(in, begin + consumed, n, chunk)) break;
      consumed += n;
      stream.next_in = reinterpret_cast<Bytef*>(chunk.data());
      stream.avail_in = static_cast<uInt>(n);
      while (more() && stream.avail_in > 0) status = inflate(&stream, Z_NO_FLUSH);
    }
    const uint64_t produced = stream.total_out;
    const std::string message = stream.msg != nullptr ? stream.msg : "";
    inflateEnd(&stream);
    const bool complete = whole ? status == Z_STREAM_END : produced == wanted;
    if (!complete || produced != wanted) {
      throw InputError(str(where, ": the compressed data is damaged (zlib: ",
                           message.empty() ? "ends early" : message, ", ", produced, " of ", wanted,
                           " bytes inflated)"));
    }
  }
  if (whole && crcOf(out) != member.crc) {
    throw InputError(str(where, ": CRC-32 mismatch (the archive is damaged)"));
  }
  return out;
}

}  // namespace tbench
