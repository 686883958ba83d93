#include "engine/monitors/Monitors.h"

#include <chrono>

#include "engine/core/Check.h"

namespace tbench {

Monitors::Monitors(std::vector<TrainingMonitorPtr> monitors) : monitors_(std::move(monitors)) {
  for (const auto& m : monitors_) TB_CHECK(m != nullptr, "null monitor in the list");
}

void Monitors::add(TrainingMonitorPtr monitor) {
  TB_CHECK(monitor != nullptr, "null monitor");
  TB_CHECK(!group_, "monitors must be added before setupGraph");
  monitors_.push_back(std::move(monitor));
}

void Monitors::onSetupGraph() {
  group_ =
      std::make_unique<Callbacks>(std::vector<CallbackPtr>(monitors_.begin(), monitors_.end()));
  group_->setupGraph(context());
}

MetricStamp Monitors::stamp() const {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return MetricStamp{context().globalStep(), context().epochNum(),
                     std::chrono::duration<double>(now).count()};
}

void Monitors::putScalar(const std::string& name, double value) {
  putScalarAt(name, value, stamp());
}

void Monitors::putScalarAt(const std::string& name, double value, const MetricStamp& stamp) {
  Latest& latest = latest_[name];
  latest.value = value;
  ++latest.count;
  for (const auto& watch : watchers_) watch(name, value, stamp);
  for (const auto& m : monitors_) m->processScalar(name, value, stamp);
}

void Monitors::watchScalars(ScalarWatcher watcher) {
  TB_CHECK(watcher != nullptr, "null scalar watcher");
  watchers_.push_back(std::move(watcher));
}

void Monitors::readPending() const {
  if (!beforeRead_ || reading_) return;
  reading_ = true;
  try {
    beforeRead_();
  } catch (...) {
    reading_ = false;
    throw;
  }
  reading_ = false;
}

void Monitors::putImage(const std::string& name, const ImageData& image) {
  const MetricStamp s = stamp();
  for (const auto& m : monitors_) m->processImage(name, image, s);
}

std::optional<double> Monitors::latest(const std::string& name) const {
  readPending();
  auto it = latest_.find(name);
  if (it == latest_.end()) return std::nullopt;
  return it->second.value;
}

int64_t Monitors::count(const std::string& name) const {
  readPending();
  auto it = latest_.find(name);
  return it == latest_.end() ? 0 : it->second.count;
}

}  // namespace tbench
