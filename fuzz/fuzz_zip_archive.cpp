// Fuzz target: engine/data/formats/ZipArchive, the .npz reader (fuzz/README.md): opens the input as
// an archive and reads every member, first a prefix (as NpyFile reads a header) and then whole. Any
// outcome other than the bytes or a std::exception (InputError) with a message is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "engine/data/formats/ZipArchive.h"
#include "fuzz/FuzzScratch.h"

namespace {

void readMember(const tbench::ZipArchive& archive, const tbench::ZipArchive::Member& member,
                uint64_t limit) {
  try {
    const std::string bytes = archive.read(member, limit);
    if (bytes.size() > limit || bytes.size() > member.size) std::abort();
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tbench::fuzz::writeScratch("arrays.npz", data, size);
  try {
    const tbench::ZipArchive archive(path);
    size_t done = 0;
    for (const auto& member : archive.members()) {
      if (++done > 16) break;
      if (archive.find(member.name) == nullptr) std::abort();
      readMember(archive, member, 128);
      readMember(archive, member, UINT64_MAX);
    }
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
