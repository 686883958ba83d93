#include "engine/inference/PassRate.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"

namespace tbench {

void PassRate::beforeInference() {
  counted_ = 0;
  unread_ = torch::Tensor();
  samples_ = 0;
}

void PassRate::add(const torch::Tensor& count, int64_t samples) {
  const torch::Tensor sum = count.sum(torch::kDouble);
  unread_ = unread_.defined() ? unread_ + sum : sum;
  samples_ += samples;
}

double PassRate::count() const {
  if (unread_.defined()) {
    counted_ += hostItem<double>(unread_);
    unread_ = torch::Tensor();
  }
  return counted_;
}

std::map<std::string, double> PassRate::afterInference() {
  if (samples_ == 0) return {};
  return {{scalarName(), count() / static_cast<double>(samples_)}};
}

torch::Tensor PassRate::totals() const {
  return torch::tensor({count(), static_cast<double>(samples_)}, torch::kDouble);
}

void PassRate::setTotals(const torch::Tensor& totals) {
  TB_CHECK(totals.numel() == 2, scalarName(), ": totals of another length");
  const torch::Tensor t = totals.to(torch::kCPU, torch::kDouble).contiguous();
  counted_ = t.data_ptr<double>()[0];
  unread_ = torch::Tensor();
  samples_ = static_cast<int64_t>(t.data_ptr<double>()[1]);
}

}  // namespace tbench
