#pragma once
// SeriesKey: identifies one curve, a scalar name within a run.

#include <QHashFunctions>
#include <QString>

namespace tbench::ui {

struct SeriesKey {
  QString run;
  QString name;

  friend bool operator==(const SeriesKey& a, const SeriesKey& b) {
    return a.run == b.run && a.name == b.name;
  }
  friend bool operator!=(const SeriesKey& a, const SeriesKey& b) { return !(a == b); }
  /// Orders by run, then name (used for a stable series order in charts and exports).
  friend bool operator<(const SeriesKey& a, const SeriesKey& b) {
    return a.run != b.run ? a.run < b.run : a.name < b.name;
  }
  friend size_t qHash(const SeriesKey& key, size_t seed = 0) {
    return qHashMulti(seed, key.run, key.name);
  }
};

}  // namespace tbench::ui
