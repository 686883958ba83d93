// Fuzz target: engine/run/RunStatus's readRunStatus (fuzz/README.md): the input as a run
// directory's run.json, read as the window's Run History reads it (the bridge's
// readRunStatusView: the record, then processAlive for a running one); a record that reads must
// write (toJson) and read back the same. Any outcome other than that or a std::exception
// (InputError) with a message naming the file is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "engine/run/RunStatus.h"
#include "fuzz/FuzzScratch.h"

namespace {

bool same(const tbench::RunStatusRecord& a, const tbench::RunStatusRecord& b) {
  return a.state == b.state && a.origin == b.origin && a.project == b.project && a.host == b.host &&
         a.pid == b.pid && a.started == b.started && a.updated == b.updated && a.ended == b.ended &&
         a.epoch == b.epoch && a.globalStep == b.globalStep && a.maxEpoch == b.maxEpoch &&
         a.stepsPerEpoch == b.stepsPerEpoch && a.lastScalars == b.lastScalars && a.best == b.best &&
         a.error == b.error;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& runDir = tbench::fuzz::scratchDir();
  const std::string path =
      tbench::fuzz::writeScratch(tbench::RunStatusRecord::kFileName, data, size);
  try {
    const std::optional<tbench::RunStatusRecord> record = tbench::readRunStatus(runDir);
    if (!record) std::abort();  // the file is there
    if (record->state == tbench::RecordedState::Running) (void)record->processAlive();
    tbench::fuzz::writeScratch(tbench::RunStatusRecord::kFileName,
                               reinterpret_cast<const uint8_t*>(record->toJson().data()),
                               record->toJson().size());
    const std::optional<tbench::RunStatusRecord> again = tbench::readRunStatus(runDir);
    if (!again || !same(*record, *again)) std::abort();
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();
  }
  return 0;
}
