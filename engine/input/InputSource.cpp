#include "engine/input/InputSource.h"

#include "engine/core/Check.h"

namespace tbench {

void InputSource::setup(const std::vector<InputSpec>& specs) {
  TB_CHECK(!setUp_, "InputSource::setup() must be called once");
  TB_CHECK(!specs.empty(), "a model needs at least one input");
  specs_ = specs;
  setUp_ = true;
  onSetup();
}

}  // namespace tbench
