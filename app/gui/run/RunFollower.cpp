#include "app/gui/run/RunFollower.h"

#include <algorithm>

#include "app/gui/rundir/RunDirectoryInfo.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <limits>

#include "app/gui/rundir/RunStats.h"

namespace tbench::gui {

RunFollower::RunFollower(QObject* parent) : QObject(parent) {
  timer_.setInterval(kPollMs);
  connect(&timer_, &QTimer::timeout, this, &RunFollower::poll);
}

void RunFollower::follow(const QString& runDir) {
  runDir_ = runDir;
  streamOffset_ = 0;
  partial_.clear();
  statsPoints_ = 0;
  statsSteps_.clear();
  usingStream_ = false;
  endedSent_ = false;
  reported_.clear();
  status_ = FollowedStatus();
  timer_.start();
  poll();
}

void RunFollower::stop() { timer_.stop(); }

void RunFollower::poll() {
  if (runDir_.isEmpty()) return;
  // run.json first: the engine writes its last scalars before it records the end, so a run
  // seen ended here has all its points in the files read next.
  const FollowedStatus before = status_;
  const bool endedBefore = endedSent_;
  readStatus(/*announce=*/false);
  bridge::MetricSamples samples;
  readStream(samples);
  if (!usingStream_) readStats(samples);
  if (!samples.isEmpty()) emit metricsRead(samples);
  if (!(status_ == before)) emit statusChanged(status_);
  if (!endedBefore && endedSent_) emit ended(status_.state);
}

void RunFollower::readStream(bridge::MetricSamples& out) {
  QFile file(QDir(runDir_).filePath("scalars.jsonl"));
  if (!file.exists()) return;
  if (!usingStream_) {
    // From now on the stream has every point; stats.json's would repeat some.
    usingStream_ = true;
  }
  if (file.size() < streamOffset_) {  // rewritten (a new run in this directory): start again
    streamOffset_ = 0;
    partial_.clear();
  }
  if (file.size() == streamOffset_ || !file.open(QIODevice::ReadOnly)) return;
  file.seek(streamOffset_);
  const QByteArray data = file.read(file.size() - streamOffset_);
  streamOffset_ += data.size();
  partial_ += data;
  const qsizetype end = partial_.lastIndexOf('\n');
  if (end < 0) return;
  const QByteArray whole = partial_.left(end);
  partial_ = partial_.mid(end + 1);
  int damaged = 0;
  for (const QByteArray& line : whole.split('\n')) {
    if (line.trimmed().isEmpty()) continue;
    const std::optional<bridge::MetricSample> sample = parseScalarLine(line);  // the engine's
    if (!sample) {
      ++damaged;
      continue;
    }
    // Points stats.json gave before the stream appeared are not given twice.
    if (sample->step <= statsSteps_.value(sample->name, -1)) continue;
    out.append(*sample);
  }
  if (damaged > 0 && !reported_.contains("scalars.jsonl")) {
    reported_ << "scalars.jsonl";
    emit problem(tr("%1: %2 line(s) are not scalars; skipped")
                     .arg(QDir::toNativeSeparators(file.fileName()))
                     .arg(damaged));
  }
}

void RunFollower::readStats(bridge::MetricSamples& out) {
  const QString path = QDir(runDir_).filePath(QLatin1String(kStatsFileName));
  if (!QFileInfo::exists(path)) return;
  const RunStats stats = readStatsFile(path);
  if (!stats.error.isEmpty() && !reported_.contains("stats.json")) {
    reported_ << "stats.json";
    emit problem(stats.error);
  }
  // The file is rewritten whole, appending: the points past those already read are new.
  for (qsizetype i = statsPoints_; i < stats.points.size(); ++i) {
    const ScalarPoint& p = stats.points[i];
    out.append(bridge::MetricSample{p.name, p.step, p.epoch, 0.0, p.value});
    statsSteps_[p.name] = std::max(statsSteps_.value(p.name, -1), p.step);
  }
  statsPoints_ = std::max<qsizetype>(statsPoints_, stats.points.size());
}

void RunFollower::readStatus(bool announce) {
  const bridge::RunStatusView run = readRunStatusFile(runDir_);  // the engine's reader
  if (!run.present || !run.error.isEmpty()) return;  // none yet, or damaged: the next poll
  FollowedStatus status;
  status.present = true;
  status.state = run.state;
  status.epoch = std::max<qint64>(run.epoch, 0);
  status.globalStep = std::max<qint64>(run.globalStep, 0);
  status.maxEpoch = std::max<qint64>(run.maxEpoch, 0);
  status.stepsPerEpoch = std::max<qint64>(run.stepsPerEpoch, 0);
  status.error = run.errorMessage;
  const bool changed = !(status == status_);
  status_ = status;
  if (changed && announce) emit statusChanged(status_);
  if (!endedSent_ && bridge::hasEnded(status_.state)) {
    endedSent_ = true;
    if (announce) emit ended(status_.state);
  }
}

}  // namespace tbench::gui
