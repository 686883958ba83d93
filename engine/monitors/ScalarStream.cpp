#include "engine/monitors/ScalarStream.h"

#include "engine/monitors/ScalarJson.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

ScalarStream::ScalarStream(std::string path) : path_(std::move(path)) {}

ScalarStream::~ScalarStream() {
  if (file_ != nullptr) std::fclose(file_);
}

void ScalarStream::onBeforeTrain() {
  if (path_.empty()) {
    TB_CHECK(!context().runDir().empty(), "ScalarStream needs a path or a run directory");
    path_ = (std::filesystem::path(context().runDir()) / kFileName).string();
  }
  lost_.clear();
  lastStep_ = flushedStep_ = context().globalStep();
  keepUpTo(lastStep_);  // a resumed run's file
  file_ = std::fopen(path_.c_str(), "a");
  // Nothing of this run is in it: its values start after the step it starts from.
  if (file_ == nullptr) lose(str("cannot open it: ", std::strerror(errno)), lastStep_ + 1);
}

// Note [A resumed stream]: a run killed after its last checkpoint had written the steps after
// it (the dead tail); its resume starts from the checkpoint's step and writes those steps
// again. As stats.json (JSONWriter::loadUpTo) and TensorBoard's purge of orphaned steps, the
// stream keeps what came up to the resume's step and drops the rest (and a last line cut by
// the kill, which the first appended line would have joined), replacing the file atomically:
// a chart of the run (the window's history, a new follower) does not show the dead tail
// beside the resumed values. Lines at the resume's own step are kept (the checkpoint's epoch-
// end validation is among them). A follower
// reading the file meanwhile sees it replaced (RunFollower).
void ScalarStream::keepUpTo(int64_t globalStep) {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return;  // none yet
  std::string kept, line;
  bool changed = false;
  while (std::getline(in, line)) {
    if (in.eof()) {  // no newline: cut
      changed = true;
      break;
    }
    // ScalarStream's lines are {"epoch":..,"name":"..","step":N,...} (keys sorted; a quote in
    // a name is escaped, so `,"step":` is the key).
    const size_t at = line.find(",\"step\":");
    if (at != std::string::npos && std::strtoll(line.c_str() + at + 8, nullptr, 10) > globalStep) {
      changed = true;
      continue;
    }
    kept += line;
    kept += '\n';
  }
  if (!changed) return;
  try {
    writeFileAtomically(path_, kept);
    TB_LOG(Info) << path_ << ": the values after global step " << globalStep
                 << " (written before the run was stopped, after its checkpoint) are dropped";
  } catch (const std::exception& e) {
    TB_LOG(Warning) << "cannot drop the values after global step " << globalStep << " from "
                    << path_ << ": " << e.what() << "; they stay before the resumed ones";
  }
}

void ScalarStream::lose(const std::string& reason, int64_t fromStep) {
  // The run does not depend on it: a follower sees stats.json only.
  TB_LOG(Error) << "cannot write " << path_ << ": " << reason
                << "; it is not written for the rest of the run (a window following this run "
                   "sees one point per epoch)";
  if (file_ != nullptr) std::fclose(std::exchange(file_, nullptr));
  lost_ = reason;
  lostFrom_ = fromStep;
}

void ScalarStream::write(const std::string& name, double value, const MetricStamp& stamp) {
  nlohmann::json line = {{"name", name},
                         {"step", stamp.globalStep},
                         {"epoch", stamp.epochNum},
                         {"time", stamp.wallTime}};
  line["value"] = scalarToJson(value);  // Note [Non-finite scalars]
  const std::string text = line.dump() + "\n";
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    lose(std::strerror(errno), flushedStep_);  // the buffer's older lines went with it
  }
}

void ScalarStream::processScalar(const std::string& name, double value, const MetricStamp& stamp) {
  lastStep_ = stamp.globalStep;
  if (file_ == nullptr) return;
  Held& held = held_[name];
  if (stamp.wallTime - held.lastWritten < kMinIntervalSeconds) {
    held.value = value;
    held.stamp = stamp;
    held.pending = true;
    return;
  }
  write(name, value, stamp);
  if (file_ == nullptr) return;
  held.pending = false;
  held.lastWritten = stamp.wallTime;
  if (stamp.wallTime - lastFlush_ >= kFlushSeconds) {
    writeHeld();
    flush();
    lastFlush_ = stamp.wallTime;
  }
}

void ScalarStream::writeHeld() {
  for (auto& [name, held] : held_) {
    if (!held.pending || file_ == nullptr) continue;
    write(name, held.value, held.stamp);
    held.pending = false;
    held.lastWritten = held.stamp.wallTime;
  }
}

void ScalarStream::flush() {
  // The values in the stdio buffer are lost with it: the earliest of them is at most
  // kFlushSeconds old, so the loss is dated from the last flush's step.
  if (file_ != nullptr && std::fflush(file_) != 0) lose(std::strerror(errno), flushedStep_);
  if (file_ != nullptr) flushedStep_ = lastStep_;
}

void ScalarStream::onTriggerEpoch() {
  if (file_ == nullptr) return;
  writeHeld();
  flush();
}

void ScalarStream::onAfterTrain() {
  if (file_ != nullptr) {
    writeHeld();
    flush();
  }
  if (file_ != nullptr && std::fclose(std::exchange(file_, nullptr)) != 0) {
    lose(std::strerror(errno), flushedStep_);
  }
  if (lost_.empty()) return;
  const std::string what =
      str(path_, " lacks the scalars from global step ", lostFrom_, " on: ", lost_);
  lost_.clear();
  throw std::runtime_error(what);
}

}  // namespace tbench
