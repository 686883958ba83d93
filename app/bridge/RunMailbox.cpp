#include "app/bridge/RunMailbox.h"

namespace tbench::bridge {

void RunMailbox::post(RunEvent event) {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(std::move(event));
  wakeLocked();
}

void RunMailbox::addSample(MetricSample sample) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.empty() || events_.back().kind != RunEvent::Kind::Metrics) {
    events_.push_back(RunEvent{RunEvent::Kind::Metrics});
  }
  events_.back().samples.append(std::move(sample));
  wakeLocked();
}

void RunMailbox::addLogLine(QString line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (events_.empty() || events_.back().kind != RunEvent::Kind::Log) {
    events_.push_back(RunEvent{RunEvent::Kind::Log});
  }
  events_.back().lines.append(std::move(line));
  wakeLocked();
}

void RunMailbox::addImage(ImageSample image) {
  RunEvent event{RunEvent::Kind::Image};
  event.image = std::move(image);
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(std::move(event));
  wakeLocked();
}

void RunMailbox::setProgress(const RunProgress& progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  progress_ = progress;
  wakeLocked();
}

std::deque<RunEvent> RunMailbox::take(std::optional<RunProgress>* progress) {
  std::lock_guard<std::mutex> lock(mutex_);
  wakePending_ = false;
  std::deque<RunEvent> events;
  events.swap(events_);
  if (progress) *progress = progress_;
  progress_.reset();
  return events;
}

void RunMailbox::wakeLocked() {
  if (wakePending_) return;
  wakePending_ = true;
  if (wake_) wake_();
}

}  // namespace tbench::bridge
