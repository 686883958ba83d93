#include "engine/inference/ScalarStats.h"

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"

namespace tbench {

ScalarStats::ScalarStats(std::vector<std::string> names, std::string prefix)
    : names_(std::move(names)), prefix_(std::move(prefix)) {
  TB_CHECK(!names_.empty(), "ScalarStats needs at least one output name");
}

void ScalarStats::beforeInference() {
  sums_.assign(names_.size(), 0.0);
  unread_ = torch::Tensor();
  samples_ = 0;
}

const std::vector<double>& ScalarStats::sums() const {
  if (unread_.defined()) {
    const torch::Tensor read = hostCopy(unread_, torch::kDouble);
    for (size_t i = 0; i < sums_.size(); ++i) sums_[i] += read.data_ptr<double>()[i];
    unread_ = torch::Tensor();
  }
  return sums_;
}

void ScalarStats::onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) {
  std::vector<torch::Tensor> values;
  values.reserve(names_.size());
  for (size_t i = 0; i < names_.size(); ++i) {
    auto it = outputs.find(names_[i]);
    TB_CHECK(it != outputs.end(), "the model has no inference output \"", names_[i], "\"");
    TB_CHECK(it->second.numel() == 1, "inference output \"", names_[i],
             "\" must be a scalar, got shape ", it->second.sizes());
    values.push_back(it->second.detach().to(torch::kDouble).reshape({}) *
                     static_cast<double>(batchSize));
  }
  // Summed where the model ran and read once a pass (Note [Host reads]).
  const torch::Tensor batch = torch::stack(values);
  unread_ = unread_.defined() ? unread_ + batch.to(unread_.device()) : batch;
  samples_ += batchSize;
}

std::map<std::string, double> ScalarStats::afterInference() {
  std::map<std::string, double> scalars;
  if (samples_ == 0) return scalars;
  for (size_t i = 0; i < names_.size(); ++i) {
    scalars[prefix_ + names_[i]] = sums()[i] / static_cast<double>(samples_);
  }
  return scalars;
}

torch::Tensor ScalarStats::totals() const {
  std::vector<double> values(sums());
  values.push_back(static_cast<double>(samples_));
  return torch::tensor(values, torch::kDouble);
}

void ScalarStats::setTotals(const torch::Tensor& totals) {
  TB_CHECK(totals.numel() == static_cast<int64_t>(names_.size()) + 1,
           "ScalarStats: totals of another length");
  const torch::Tensor t = totals.to(torch::kCPU, torch::kDouble).contiguous();
  const double* v = t.data_ptr<double>();
  for (size_t i = 0; i < names_.size(); ++i) sums_[i] = v[i];
  unread_ = torch::Tensor();
  samples_ = static_cast<int64_t>(v[names_.size()]);
}

}  // namespace tbench
