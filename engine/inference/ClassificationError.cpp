#include "engine/inference/ClassificationError.h"

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"

namespace tbench {

ClassificationError::ClassificationError(std::string wrongOutput, std::string scalarName)
    : wrongOutput_(std::move(wrongOutput)), scalarName_(std::move(scalarName)) {}

void ClassificationError::beforeInference() {
  wrong_ = 0;
  unread_ = torch::Tensor();
  samples_ = 0;
}

double ClassificationError::wrongCount() const {
  if (unread_.defined()) {
    wrong_ += hostItem<double>(unread_);
    unread_ = torch::Tensor();
  }
  return wrong_;
}

void ClassificationError::onBatch(const std::map<std::string, torch::Tensor>& outputs,
                                  int64_t batchSize) {
  auto it = outputs.find(wrongOutput_);
  TB_CHECK(it != outputs.end(), "the model has no inference output \"", wrongOutput_, "\"");
  const torch::Tensor& wrong = it->second;
  TB_CHECK(wrong.dim() == 1 && wrong.size(0) == batchSize, "inference output \"", wrongOutput_,
           "\" must have one value per sample (", batchSize, "), got shape ", wrong.sizes());
  // Counted where the model ran and read once a pass (Note [Host reads]).
  const torch::Tensor count = wrong.sum(torch::kDouble);
  unread_ = unread_.defined() ? unread_ + count : count;
  samples_ += batchSize;
}

std::map<std::string, double> ClassificationError::afterInference() {
  if (samples_ == 0) return {};
  return {{scalarName_, wrongCount() / static_cast<double>(samples_)}};
}

torch::Tensor ClassificationError::totals() const {
  return torch::tensor({wrongCount(), static_cast<double>(samples_)}, torch::kDouble);
}

void ClassificationError::setTotals(const torch::Tensor& totals) {
  TB_CHECK(totals.numel() == 2, "ClassificationError: totals of another length");
  const torch::Tensor t = totals.to(torch::kCPU, torch::kDouble).contiguous();
  wrong_ = t.data_ptr<double>()[0];
  unread_ = torch::Tensor();
  samples_ = static_cast<int64_t>(t.data_ptr<double>()[1]);
}

}  // namespace tbench
