#include "engine/data/datasets/TensorData.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

void TensorData::setTensors(std::vector<torch::Tensor> tensors) {
  TB_CHECK(!tensors.empty(), "TensorData: no tensor");
  for (const torch::Tensor& t : tensors) {
    TB_CHECK(t.defined() && t.dim() >= 1 && t.size(0) == tensors.front().size(0),
             "TensorData: the tensors differ in length");
  }
  tensors_ = std::move(tensors);
}

void TensorData::startPass() {
  TB_CHECK(!tensors_.empty(), "TensorData: a pass before the tensors were set");
  order_.start(static_cast<size_t>(tensors_.front().size(0)));
}

bool TensorData::nextPoint(Datapoint& out) {
  int64_t i = 0;
  if (!order_.next(i)) return false;
  out.resize(tensors_.size());
  for (size_t k = 0; k < tensors_.size(); ++k) out[k] = tensors_[k][i];
  return true;
}

int64_t TensorData::nextStackedPoints(int64_t n, Datapoint& out) {
  auto indices = torch::empty({n}, torch::kInt64);
  int64_t* at = indices.data_ptr<int64_t>();
  int64_t taken = 0;
  while (taken < n && order_.next(at[taken])) ++taken;
  if (taken == 0) return 0;
  if (taken < n) indices = indices.narrow(0, 0, taken);
  out.resize(tensors_.size());
  for (size_t k = 0; k < tensors_.size(); ++k) out[k] = tensors_[k].index_select(0, indices);
  return taken;
}

}  // namespace tbench
