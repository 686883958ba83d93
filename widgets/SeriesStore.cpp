#include "widgets/SeriesStore.h"

#include <QSet>
#include <algorithm>

namespace tbench::ui {

QVector<SeriesKey> SeriesStore::append(const MetricPoints& points) {
  QVector<SeriesKey> touched;
  QSet<SeriesKey> touchedSet;
  // The bridge sends bursts where consecutive points often share a run; caching the last
  // RunInfo and Series avoids a hash lookup per point in the common cases.
  Series* last = nullptr;
  RunInfo* lastInfo = nullptr;
  SeriesKey lastKey;
  for (const MetricPoint& p : points) {
    SeriesKey key{p.run, p.name};
    if (!last || key != lastKey) {
      auto it = series_.find(key);
      if (it == series_.end()) {
        it = series_.insert(key, std::make_shared<Series>(smoothingWeight_));
        keys_.append(key);
      }
      last = it->get();
      lastInfo = &runInfo_[p.run];  // stable until the next insertion, which re-fetches it
      if (!lastInfo->started) {
        lastInfo->started = true;
        runs_.append(p.run);
      }
      lastKey = key;
      if (!touchedSet.contains(key)) {
        touchedSet.insert(key);
        touched.append(key);
      }
    }
    // The wall clock starts at the run's first dated point: the past a resumed run is drawn
    // with (stats.json's, undated: 0) does not make it 0 (the live points sat at 1.7e9 s).
    if (!(lastInfo->wallOrigin > 0.0) && p.wallTime > 0.0) lastInfo->wallOrigin = p.wallTime;
    noteEpoch(*lastInfo, p.epoch, p.step);
    lastInfo->lastStep = std::max(lastInfo->lastStep, p.step);
    lastInfo->lastEpoch = std::max(lastInfo->lastEpoch, p.epoch);
    lastInfo->lastWallTime = std::max(lastInfo->lastWallTime, p.wallTime);
    const int before = last->size();
    last->append(p.step, p.epoch, p.wallTime, p.value);
    pointCount_ += last->size() - before;  // fewer once buckets merge (Note [Bounded series])
  }
  return touched;
}

void SeriesStore::noteEpoch(RunInfo& info, qint64 epoch, qint64 step) {
  if (epoch > info.currentEpoch) {
    // Points arrive in training order, so a later epoch means the current one has ended.
    if (info.currentEpoch >= 1 && info.maxStepInCurrentEpoch > 0) {
      const double estimate = double(info.maxStepInCurrentEpoch) / double(info.currentEpoch);
      if (estimate != info.estimatedStepsPerEpoch) {
        info.estimatedStepsPerEpoch = estimate;
        if (info.declaredStepsPerEpoch == 0) ++info.epochScaleRevision;
      }
    }
    info.currentEpoch = epoch;
    info.maxStepInCurrentEpoch = step;
  } else if (epoch == info.currentEpoch && step > info.maxStepInCurrentEpoch) {
    info.maxStepInCurrentEpoch = step;
  }
}

const Series* SeriesStore::series(const SeriesKey& key) const {
  auto it = series_.constFind(key);
  return it == series_.cend() ? nullptr : it->get();
}

void SeriesStore::setSmoothingWeight(double weight) {
  weight = EmaSmoother::clampWeight(weight);
  if (weight == smoothingWeight_) return;
  smoothingWeight_ = weight;
  for (auto& s : series_) s->setSmoothingWeight(weight);
}

void SeriesStore::setStepsPerEpoch(const QString& run, qint64 steps) {
  RunInfo& info = runInfo_[run];
  const double before = stepsPerEpoch(run);
  info.declaredStepsPerEpoch = steps > 0 ? steps : 0;
  if (stepsPerEpoch(run) != before) ++info.epochScaleRevision;
}

double SeriesStore::stepsPerEpoch(const QString& run) const {
  auto it = runInfo_.constFind(run);
  if (it == runInfo_.cend()) return 0.0;
  return it->declaredStepsPerEpoch > 0 ? double(it->declaredStepsPerEpoch)
                                       : it->estimatedStepsPerEpoch;
}

int SeriesStore::epochScaleRevision(const QString& run) const {
  auto it = runInfo_.constFind(run);
  return it == runInfo_.cend() ? 0 : it->epochScaleRevision;
}

XMapping SeriesStore::xMapping(const QString& run, XAxisMode mode) const {
  XMapping mapping;
  mapping.mode = mode;
  auto it = runInfo_.constFind(run);
  if (it != runInfo_.cend()) mapping.wallOrigin = it->wallOrigin;
  mapping.stepsPerEpoch = stepsPerEpoch(run);
  return mapping;
}

double SeriesStore::runEndX(const QString& run, XAxisMode mode) const {
  auto it = runInfo_.constFind(run);
  if (it == runInfo_.cend() || !it->started) return 0.0;
  switch (mode) {
    case XAxisMode::Epoch: {
      const double perEpoch = stepsPerEpoch(run);
      return perEpoch > 0.0 ? double(it->lastStep) / perEpoch : double(it->lastEpoch);
    }
    case XAxisMode::WallTime:
      return it->lastWallTime > 0.0 ? it->lastWallTime - it->wallOrigin : 0.0;
    case XAxisMode::Step:
      break;
  }
  return double(it->lastStep);
}

void SeriesStore::removeRun(const QString& run) {
  for (auto it = series_.begin(); it != series_.end();) {
    if (it.key().run == run) {
      pointCount_ -= (*it)->size();
      it = series_.erase(it);
    } else {
      ++it;
    }
  }
  keys_.removeIf([&](const SeriesKey& k) { return k.run == run; });
  runs_.removeAll(run);
  runInfo_.remove(run);
}

void SeriesStore::clear() {
  series_.clear();
  keys_.clear();
  runs_.clear();
  runInfo_.clear();
  pointCount_ = 0;
}

}  // namespace tbench::ui
