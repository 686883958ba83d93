#pragma once
// RunMailbox: what the engine thread has to tell the GUI thread about one run, in order.
// Internal to app/bridge (RunController and BridgeMonitor); Qt Core and the standard library
// only.
//
// The engine thread appends events (scalars, log lines, milestones) and the latest progress
// under one mutex. The first append after a take() calls `wake` (RunController queues a drain
// on the GUI thread); later appends only add to the batch, so however fast the engine goes,
// the GUI thread sees one wake-up per drain. Consecutive scalars and consecutive log lines are
// merged into one event, so a drain emits one signal per kind change, not one per value.
// Images are not merged (the window keeps every one of a run): each is one event, its pixels
// copied once, on the engine thread and outside the lock, then moved through.

#include <deque>
#include <functional>
#include <mutex>
#include <optional>

#include "app/bridge/BridgeTypes.h"

namespace tbench::bridge {

struct RunEvent {
  enum class Kind { Started, Metrics, Log, Image, CheckpointSaved, Finished, Failed };
  Kind kind = Kind::Log;
  MetricSamples samples;      ///< Metrics
  QStringList lines;          ///< Log
  ImageSample image;          ///< Image
  QString text;               ///< Started: run directory; CheckpointSaved: path; Failed: message
  qint64 stepsPerEpoch = 0;   ///< Started
  qint64 maxEpoch = 0;        ///< Started
  qint64 samplesPerStep = 0;  ///< Started
  bool stoppedEarly = false;  ///< Finished
};

class RunMailbox {
 public:
  explicit RunMailbox(std::function<void()> wake) : wake_(std::move(wake)) {}

  void post(RunEvent event);
  void addSample(MetricSample sample);
  void addLogLine(QString line);
  void addImage(ImageSample image);
  void setProgress(const RunProgress& progress);

  /// Everything posted since the last take, in order, and the latest progress if it changed.
  std::deque<RunEvent> take(std::optional<RunProgress>* progress);

 private:
  void wakeLocked();

  std::mutex mutex_;
  std::deque<RunEvent> events_;
  std::optional<RunProgress> progress_;
  bool wakePending_ = false;
  std::function<void()> wake_;
};

}  // namespace tbench::bridge
