#include "app/bridge/BridgeMonitor.h"

#include <algorithm>
#include <string_view>

#include "engine/core/Check.h"
#include "engine/core/Names.h"

namespace tbench::bridge {

static_assert(std::string_view(bridge::kLearningRate) == names::kLearningRate,
              "the window's name of the learning rate is the engine's");
namespace {
constexpr auto kProgressInterval = std::chrono::milliseconds(100);
constexpr double kRateWindowSeconds = 3.0;
}  // namespace

void BridgeMonitor::processScalar(const std::string& name, double value, const MetricStamp& stamp) {
  mailbox_->addSample(MetricSample{QString::fromStdString(name), stamp.globalStep, stamp.epochNum,
                                   stamp.wallTime, value});
}

void BridgeMonitor::processImage(const std::string& name, const ImageData& image,
                                 const MetricStamp& stamp) {
  const size_t expected = static_cast<size_t>(image.height) * image.width * image.channels;
  TB_CHECK(image.height > 0 && image.width > 0 &&
               (image.channels == 1 || image.channels == 3 || image.channels == 4) &&
               image.pixels.size() == expected,
           "image \"", name, "\" is not ", image.height, "x", image.width, "x", image.channels,
           " bytes (has ", image.pixels.size(), ")");
  ImageSample sample;
  sample.name = QString::fromStdString(name);
  sample.step = stamp.globalStep;
  sample.epoch = stamp.epochNum;
  sample.wallTime = stamp.wallTime;
  sample.width = image.width;
  sample.height = image.height;
  sample.channels = image.channels;
  sample.pixels = QByteArray(reinterpret_cast<const char*>(image.pixels.data()),
                             static_cast<qsizetype>(image.pixels.size()));
  mailbox_->addImage(std::move(sample));
}

void BridgeMonitor::onBeforeTrain() {
  globalStep_ = context().globalStep();
  trainStart_ = now_();
  pausedAtStart_ = context().secondsPaused();
  firstStepDone_ = false;
  endStart_ = -1;
  endSeconds_ = 0;
  ends_ = 0;
  recent_.clear();
  recent_.emplace_back(0.0, context().globalStep());
  publishProgress(trainStart_);
}

void BridgeMonitor::onAfterRun() {
  globalStep_.store(context().globalStep(), std::memory_order_relaxed);
  if (!firstStepDone_) {
    firstStepDone_ = true;
    publishFirstLearningRate();
  }
  const auto now = now_();
  if (now - lastPublished_ >= kProgressInterval) publishProgress(now);
}

void BridgeMonitor::publishFirstLearningRate() {
  HyperParam* rate = context().hyperParam(names::kLearningRate);
  if (!rate) return;
  const double wallTime =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  mailbox_->addSample(MetricSample{QString::fromLatin1(kLearningRate), context().globalStep(),
                                   context().epochNum(), wallTime, rate->get()});
}

void BridgeMonitor::onAfterEpoch() { endStart_ = activeSeconds(now_()); }

void BridgeMonitor::onTriggerEpoch() {
  if (endStart_ < 0) return;
  endSeconds_ += activeSeconds(now_()) - endStart_;
  ++ends_;
  endStart_ = -1;
}

void BridgeMonitor::onAfterTrain() { publishProgress(now_()); }

double BridgeMonitor::activeSeconds(Clock::time_point now) const {
  const double wall = std::chrono::duration<double>(now - trainStart_).count();
  return wall - (context().secondsPaused() - pausedAtStart_);
}

void BridgeMonitor::publishProgress(Clock::time_point now) {
  lastPublished_ = now;
  const TrainerContext& c = context();
  RunProgress p;
  p.epoch = c.epochNum();
  p.maxEpoch = c.maxEpoch();
  p.stepsPerEpoch = c.stepsPerEpoch();
  p.globalStep = c.globalStep();
  p.samplesPerStep = c.samplesPerStep();
  if (HyperParam* rate = context().hyperParam(names::kLearningRate)) p.learningRate = rate->get();
  // The loop's own count (a resumed run continues its epoch mid-way), not one derived here.
  p.stepInEpoch =
      std::clamp<int64_t>(c.stepsDoneInEpoch(), 0, std::max<int64_t>(0, p.stepsPerEpoch));

  // The steps' own time: the epochs' ends are not steps (a rate measured across a validation
  // had dropped for 3 s after each).
  const double active = activeSeconds(now) - endSeconds_;
  recent_.emplace_back(active, p.globalStep);
  while (recent_.size() > 2 && active - recent_.front().first > kRateWindowSeconds) {
    recent_.pop_front();
  }
  const double seconds = active - recent_.front().first;
  const int64_t steps = p.globalStep - recent_.front().second;
  if (seconds > 0.05 && steps > 0) {
    p.stepsPerSecond = steps / seconds;
    // The steps left by the loop's position (not max_epoch x steps_per_epoch less the global
    // step, which a resume with another steps_per_epoch breaks), and the ends of the epochs
    // left, this one's included, at their mean so far.
    const int64_t epochsAfter = std::max<int64_t>(0, p.maxEpoch - p.epoch);
    const int64_t remaining = epochsAfter * p.stepsPerEpoch + (p.stepsPerEpoch - p.stepInEpoch);
    const double ends =
        ends_ > 0 ? endSeconds_ / static_cast<double>(ends_) * double(epochsAfter + 1) : 0.0;
    p.etaSeconds = remaining > 0 ? remaining / p.stepsPerSecond + ends : 0.0;
  }
  mailbox_->setProgress(p);
}

}  // namespace tbench::bridge
