#include "engine/input/DummyConstantInput.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

DummyConstantInput::DummyConstantInput(int64_t batchSize, uint64_t seed)
    : batchSize_(batchSize), seed_(seed) {
  TB_CHECK(batchSize_ > 0, "batch size must be positive, got ", batchSize_);
}

void DummyConstantInput::onSetup() {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed_);
  for (const InputSpec& spec : specs()) {
    std::vector<int64_t> shape = spec.shape;
    for (auto& d : shape) d = d < 0 ? batchSize_ : d;
    torch::Tensor t;
    if (c10::isFloatingType(spec.dtype)) {
      t = at::randn(shape, generator, torch::TensorOptions().dtype(spec.dtype));
    } else {
      t = torch::zeros(shape, torch::TensorOptions().dtype(spec.dtype));
    }
    constant_.push_back(t);
  }
}

Datapoint DummyConstantInput::nextDatapoint() {
  ++taken_;
  return constant_;
}

}  // namespace tbench
