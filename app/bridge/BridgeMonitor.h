#pragma once
// BridgeMonitor: the GUI's monitor inside the engine (docs/ARCHITECTURE.md §2). It runs on the
// engine thread like every monitor and only appends to a RunMailbox: every scalar and every
// image (with its step, epoch and wall time), and the loop's progress at most every 100 ms
// (epoch, step, a steps/s rate over the last few seconds of training, the ETA of the run).
// Time the loop spent paused (TrainerContext::secondsPaused) counts in neither: the rate window
// runs on a clock that stops while paused. Nothing here waits for the GUI. Internal to
// app/bridge.
//
// The engine puts the learning rate once per epoch (the value each epoch used); the window
// wants it from the start, so after the run's first step this monitor also sends the value in
// force then as a "learning_rate" sample (to the window only: stats.json is unchanged).

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>

#include "app/bridge/RunMailbox.h"
#include "engine/monitors/TrainingMonitor.h"

namespace tbench::bridge {

class BridgeMonitor : public TrainingMonitor {
 public:
  using Clock = std::chrono::steady_clock;
  /// `now` reads the clock the rate and ETA are measured on (default steady_clock::now; a test
  /// passes its own, together with a trainer whose secondsPaused() it controls).
  explicit BridgeMonitor(std::shared_ptr<RunMailbox> mailbox,
                         std::function<Clock::time_point()> now = {})
      : mailbox_(std::move(mailbox)), now_(now ? std::move(now) : [] { return Clock::now(); }) {}

  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override;
  /// Copies the pixels once into an ImageSample. Throws CheckError for a malformed image
  /// (pixels.size() != height * width * channels, or channels not 1, 3 or 4).
  void processImage(const std::string& name, const ImageData& image,
                    const MetricStamp& stamp) override;
  std::string name() const override { return "BridgeMonitor"; }

  /// Publishes the progress now (before the loop pauses, so that the window shows the step it
  /// paused at). Engine thread, between steps.
  void publishNow() { publishProgress(now_()); }

  /// The global step after the last finished step; any thread.
  int64_t globalStep() const { return globalStep_.load(std::memory_order_relaxed); }

 private:
  void onBeforeTrain() override;
  void onAfterRun() override;
  void onAfterEpoch() override;
  void onTriggerEpoch() override;
  void onAfterTrain() override;
  void publishProgress(Clock::time_point now);
  /// Seconds of training since beforeTrain at `now`: wall time less the time spent paused.
  double activeSeconds(Clock::time_point now) const;
  void publishFirstLearningRate();

  std::shared_ptr<RunMailbox> mailbox_;
  std::function<Clock::time_point()> now_;
  std::atomic<int64_t> globalStep_{0};
  Clock::time_point lastPublished_{};
  Clock::time_point trainStart_{};
  double pausedAtStart_ = 0;
  bool firstStepDone_ = false;
  std::deque<std::pair<double, int64_t>> recent_;  // (step seconds, global step), ~3 s
  // An epoch's end (validation, the callbacks' triggers): timed from afterEpoch to this
  // monitor's triggerEpoch (monitors trigger last), kept out of the step rate and added to the
  // ETA once per epoch left, as their mean so far (validation every k epochs included).
  double endStart_ = -1;
  double endSeconds_ = 0;
  int64_t ends_ = 0;
};

}  // namespace tbench::bridge
