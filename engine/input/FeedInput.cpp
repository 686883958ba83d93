#include "engine/input/FeedInput.h"

#include "engine/core/Check.h"

namespace tbench {

FeedInput::FeedInput(DataFlowPtr dataflow) : dataflow_(std::move(dataflow)) {
  TB_CHECK(dataflow_ != nullptr, "FeedInput needs a DataFlow");
}

Datapoint FeedInput::nextDatapoint() {
  for (int64_t skip = takeSkipCount(); skip > 0; --skip) pull();
  return pull();
}

Datapoint FeedInput::pull() {
  Datapoint point;
  if (pass_ && pass_->next(point)) return point;
  pass_.reset();
  pass_.emplace(dataflow_->pass());
  if (!pass_->next(point)) throw InputError("the training DataFlow produced an empty pass");
  return point;
}

}  // namespace tbench
