#pragma once
// PrefetchData: reads the child on one background thread into a bounded buffer, so that the
// consumer overlaps its work with the child's (tensorpack's PrefetchData, with a thread
// instead of processes).
//
// It is MultiThreadMapData with one worker and the identity: the same rules for passes,
// exceptions (rethrown by next() on the consumer's thread, after the datapoints before them)
// and early closes (the thread is stopped and joined; the next pass starts afresh).

#include "engine/data/MultiThreadMapData.h"

namespace tbench {

class PrefetchData : public MultiThreadMapData {
 public:
  /// `bufferSize` >= 1: datapoints read ahead at most.
  PrefetchData(DataFlowPtr child, int64_t bufferSize);
};

}  // namespace tbench
