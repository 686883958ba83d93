// Fuzz target: engine/checkpoint/CheckpointIndex (fuzz/README.md): the input as a run
// directory's index file, read with CheckpointIndex::read; an index that reads must write and
// read back the same. Any outcome other than that or a std::exception (InputError) with a
// message is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "engine/checkpoint/CheckpointIndex.h"
#include "fuzz/FuzzScratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& runDir = tbench::fuzz::scratchDir();
  tbench::fuzz::writeScratch(tbench::CheckpointIndex::kFileName, data, size);
  try {
    const auto index = tbench::CheckpointIndex::read(runDir);
    if (!index) std::abort();  // the file is there
    index->write(runDir);
    const auto again = tbench::CheckpointIndex::read(runDir);
    if (!again || again->latest != index->latest || again->all != index->all ||
        again->kept != index->kept || again->manual != index->manual ||
        again->best.size() != index->best.size()) {
      std::abort();
    }
    for (const auto& [stat, best] : index->best) {
      const auto& other = again->best.at(stat);
      if (other.file != best.file || other.globalStep != best.globalStep) std::abort();
    }
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
