#include "engine/input/Batch.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {
namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  }
  return text + "]";
}

}  // namespace

Batch::Batch(const std::vector<InputSpec>& specs, Datapoint tensors)
    : tensors_(std::move(tensors)) {
  if (tensors_.size() != specs.size()) {
    throw InputError(str("the data gives ", tensors_.size(),
                         " components per batch but the model has ", specs.size(), " inputs"));
  }
  names_.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const InputSpec& spec = specs[i];
    const torch::Tensor& t = tensors_[i];
    names_.push_back(spec.name);
    bool ok = t.defined() && t.dim() == static_cast<int64_t>(spec.shape.size()) &&
              t.scalar_type() == spec.dtype;
    for (size_t d = 0; ok && d < spec.shape.size(); ++d) {
      ok = spec.shape[d] < 0 || spec.shape[d] == t.size(static_cast<int64_t>(d));
    }
    if (ok && i > 0 && t.dim() > 0 && tensors_[0].dim() > 0) ok = t.size(0) == tensors_[0].size(0);
    if (!ok) {
      throw InputError(str("input \"", spec.name, "\" expects ", c10::toString(spec.dtype), " ",
                           shapeText(spec.shape), ", the data gives ",
                           t.defined()
                               ? tbench::str(t.scalar_type(), " ", shapeText(t.sizes().vec()))
                               : std::string("an undefined tensor")));
    }
  }
}

const torch::Tensor& Batch::operator[](const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return tensors_[i];
  }
  std::string known;
  for (const auto& n : names_) known += (known.empty() ? "" : ", ") + n;
  TB_CHECK(false, "no input called \"", name, "\" in the batch (inputs: ", known, ")");
  static const torch::Tensor kNone;
  return kNone;
}

int64_t Batch::batchSize() const {
  return tensors_.empty() || tensors_[0].dim() == 0 ? 0 : tensors_[0].size(0);
}

Batch Batch::channelsLast() const {
  Batch converted;
  converted.names_ = names_;
  converted.tensors_.reserve(tensors_.size());
  for (const auto& t : tensors_) {
    converted.tensors_.push_back(t.dim() == 4 && t.is_floating_point()
                                     ? t.contiguous(torch::MemoryFormat::ChannelsLast)
                                     : t);
  }
  return converted;
}

Batch Batch::to(const torch::Device& device) const {
  Batch moved;
  moved.names_ = names_;
  moved.tensors_.reserve(tensors_.size());
  for (const auto& t : tensors_) moved.tensors_.push_back(t.to(device, /*non_blocking=*/true));
  return moved;
}

}  // namespace tbench
