#include "engine/inference/ClassificationError.h"

#include "engine/core/Check.h"

namespace tbench {

ClassificationError::ClassificationError(std::string wrongOutput, std::string scalarName)
    : wrongOutput_(std::move(wrongOutput)), scalarName_(std::move(scalarName)) {}

void ClassificationError::onBatch(const std::map<std::string, torch::Tensor>& outputs,
                                  int64_t batchSize) {
  auto it = outputs.find(wrongOutput_);
  TB_CHECK(it != outputs.end(), "the model has no inference output \"", wrongOutput_, "\"");
  const torch::Tensor& wrong = it->second;
  TB_CHECK(wrong.dim() == 1 && wrong.size(0) == batchSize, "inference output \"", wrongOutput_,
           "\" must have one value per sample (", batchSize, "), got shape ", wrong.sizes());
  add(wrong, batchSize);  // counted where the model ran, read once a pass
}

}  // namespace tbench
