#include "engine/data/formats/IdxFile.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>

#include "engine/core/Check.h"
#include "engine/data/formats/Deflate.h"

namespace tbench {
namespace {

// No real IDX data set comes near this; a header claiming more is corrupt, not big.
constexpr int64_t kMaxPayloadBytes = int64_t{1} << 34;  // 16 GiB
// The decompressed size of what is left of a gzip file is bounded by kMaxDeflateRatio
// (Deflate.h); the slack covers output that zlib holds in its window. This bound keeps a lying
// header from making us allocate more than the file could ever produce.
constexpr int64_t kInflateSlack = int64_t{1} << 16;
constexpr size_t kCompressedChunk = size_t{1} << 20;

std::string hexByte(uint8_t b) {
  std::ostringstream out;
  out << "0x" << std::hex << std::setw(2) << std::setfill('0') << static_cast<int>(b);
  return out.str();
}

uint32_t bigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// A stream of (decompressed) bytes with its position, for parsing and for messages.
class ByteSource {
 public:
  ByteSource(std::string path, FilePtr file, int64_t fileSize)
      : path_(std::move(path)), file_(std::move(file)), fileSize_(fileSize) {}
  virtual ~ByteSource() = default;

  /// Reads up to n bytes; fewer only at the end of the data. Throws InputError.
  virtual size_t read(uint8_t* dst, size_t n) = 0;
  /// An upper bound on the bytes still to come.
  virtual int64_t maxRemaining() const = 0;
  /// Appended to a truncation message: why the data ended.
  virtual std::string endNote() const { return ""; }
  /// Throws if the data did not end properly (for a gzip file: the end marker is missing).
  virtual void checkCleanEnd() {}
  virtual bool compressed() const = 0;

  const std::string& path() const { return path_; }
  /// "byte offset 1234", with " (decompressed)" for a gzip file.
  std::string at(int64_t offset) const {
    return str("byte offset ", offset, compressed() ? " (decompressed)" : "");
  }

  /// Reads everything left and returns how many bytes that was, stopping after `cap`.
  int64_t drain(int64_t cap) {
    std::vector<uint8_t> scratch(size_t{1} << 16);
    int64_t total = 0;
    while (total < cap) {
      const size_t got = read(scratch.data(), scratch.size());
      if (got == 0) break;
      total += static_cast<int64_t>(got);
    }
    return total;
  }

 protected:
  size_t readFile(uint8_t* dst, size_t n) {
    const size_t got = std::fread(dst, 1, n, file_.get());
    if (got < n && std::ferror(file_.get())) {
      throw InputError(str(path_, ": read error: ", std::strerror(errno)));
    }
    return got;
  }

  std::string path_;
  FilePtr file_;
  int64_t fileSize_;
  int64_t offset_ = 0;
};

class PlainSource : public ByteSource {
 public:
  using ByteSource::ByteSource;
  size_t read(uint8_t* dst, size_t n) override {
    const size_t got = readFile(dst, n);
    offset_ += static_cast<int64_t>(got);
    return got;
  }
  int64_t maxRemaining() const override { return std::max<int64_t>(0, fileSize_ - offset_); }
  bool compressed() const override { return false; }
};

class GzipSource : public ByteSource {
 public:
  GzipSource(std::string path, FilePtr file, int64_t fileSize)
      : ByteSource(std::move(path), std::move(file), fileSize), input_(kCompressedChunk) {
    std::memset(&stream_, 0, sizeof(stream_));
    // 15 + 16: a gzip wrapper (not zlib or raw deflate), full 32 KiB window.
    if (inflateInit2(&stream_, 15 + 16) != Z_OK) {
      throw InputError(str(path_, ": cannot initialize zlib: ", stream_.msg ? stream_.msg : "?"));
    }
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  size_t read(uint8_t* dst, size_t n) override {
    size_t got = 0;
    while (got < n && !finished_) {
      if (stream_.avail_in == 0 && !eof_) refill();
      const size_t want = std::min<size_t>(n - got, UINT_MAX);
      stream_.next_out = dst + got;
      stream_.avail_out = static_cast<uInt>(want);
      const int ret = inflate(&stream_, Z_NO_FLUSH);
      const size_t produced = want - stream_.avail_out;
      got += produced;
      offset_ += static_cast<int64_t>(produced);
      if (ret == Z_STREAM_END) {
        nextMember();
      } else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT || ret == Z_STREAM_ERROR) {
        throw InputError(str(path_, ": corrupt gzip data at compressed byte offset ",
                             compressedOffset(), " (decompressed byte offset ", offset_,
                             "): zlib says \"", stream_.msg ? stream_.msg : "invalid data",
                             "\"; the file is damaged, re-download or reinstall it"));
      } else if (ret == Z_MEM_ERROR) {
        throw InputError(
            str(path_, ": zlib ran out of memory at decompressed byte offset ", offset_));
      } else if (produced == 0 && stream_.avail_in == 0 && eof_) {
        // The file ended before the gzip stream did, and inflate has no pending output left.
        cutOff_ = true;
        finished_ = true;
      }
    }
    return got;
  }

