#pragma once
// MapData: applies a function to every datapoint. The function may return std::nullopt to
// drop the point (tensorpack's "return None"), if the MapData was told so with `mayDrop`.

#include <functional>

#include "engine/data/ProxyDataFlow.h"

namespace tbench {

class MapData : public ProxyDataFlow {
 public:
  using Function = std::function<std::optional<Datapoint>(Datapoint)>;
  /// With `mayDrop`, the function may return std::nullopt to drop a point; without it, a
  /// dropped point throws CheckError, because size() promised the child's count.
  MapData(DataFlowPtr child, Function function, bool mayDrop = false);
  /// The next point of `pass` that `function` keeps, in `out`; false at the pass's end. A
  /// dropped point without `mayDrop` throws CheckError(`dropped`). MapData's loop, and
  /// MultiThreadMapData's without threads.
  static bool nextMapped(DataPass& pass, const Function& function, bool mayDrop,
                         const char* dropped, Datapoint& out);
  /// Unknown when the function may drop points; the child's size otherwise.
  std::optional<int64_t> size() const override {
    return mayDrop_ ? std::nullopt : ProxyDataFlow::size();
  }

 protected:
  bool nextPoint(Datapoint& out) override;

 private:
  Function function_;
  bool mayDrop_;
};

}  // namespace tbench
