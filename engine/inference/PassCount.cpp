#include "engine/inference/PassCount.h"

#include <torch/torch.h>

#include "engine/core/Check.h"
#include "engine/core/HostRead.h"

namespace tbench {

void PassCount::reset() {
  counted_ = 0;
  unread_ = torch::Tensor();
  samples_ = 0;
}

void PassCount::add(const torch::Tensor& count, int64_t samples) {
  const torch::Tensor sum = count.sum(torch::kDouble);
  unread_ = unread_.defined() ? unread_ + sum : sum;
  samples_ += samples;
}

double PassCount::count() const {
  if (unread_.defined()) {
    counted_ += hostItem<double>(unread_);
    unread_ = torch::Tensor();
  }
  return counted_;
}

torch::Tensor PassCount::totals() const {
  return torch::tensor({count(), static_cast<double>(samples_)}, torch::kDouble);
}

void PassCount::setTotals(const torch::Tensor& totals, const std::string& who) {
  TB_CHECK(totals.numel() == 2, who, ": totals of another length");
  const torch::Tensor t = totals.to(torch::kCPU, torch::kDouble).contiguous();
  counted_ = t.data_ptr<double>()[0];
  unread_ = torch::Tensor();
  samples_ = static_cast<int64_t>(t.data_ptr<double>()[1]);
}

}  // namespace tbench
