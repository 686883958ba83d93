// Fuzz target: engine/run/RunScalars (fuzz/README.md): the input as a stats.json
// (readStatsFile) and each of its lines as a scalars.jsonl line (parseScalarLine). Neither
// throws: readStatsFile says what is wrong in `error`, parseScalarLine gives nullopt. Anything
// else is a bug.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/run/RunScalars.h"
#include "fuzz/FuzzScratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tbench::fuzz::writeScratch("stats.json", data, size);
  const tbench::StatsFileContents stats = tbench::readStatsFile(path);
  if (!stats.exists) std::abort();
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    (void)tbench::parseScalarLine(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return 0;
}
