#include "app/gui/run/RunFollower.h"

#include <algorithm>

#include "app/gui/rundir/RunDirectoryInfo.h"

#include <sys/stat.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <limits>

#include "app/gui/rundir/RunStats.h"

namespace tbench::gui {

namespace {
constexpr qint64 kHeadBytes = 256;
}  // namespace

RunFollower::RunFollower(QObject* parent) : QObject(parent) {
  timer_.setInterval(kPollMs);
  connect(&timer_, &QTimer::timeout, this, &RunFollower::poll);
  catchUp_.setSingleShot(true);
  catchUp_.setInterval(0);
  connect(&catchUp_, &QTimer::timeout, this, [this] {
    if (timer_.isActive()) poll();  // not after stop()
  });
}

void RunFollower::follow(const QString& runDir) {
  runDir_ = runDir;
  streamOffset_ = 0;
  streamHead_.clear();
  partial_.clear();
  streamFile_ = 0;
  given_.clear();
  replaced_ = false;
  statsPoints_ = 0;
  statsSteps_.clear();
  usingStream_ = false;
  endedSeen_ = false;
  endedSent_ = false;
  deadPolls_ = 0;
  reported_.clear();
  status_ = FollowedStatus();
  timer_.start();
  poll();
}

void RunFollower::stop() {
  timer_.stop();
  catchUp_.stop();
}

void RunFollower::poll() {
  if (runDir_.isEmpty()) return;
  // run.json first: the engine writes its last scalars before it records the end, so a run
  // seen ended here has all its points in the files read next.
  const FollowedStatus before = status_;
  readStatus();
  bridge::MetricSamples samples;
  const bool behind = readStream(samples);
  if (!usingStream_) readStats(samples);
  if (!samples.isEmpty()) emit metricsRead(samples);
  if (!(status_ == before)) emit statusChanged(status_);
  if (behind) {
    catchUp_.start();  // the end waits for the rest of the file
  } else if (endedSeen_ && !endedSent_) {
    endedSent_ = true;
    emit ended(status_.state);
  }
}

bool RunFollower::readStream(bridge::MetricSamples& out) {
  QFile file(QDir(runDir_).filePath("scalars.jsonl"));
  if (!file.exists()) return false;
  if (!usingStream_) {
    // From now on the stream has every point; stats.json's would repeat some.
    usingStream_ = true;
  }
  if (!file.open(QIODevice::ReadOnly)) return false;
  struct stat info {};
  const quint64 inode = ::fstat(file.handle(), &info) == 0 ? quint64(info.st_ino) : 0;
  const qint64 size = file.size();
  const QByteArray head = file.read(std::min(size, kHeadBytes));
  if (size < streamOffset_ || !head.startsWith(streamHead_) ||
      (streamFile_ != 0 && inode != streamFile_)) {
    // Shorter, other first bytes or another file: rewritten or replaced (a resume that dropped
    // the values after its checkpoint, a new run in this directory). The lines it kept were
    // given (the same name, step and time).
    streamOffset_ = 0;
    streamHead_.clear();
    partial_.clear();
    replaced_ = true;
  }
  streamFile_ = inode;
  if (streamHead_.size() < kHeadBytes) streamHead_ = head;
  if (size == streamOffset_) return false;
  file.seek(streamOffset_);
  const QByteArray data = file.read(std::min(size - streamOffset_, kMaxReadBytes));
  streamOffset_ += data.size();
  const bool behind = streamOffset_ < size;
  partial_ += data;
  const qsizetype end = partial_.lastIndexOf('\n');
  if (end < 0) return behind;
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
    // Points stats.json gave before the stream appeared are not given twice, nor those read
    // before the file was replaced.
    if (sample->step <= statsSteps_.value(sample->name, -1)) continue;
    const quint64 key = qHashMulti(0, sample->name, sample->step, sample->wallTime);
    if (replaced_ && given_.contains(key)) continue;
    given_.insert(key);
    out.append(*sample);
  }
  if (damaged > 0 && !reported_.contains("scalars.jsonl")) {
    reported_ << "scalars.jsonl";
    emit problem(tr("%1: %2 line(s) are not scalars; skipped")
                     .arg(QDir::toNativeSeparators(file.fileName()))
                     .arg(damaged));
  }
  return behind;
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

void RunFollower::readStatus() {
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
  // A run killed without recording its end (SIGKILL, the OOM killer) stays "running" in
  // run.json: its process gone on this host, seen twice a poll apart (not the moment between
  // its last write and its exit), the follow ends with the state unknown.
  deadPolls_ = run.state == bridge::RunState::Running && !run.writerAlive ? deadPolls_ + 1 : 0;
  if (deadPolls_ >= 2) {
    status.state = bridge::RunState::Unknown;
    status.error = tr("its process is gone without recording an end (killed?)");
    endedSeen_ = true;
  }
  status_ = status;
  if (bridge::hasEnded(status_.state)) endedSeen_ = true;
}

}  // namespace tbench::gui
