#include "engine/inference/TopKAccuracy.h"

#include <algorithm>

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"

namespace tbench {

TopKAccuracy::TopKAccuracy(int64_t k) : k_(k) {
  TB_CHECK(k_ >= 1, "TopKAccuracy: k must be >= 1, got ", k_);
}

std::string TopKAccuracy::scalarName() const {
  return "validation_top" + std::to_string(k_) + "_accuracy";
}

void TopKAccuracy::beforeInference() {
  correct_ = 0;
  unread_ = torch::Tensor();
  samples_ = 0;
}

double TopKAccuracy::correctCount() const {
  if (unread_.defined()) {
    correct_ += hostItem<double>(unread_);
    unread_ = torch::Tensor();
  }
  return correct_;
}

void TopKAccuracy::onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) {
  const auto logits = outputs.find("logits");
  const auto labels = outputs.find("label");
  TB_CHECK(logits != outputs.end() && labels != outputs.end(),
           "top-k accuracy needs the model's inference outputs \"logits\" and \"label\"");
  const torch::Tensor& l = logits->second;
  TB_CHECK(l.dim() == 2 && l.size(0) == batchSize, "inference output \"logits\" must be [",
           batchSize, ", classes], got ", l.sizes());
  const int64_t k = std::min<int64_t>(k_, l.size(1));
  const torch::Tensor top = std::get<1>(l.topk(k, /*dim=*/1));
  const torch::Tensor hit = top.eq(labels->second.view({-1, 1})).any(1);
  const torch::Tensor count = hit.sum(torch::kDouble);
  unread_ = unread_.defined() ? unread_ + count : count;
  samples_ += batchSize;
}

std::map<std::string, double> TopKAccuracy::afterInference() {
  if (samples_ == 0) return {};
  return {{scalarName(), correctCount() / static_cast<double>(samples_)}};
}

torch::Tensor TopKAccuracy::totals() const {
  return torch::tensor({correctCount(), static_cast<double>(samples_)}, torch::kDouble);
}

void TopKAccuracy::setTotals(const torch::Tensor& totals) {
  TB_CHECK(totals.numel() == 2, "TopKAccuracy: totals of another length");
  const torch::Tensor t = totals.to(torch::kCPU, torch::kDouble).contiguous();
  correct_ = t.data_ptr<double>()[0];
  unread_ = torch::Tensor();
  samples_ = static_cast<int64_t>(t.data_ptr<double>()[1]);
}

}  // namespace tbench
