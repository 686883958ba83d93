#pragma once
// ProgressBar: a per-epoch progress bar on the terminal (stderr), with it/s and chosen
// scalars, like tqdm. When stderr is not a terminal it writes plain lines instead, at most
// one every 10% of the epoch. Silent when the log level is above Info.

#include <string>
#include <vector>

#include "engine/callbacks/Callback.h"
#include "engine/callbacks/EpochClock.h"

namespace tbench {

class ProgressBar : public Callback {
 public:
  /// `scalars`: names whose latest values are shown (e.g. {"cost"}).
  explicit ProgressBar(std::vector<std::string> scalars = {"cost"});

 private:
  void onBeforeTrain() override;
  void onBeforeEpoch() override;
  void onTriggerStep() override;
  void onAfterEpoch() override;

  void draw(int64_t done, bool final);
  std::string scalarText() const;

  std::vector<std::string> scalars_;
  bool enabled_ = true;
  bool terminal_ = false;
  EpochClock epochClock_;  // the rate counts the steps run here, over the time not paused
  double lastDraw_ = -1;
  int64_t lastPlainDecile_ = 0;
};

/// Formats seconds as "1:02:03" or "02:03".
std::string formatDuration(double seconds);

}  // namespace tbench
