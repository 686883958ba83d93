#include "engine/callbacks/DumpTensorAsImage.h"

#include <torch/torch.h>

#include "engine/core/Check.h"

namespace tbench {

DumpTensorAsImage::DumpTensorAsImage(std::string name, Datapoint batch, std::string output,
                                     ImageGridOptions grid)
    : name_(std::move(name)), batch_(std::move(batch)), output_(std::move(output)), grid_(grid) {
  TB_CHECK(!name_.empty(), "DumpTensorAsImage needs an image name");
  TB_CHECK(!batch_.empty() && batch_[0].defined(), "DumpTensorAsImage needs a batch");
}

DumpTensorAsImage::DumpTensorAsImage(std::string name, DataFlowPtr samples, int64_t count,
                                     std::string output, ImageGridOptions grid)
    : name_(std::move(name)),
      samples_(std::move(samples)),
      count_(count),
      output_(std::move(output)),
      grid_(grid) {
  TB_CHECK(!name_.empty(), "DumpTensorAsImage needs an image name");
  TB_CHECK(samples_ != nullptr && count_ >= 1, "DumpTensorAsImage needs data and a count >= 1");
}

void DumpTensorAsImage::onSetupGraph() {
  if (!samples_) return;
  samples_->resetState();
  std::vector<Datapoint> read;
  {
    DataPass pass = samples_->pass();
    Datapoint point;
    while (static_cast<int64_t>(read.size()) < count_ && pass.next(point)) read.push_back(point);
  }
  samples_.reset();  // read once; the flow's files need not stay open
  TB_CHECK(!read.empty(), "DumpTensorAsImage(", name_, "): the data produced no sample");
  for (size_t c = 0; c < read.front().size(); ++c) {
    std::vector<torch::Tensor> parts;
    for (const Datapoint& point : read) parts.push_back(point.at(c));
    batch_.push_back(torch::stack(parts));
  }
}

void DumpTensorAsImage::onTrigger() {
  torch::Tensor images;
  if (output_ == kInputComponent) {
    images = batch_.front();
  } else {
    const auto outputs = context().runInference(batch_);
    const auto found = outputs.find(output_);
    if (found == outputs.end()) {
      std::string names;
      for (const auto& [key, value] : outputs) names += (names.empty() ? "" : ", ") + key;
      TB_CHECK(false, "DumpTensorAsImage(", name_, "): the model has no output \"", output_,
               "\" (its outputs: ", names, ")");
    }
    images = found->second;
  }
  if (images.dim() == 3) images = images.unsqueeze(1);
  context().monitors().putImage(name_, imageGrid(images, grid_));
}

}  // namespace tbench
