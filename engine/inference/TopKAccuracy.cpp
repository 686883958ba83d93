#include "engine/inference/TopKAccuracy.h"

#include <algorithm>

#include "engine/core/Check.h"

namespace tbench {

TopKAccuracy::TopKAccuracy(int64_t k) : k_(k) {
  TB_CHECK(k_ >= 1, "TopKAccuracy: k must be >= 1, got ", k_);
}

std::string TopKAccuracy::scalarName() const {
  return "validation_top" + std::to_string(k_) + "_accuracy";
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
  add(hit, batchSize);
}

}  // namespace tbench
