#include "engine/monitors/ScalarStream.h"

#include "engine/monitors/ScalarJson.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

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
  file_ = std::fopen(path_.c_str(), "a");
  if (file_ == nullptr) {
    // The run does not depend on it: a follower sees stats.json only.
    TB_LOG(Warning) << "cannot write " << path_ << ": " << std::strerror(errno)
                    << " (a window following this run sees one point per epoch)";
  }
}

void ScalarStream::write(const std::string& name, double value, const MetricStamp& stamp) {
  nlohmann::json line = {{"name", name},
                         {"step", stamp.globalStep},
                         {"epoch", stamp.epochNum},
                         {"time", stamp.wallTime}};
  line["value"] = scalarToJson(value);  // Note [Non-finite scalars]
  const std::string text = line.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), file_);
}

void ScalarStream::processScalar(const std::string& name, double value, const MetricStamp& stamp) {
  if (file_ == nullptr) return;
  Held& held = held_[name];
  if (stamp.wallTime - held.lastWritten < kMinIntervalSeconds) {
    held.value = value;
    held.stamp = stamp;
    held.pending = true;
    return;
  }
  write(name, value, stamp);
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
    if (!held.pending) continue;
    write(name, held.value, held.stamp);
    held.pending = false;
    held.lastWritten = held.stamp.wallTime;
  }
}

void ScalarStream::flush() {
  if (file_ != nullptr && std::fflush(file_) != 0) {
    TB_LOG(Warning) << "cannot write " << path_ << ": " << std::strerror(errno);
    std::fclose(file_);
    file_ = nullptr;
  }
}

void ScalarStream::onTriggerEpoch() {
  if (file_ == nullptr) return;
  writeHeld();
  flush();
}

void ScalarStream::onAfterTrain() {
  if (file_ == nullptr) return;
  writeHeld();
  flush();
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace tbench
