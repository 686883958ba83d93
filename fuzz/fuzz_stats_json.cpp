// Fuzz target: stats.json as a resumed run reads it (fuzz/README.md): JSONWriter::load and
// JSONWriter::loadUpTo, which keeps the entries up to the step the run resumes from (the window
// reads stats.json with RunScalars' readStatsFile: fuzz_run_scalars). Resuming past every step
// keeps every object; resuming at step -1 keeps none whose step is past it. Any outcome other
// than that or a std::exception (InputError) with a message naming the file is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <new>
#include <string>

#include "engine/monitors/JSONWriter.h"
#include "fuzz/FuzzScratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tbench::fuzz::writeScratch("stats.json", data, size);
  try {
    const nlohmann::json all = tbench::JSONWriter::load(path);
    if (!all.is_array()) std::abort();
    size_t objects = 0;
    for (const auto& entry : all) objects += entry.is_object() ? 1 : 0;
    const nlohmann::json kept =
        tbench::JSONWriter::loadUpTo(path, std::numeric_limits<int64_t>::max());
    if (kept.size() != objects) std::abort();
    const nlohmann::json none = tbench::JSONWriter::loadUpTo(path, -1);
    if (none.size() > objects) std::abort();
    for (const auto& entry : none) {
      if (entry.contains("global_step") && entry["global_step"].get<int64_t>() > -1) std::abort();
    }
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();
  }
  return 0;
}
