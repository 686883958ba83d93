#include "engine/data/MapData.h"

#include "engine/core/Check.h"

namespace tbench {

MapData::MapData(DataFlowPtr child, Function function, bool mayDrop)
    : ProxyDataFlow(std::move(child)), function_(std::move(function)), mayDrop_(mayDrop) {
  TB_CHECK(static_cast<bool>(function_), "MapData needs a function");
}

bool MapData::nextMapped(DataPass& pass, const Function& function, bool mayDrop,
                         const char* dropped, Datapoint& out) {
  Datapoint point;
  while (pass.next(point)) {
    auto mapped = function(std::move(point));
    if (mapped) {
      out = std::move(*mapped);
      return true;
    }
    TB_CHECK(mayDrop, dropped);
  }
  return false;
}

bool MapData::nextPoint(Datapoint& out) {
  return nextMapped(childPass(), function_, mayDrop_,
                    "the MapData function dropped a datapoint; construct the MapData with "
                    "mayDrop = true to allow that (its size() is then unknown)",
                    out);
}

}  // namespace tbench