  int64_t maxRemaining() const override {
    return (fileSize_ - compressedOffset()) * kMaxDeflateRatio + kInflateSlack;
  }

  std::string endNote() const override {
    if (!cutOff_) return "";
    return str("; the gzip stream itself is cut off at compressed byte offset ", compressedOffset(),
               " (no end-of-stream marker): the .gz file is incomplete");
  }

  void checkCleanEnd() override {
    if (!cutOff_) return;
    throw InputError(str(path_, ": the gzip stream is cut off at compressed byte offset ",
                         compressedOffset(), " (decompressed byte offset ", offset_,
                         "): expected the end-of-stream marker and CRC-32 checksum, found the "
                         "end of the file"));
  }

  bool compressed() const override { return true; }

 private:
  int64_t compressedOffset() const { return bytesRead_ - static_cast<int64_t>(stream_.avail_in); }

  // Moves unconsumed input to the front and appends what the file has next.
  void refill() {
    if (stream_.avail_in > 0 && stream_.next_in != input_.data()) {
      std::memmove(input_.data(), stream_.next_in, stream_.avail_in);
    }
    const size_t kept = stream_.avail_in;
    const size_t want = input_.size() - kept;
    const size_t got = readFile(input_.data() + kept, want);
    if (got < want) eof_ = true;
    bytesRead_ += static_cast<int64_t>(got);
    stream_.next_in = input_.data();
    stream_.avail_in = static_cast<uInt>(kept + got);
  }

  // After a gzip member ends: the file ends, another member follows (like gzip -d, we
  // concatenate them), or there is junk, which we report rather than ignore.
  void nextMember() {
    if (stream_.avail_in < 2 && !eof_) refill();
    if (stream_.avail_in == 0) {
      finished_ = true;
      return;
    }
    if (stream_.avail_in >= 2 && stream_.next_in[0] == 0x1f && stream_.next_in[1] == 0x8b) {
      inflateReset(&stream_);
      return;
    }
    throw InputError(str(path_,
                         ": unexpected bytes after the end of the gzip stream at "
                         "compressed byte offset ",
                         compressedOffset(), " (decompressed byte offset ", offset_,
                         "): expected the end of the file or another gzip member (1f 8b), found ",
                         fileSize_ - compressedOffset(), " more bytes starting with ",
                         hexByte(stream_.next_in[0])));
  }

  z_stream stream_;
  std::vector<uint8_t> input_;
  int64_t bytesRead_ = 0;
  bool eof_ = false;       // the file has no more compressed bytes
  bool finished_ = false;  // the last gzip member ended, or the file was cut off
  bool cutOff_ = false;    // the file ended inside a gzip member
};

std::unique_ptr<ByteSource> openSource(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    throw InputError(str(path, ": cannot open IDX file: ", std::strerror(errno)));
  }
  struct stat info {};
  if (fstat(fileno(file.get()), &info) != 0) {
    throw InputError(str(path, ": cannot stat IDX file: ", std::strerror(errno)));
  }
  if (S_ISDIR(info.st_mode)) {
    throw InputError(str(path, ": is a directory, expected an IDX file"));
  }
  // A pipe or device has no size: use one so large that it never limits, yet small enough
  // that maxRemaining() cannot overflow.
  const int64_t fileSize = S_ISREG(info.st_mode)
                               ? static_cast<int64_t>(info.st_size)
                               : std::numeric_limits<int64_t>::max() / (2 * kMaxDeflateRatio);
  uint8_t magic[2] = {0, 0};
  const size_t got = std::fread(magic, 1, 2, file.get());
  if (std::ferror(file.get())) {
    throw InputError(str(path, ": read error: ", std::strerror(errno)));
  }
  std::rewind(file.get());
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    return std::make_unique<GzipSource>(path, std::move(file), fileSize);
  }
  return std::make_unique<PlainSource>(path, std::move(file), fileSize);
}

