#pragma once
// Monitors: the dispatcher behind context().monitors(). putScalar/putImage stamp the value
// with the epoch, global step and wall time and fan it out to every TrainingMonitor. It is a
// callback too and forwards every lifecycle hook to its monitors, in order.

#include <unordered_map>
#include <vector>

#include "engine/callbacks/Callbacks.h"
#include "engine/callbacks/MonitorSink.h"
#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

class Monitors : public Callback, public MonitorSink {
 public:
  explicit Monitors(std::vector<TrainingMonitorPtr> monitors);
  void putScalar(const std::string& name, double value) override;
  void putScalarAt(const std::string& name, double value, const MetricStamp& stamp) override;
  void watchScalars(ScalarWatcher watcher) override;
  void putImage(const std::string& name, const ImageData& image) override;
  std::optional<double> latest(const std::string& name) const override;
  int64_t count(const std::string& name) const override;
  const std::vector<TrainingMonitorPtr>& monitors() const { return monitors_; }
  /// Adds a monitor before setupGraph (the bridge adds its own this way).
  void add(TrainingMonitorPtr monitor);
  /// What latest() and count() call first: the trainer reads the step scalars it holds
  /// (Note [Step scalars read in batches]). Not called again while it runs.
  void setBeforeRead(std::function<void()> readPending) { beforeRead_ = std::move(readPending); }

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override { group_->beforeTrain(); }
  void onBeforeEpoch() override { group_->beforeEpoch(); }
  void onBeforeRun() override { group_->beforeRun(); }
  void onAfterRun() override { group_->afterRun(); }
  void onTriggerStep() override { group_->triggerStep(); }
  void onAfterEpoch() override { group_->afterEpoch(); }
  void onTriggerEpoch() override { group_->triggerEpoch(); }
  void onTrigger() override { group_->trigger(); }
  void onAfterTrain() override { group_->afterTrain(); }
  MetricStamp stamp() const;
  void readPending() const;

  std::vector<TrainingMonitorPtr> monitors_;
  std::unique_ptr<Callbacks> group_;
  struct Latest {
    double value = 0;
    int64_t count = 0;
  };
  std::unordered_map<std::string, Latest> latest_;
  std::vector<ScalarWatcher> watchers_;
  std::function<void()> beforeRead_;
  mutable bool reading_ = false;  // inside beforeRead_
};

}  // namespace tbench
