// Fuzz target: engine/data/formats/IdxFile (fuzz/README.md). The first byte chooses how the rest is
// written: odd, gzip-compressed by this harness (so that mutations reach the IDX parser behind
// the gzip reader); even, as it is (a seed may itself be a .gz file, reaching the gzip reader's
// own checks). The file is read with readIdxHeader and readIdxFile; a file that reads must
// agree with its header. Any outcome other than that or a std::exception (InputError) with a
// message naming the file is a bug.

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "engine/data/formats/IdxFile.h"
#include "fuzz/FuzzScratch.h"

namespace {

std::vector<uint8_t> gzip(const uint8_t* data, size_t size) {
  z_stream stream{};
  // 15 + 16: a gzip wrapper, as gzip(1) writes.
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    std::abort();
  }
  std::vector<uint8_t> out(deflateBound(&stream, size) + 64);
  stream.next_in = const_cast<uint8_t*>(data);
  stream.avail_in = static_cast<uInt>(size);
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// A reader's error: a message that names the file.
void checkError(const std::exception& e, const std::string& path) {
  if (std::string(e.what()).find(path) == std::string::npos) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string path;
  if (data[0] & 1) {
    const std::vector<uint8_t> compressed = gzip(data + 1, size - 1);
    path = tbench::fuzz::writeScratch("images.idx.gz", compressed.data(), compressed.size());
  } else {
    path = tbench::fuzz::writeScratch("images.idx", data + 1, size - 1);
  }
  tbench::IdxHeader header;
  try {
    header = tbench::readIdxHeader(path);
    if (header.dims.empty() || header.dims.size() > 4 ||
        header.headerBytes != 4 + 4 * static_cast<int64_t>(header.dims.size())) {
      std::abort();
    }
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    checkError(e, path);
  }
  try {
    const tbench::IdxArray array = tbench::readIdxFile(path);
    // A file that reads has the header readIdxHeader saw, and exactly its elements.
    if (array.header.dims != header.dims || array.header.typeCode != header.typeCode ||
        array.dims != header.dims || array.data.sizes().vec() != header.dims ||
        !array.data.is_contiguous() ||
        array.data.numel() * tbench::idxElementSize(header.typeCode) != header.payloadBytes) {
      std::abort();
    }
  } catch (const std::bad_alloc&) {
    std::abort();
  } catch (const std::exception& e) {
    checkError(e, path);
  }
  return 0;
}
