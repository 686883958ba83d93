#include "engine/monitors/ScalarStream.h"

#include "engine/monitors/ScalarJson.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

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
  file_ = std::fopen(path_.c_str(), "a");
  // Nothing of this run is in it: its values start after the step it starts from.
  if (file_ == nullptr) lose(str("cannot open it: ", std::strerror(errno)), lastStep_ + 1);
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
