// Fuzz target: engine/data/formats/NpyFile (fuzz/README.md): the input as a .npy file, and when it
// is a zip archive (an .npz, "PK") also every member as "ARCHIVE.npz:NAME", each read with
// readNpyHeader and readNpyFile; an array that reads must agree with its header. Any outcome
// other than that or a std::exception (InputError) with a message naming the file is a bug.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "engine/data/formats/NpyFile.h"
#include "engine/data/formats/ZipArchive.h"
#include "fuzz/FuzzScratch.h"

namespace {

// A reader's error: a message that names the file.
void checkError(const std::exception& e, const std::string& file) {
  if (std::string(e.what()).find(file) == std::string::npos) std::abort();
}

// Reads `path` (a file or "ARCHIVE.npz:NAME") both ways; `file` is what messages must name.
void readArray(const std::string& path, const std::string& file) {
  tbench::NpyHeader header;
  bool headerRead = false;
  try {
    header = tbench::readNpyHeader(path);
    headerRead = true;
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    checkError(e, file);
  }
  try {
    tbench::NpyHeader again;
    const torch::Tensor array = tbench::readNpyFile(path, &again);
    // An array that reads has the header readNpyHeader saw, and exactly its elements.
    if (!headerRead || again.descr != header.descr || again.shape != header.shape ||
        again.dataOffset != header.dataOffset || array.sizes().vec() != header.shape ||
        !array.is_contiguous() || array.element_size() != header.elementSize) {
      std::abort();
    }
  } catch (const std::bad_alloc&) {
    std::abort();
  } catch (const std::exception& e) {
    checkError(e, file);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string npy = tbench::fuzz::writeScratch("array.npy", data, size);
  readArray(npy, npy);
  if (size < 4 || std::memcmp(data, "PK", 2) != 0) return 0;
  const std::string npz = tbench::fuzz::writeScratch("arrays.npz", data, size);
  try {
    const tbench::ZipArchive archive(npz);
    size_t done = 0;
    for (const auto& member : archive.members()) {
      if (++done > 8) break;
      std::string name = member.name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) {
        name.resize(name.size() - 4);
      }
      readArray(npz + ":" + name, npz);
    }
  } catch (const std::bad_alloc&) {
    std::abort();
  } catch (const std::exception& e) {
    checkError(e, npz);
  }
  return 0;
}
