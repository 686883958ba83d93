#pragma once
// FeedInput: pulls batches from a DataFlow on the calling thread, with no prefetching. Passes
// are repeated forever; resetState() is called in setup.

#include "engine/data/DataFlow.h"
#include "engine/input/InputSource.h"

namespace tbench {

class FeedInput : public InputSource {
 public:
  explicit FeedInput(DataFlowPtr dataflow);
  std::optional<int64_t> size() const override { return dataflow_->size(); }

 protected:
  void onSetup() override { dataflow_->resetState(); }
  Datapoint nextDatapoint() override;

 private:
  Datapoint pull();
  DataFlowPtr dataflow_;
  std::optional<DataPass> pass_;
};

}  // namespace tbench