std::string describeDims(const std::vector<int64_t>& dims) {
  std::ostringstream out;
  for (size_t i = 0; i < dims.size(); ++i) out << (i ? " x " : "") << dims[i];
  return out.str();
}

// "10000 x 28 x 28 elements of type 0x08 (unsigned byte)"
std::string describePayload(const IdxHeader& header) {
  return str(describeDims(header.dims), " elements of type ", idxTypeName(header.typeCode));
}

IdxHeader parseHeader(ByteSource& source) {
  const std::string& path = source.path();
  uint8_t magic[4];
  const size_t got = source.read(magic, 4);
  if (got < 4) {
    throw InputError(str(path, ": truncated at ", source.at(static_cast<int64_t>(got)),
                         ": expected the 4-byte IDX magic number (00 00 <type> <dimensions>), "
                         "found ",
                         got, " bytes", source.endNote()));
  }
  if (magic[0] != 0 || magic[1] != 0) {
    throw InputError(str(path, ": not an IDX file: bad magic number at ", source.at(0),
                         ": expected 0x00 0x00, found ", hexByte(magic[0]), " ",
                         hexByte(magic[1])));
  }
  IdxHeader header;
  header.compressed = source.compressed();
  header.typeCode = magic[2];
  const int64_t elementSize = idxElementSize(header.typeCode);
  if (elementSize == 0) {
    throw InputError(str(path, ": unsupported element type at ", source.at(2),
                         ": expected 0x08 (unsigned byte), 0x09, 0x0b, 0x0c, 0x0d or 0x0e, found ",
                         hexByte(header.typeCode)));
  }
  const int numDims = magic[3];
  if (numDims < 1 || numDims > 4) {
    throw InputError(str(path, ": unsupported number of dimensions at ", source.at(3),
                         ": expected 1 to 4, found ", numDims));
  }
  header.headerBytes = 4 + 4 * numDims;
  uint8_t raw[16];
  const size_t gotDims = source.read(raw, 4 * numDims);
  if (gotDims < static_cast<size_t>(4 * numDims)) {
    throw InputError(str(path, ": truncated at ", source.at(4 + static_cast<int64_t>(gotDims)),
                         ": expected ", numDims, " dimension sizes (", 4 * numDims,
                         " bytes) after the 4-byte magic number, found ", gotDims, " bytes",
                         source.endNote()));
  }
  int64_t bytes = elementSize;
  for (int i = 0; i < numDims; ++i) {
    const int64_t size = bigEndian32(raw + 4 * i);
    if (size == 0) {
      throw InputError(str(path, ": dimension ", i, " at ", source.at(4 + 4 * i),
                           " is 0: expected a positive size"));
    }
    header.dims.push_back(size);
    if (bytes > kMaxPayloadBytes / size) {
      throw InputError(str(path, ": implausible dimensions at ", source.at(4), ": ",
                           describeDims(header.dims), numDims > i + 1 ? " x ..." : "",
                           " elements of ", elementSize, " byte(s) exceed the limit of ",
                           kMaxPayloadBytes, " bytes"));
    }
    bytes *= size;
  }
  header.payloadBytes = bytes;
  return header;
}

void swapBytesInPlace(uint8_t* data, int64_t bytes, int64_t elementSize) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  (void)data;
  (void)bytes;
  (void)elementSize;
