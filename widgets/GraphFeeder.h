#pragma once
// GraphFeeder: copies the points of a Series into the two QCPGraphs that draw it (raw values
// and smoothed values), either from the start (replacing what the graph holds) or only the
// points it does not have yet.

#include "widgets/DecimatedGraph.h"
#include "widgets/Series.h"
#include "widgets/XMapping.h"

namespace tbench::ui {

class GraphFeeder {
 public:
  /// Points [rawFrom, size) go to `raw` and [smoothFrom, size) to `smooth`; a start of 0
  /// replaces the graph's data, any other appends. Appending keys that follow the graph's
  /// last key costs O(new points) (QCPDataContainer appends without sorting). With
  /// `smoothValues` false, `smooth` gets the raw values too (a held value is never averaged).
  /// Returns whether the points fed follow each other and the point before them in x (false
  /// after a resume took the steps back: the graphs then hold them sorted by x, not in the
  /// series' order).
  static bool feed(DecimatedGraph* raw, DecimatedGraph* smooth, const Series& series,
                   const XMapping& mapping, int rawFrom, int smoothFrom, bool smoothValues = true);
};

}  // namespace tbench::ui
