#include "engine/data/PrefetchData.h"

namespace tbench {

PrefetchData::PrefetchData(DataFlowPtr child, int64_t bufferSize)
    : MultiThreadMapData(
          std::move(child), 1,
          [](Datapoint point) { return std::optional<Datapoint>(std::move(point)); },
          Options().bufferSize(bufferSize).ordered(true)) {}

}  // namespace tbench