#else
  // IDX is big-endian; reverse every element. The loops vectorize well.
  const int64_t n = bytes / elementSize;
  if (elementSize == 2) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t v;
      std::memcpy(&v, data + 2 * i, 2);
      v = __builtin_bswap16(v);
      std::memcpy(data + 2 * i, &v, 2);
    }
  } else if (elementSize == 4) {
    for (int64_t i = 0; i < n; ++i) {
      uint32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      v = __builtin_bswap32(v);
      std::memcpy(data + 4 * i, &v, 4);
    }
  } else if (elementSize == 8) {
    for (int64_t i = 0; i < n; ++i) {
      uint64_t v;
      std::memcpy(&v, data + 8 * i, 8);
      v = __builtin_bswap64(v);
      std::memcpy(data + 8 * i, &v, 8);
    }
  }
#endif
}

torch::ScalarType scalarTypeOf(uint8_t typeCode) {
  switch (typeCode) {
    case 0x08:
      return torch::kUInt8;
    case 0x09:
      return torch::kInt8;
    case 0x0B:
      return torch::kInt16;
    case 0x0C:
      return torch::kInt32;
    case 0x0D:
      return torch::kFloat32;
    default:
      return torch::kFloat64;
  }
}

}  // namespace

int64_t idxElementSize(uint8_t typeCode) {
  switch (typeCode) {
    case 0x08:
    case 0x09:
      return 1;
    case 0x0B:
      return 2;
    case 0x0C:
    case 0x0D:
      return 4;
    case 0x0E:
      return 8;
    default:
      return 0;
  }
}

std::string idxTypeName(uint8_t typeCode) {
  const char* name = "unsupported";
  switch (typeCode) {
    case 0x08:
      name = "unsigned byte";
      break;
    case 0x09:
      name = "signed byte";
      break;
    case 0x0B:
      name = "int16";
      break;
    case 0x0C:
      name = "int32";
      break;
    case 0x0D:
      name = "float32";
      break;
    case 0x0E:
      name = "float64";
      break;
  }
  return str(hexByte(typeCode), " (", name, ")");
}

IdxHeader readIdxHeader(const std::string& path) {
  auto source = openSource(path);
  return parseHeader(*source);
}

IdxArray readIdxFile(const std::string& path) {
  auto source = openSource(path);
  IdxHeader header = parseHeader(*source);
  const int64_t elementSize = idxElementSize(header.typeCode);
  const int64_t expected = header.payloadBytes;

  // Allocate no more than the file can hold: a header that lies about its size then fails
  // with a truncation message instead of an enormous allocation.
  const int64_t capacity = std::min(expected, source->maxRemaining());
  torch::Tensor data = torch::empty({(capacity + elementSize - 1) / elementSize},
                                    torch::TensorOptions().dtype(scalarTypeOf(header.typeCode)));
  auto* bytes = static_cast<uint8_t*>(data.data_ptr());
  int64_t got = 0;
  while (got < capacity) {
    // Bounded reads keep size_t/uInt conversions and error offsets simple.
    const size_t chunk = static_cast<size_t>(std::min<int64_t>(capacity - got, int64_t{1} << 30));
    const size_t n = source->read(bytes + got, chunk);
    got += static_cast<int64_t>(n);
    if (n < chunk) break;
  }
  if (got < expected) {
    throw InputError(str(path, ": truncated at ", source->at(header.headerBytes + got),
                         ": expected ", expected, " bytes of data (", describePayload(header),
                         ") after the ", header.headerBytes, "-byte header, found ", got,
                         source->endNote()));
  }
  constexpr int64_t kCountCap = int64_t{1} << 26;
  const int64_t trailing = source->drain(kCountCap);
  if (trailing > 0) {
    throw InputError(str(path, ": unexpected data at ", source->at(header.headerBytes + expected),
                         ": expected the end of the file after the ", header.headerBytes,
                         "-byte header and ", expected, " bytes of data (", describePayload(header),
                         "), found ", trailing >= kCountCap ? "at least " : "", trailing,
                         " more bytes"));
  }
  source->checkCleanEnd();

  swapBytesInPlace(bytes, expected, elementSize);
  IdxArray array;
  array.dims = header.dims;
  array.data = data.view(header.dims);
  array.header = std::move(header);
  return array;
}

}  // namespace tbench
