#pragma once
// Batch: the tensors of one step for one tower, by input name.
//
//   auto logits = net.forward(batch["image"]);

#include <string>
#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/input/InputSpec.h"

namespace tbench {

class Batch {
 public:
  Batch() = default;
  /// Pairs `tensors` with the names of `specs` by position and checks each against its spec
  /// (dtype, rank, fixed dimensions, equal batch size). Throws InputError naming the input,
  /// the expected and the actual shape.
  Batch(const std::vector<InputSpec>& specs, Datapoint tensors);

  /// The tensor of input `name`; throws CheckError listing the names when there is none.
  const torch::Tensor& operator[](const std::string& name) const;
  const std::vector<torch::Tensor>& tensors() const { return tensors_; }
  const std::vector<std::string>& names() const { return names_; }
  /// Size of dimension 0 of the first input (0 for an empty batch).
  int64_t batchSize() const;
  /// A copy on `device` (non-blocking where possible).
  Batch to(const torch::Device& device) const;
  /// The same batch with its 4-D floating-point tensors (images) in channels-last (NHWC)
  /// memory order; the others as they are.
  Batch channelsLast() const;

 private:
  std::vector<std::string> names_;
  std::vector<torch::Tensor> tensors_;
};

}  // namespace tbench
