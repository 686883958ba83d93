#include "engine/inference/ConfusionMatrix.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/callbacks/ImageGrid.h"
#include "engine/callbacks/TrainerContext.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/HostRead.h"
#include "engine/core/Logging.h"
#include "engine/core/Ordinal.h"
#include "engine/monitors/PngEncoder.h"

namespace tbench {

namespace {

const torch::Tensor& outputOf(const std::map<std::string, torch::Tensor>& outputs,
                              const std::string& name, int64_t batchSize) {
  auto it = outputs.find(name);
  TB_CHECK(it != outputs.end(), "the model has no inference output \"", name, "\"");
  TB_CHECK(it->second.dim() == 1 && it->second.size(0) == batchSize, "inference output \"", name,
           "\" must have one value per sample (", batchSize, "), got shape ", it->second.sizes());
  return it->second;
}

/// A class name as a scalar name's last part: '/' would start another level.
std::string scalarPart(std::string name) {
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

nlohmann::json ratio(int64_t num, int64_t den) {
  if (den == 0) return nullptr;
  return static_cast<double>(num) / static_cast<double>(den);
}

}  // namespace

ConfusionMatrix::ConfusionMatrix(int64_t numClasses, std::vector<std::string> classNames,
                                 int64_t maxMisclassified)
    : numClasses_(numClasses), names_(std::move(classNames)), maxWrong_(maxMisclassified) {
  TB_CHECK(numClasses_ >= 1, "a confusion matrix needs 1 or more classes, got ", numClasses_);
  TB_CHECK(names_.empty() || static_cast<int64_t>(names_.size()) == numClasses_, "got ",
           names_.size(), " class names for ", numClasses_, " classes");
  TB_CHECK(maxWrong_ >= 0, "maxMisclassified must be >= 0, got ", maxWrong_);
  if (names_.empty()) {
    for (int64_t k = 0; k < numClasses_; ++k) names_.push_back(std::to_string(k));
  }
  beforeInference();
}

void ConfusionMatrix::beforeInference() {
  counts_.assign(numClasses_, std::vector<int64_t>(numClasses_, 0));
  unread_ = torch::Tensor();
  wrong_.clear();
  wrongImages_.clear();
  seen_ = 0;
}

void ConfusionMatrix::onBatch(const std::map<std::string, torch::Tensor>& outputs,
                              int64_t batchSize) {
  onBatchWithInputs({}, outputs, batchSize);
}

void ConfusionMatrix::onBatchWithInputs(const Datapoint& batch,
                                        const std::map<std::string, torch::Tensor>& outputs,
                                        int64_t batchSize) {
  const torch::Tensor label = outputOf(outputs, "label", batchSize).to(torch::kLong).reshape({-1});
  const torch::Tensor prediction =
      outputOf(outputs, "prediction", batchSize).to(label.device(), torch::kLong).reshape({-1});
  // The counts stay on the device, in a fixed K × K + 1 tensor (the last cell counts samples
  // whose label or prediction is outside 0..K-1, reported when the counts are read): no
  // data-dependent size, so nothing is read back here.
  const int64_t k = numClasses_;
  if (!unread_.defined()) unread_ = torch::zeros({k * k + 1}, label.options());
  const torch::Tensor outside = (label < 0) | (label >= k) | (prediction < 0) | (prediction >= k);
  const torch::Tensor cell = torch::where(outside, torch::full_like(label, k * k),
                                          label.clamp(0, k - 1) * k + prediction.clamp(0, k - 1));
  unread_.index_add_(0, cell.to(unread_.device()), torch::ones_like(cell).to(unread_.device()));
  const int64_t firstIndex = seen_;
  seen_ += batchSize;
  if (static_cast<int64_t>(wrong_.size()) >= maxWrong_) return;
  // Labels and predictions in one read (Note [Host reads]), while the list is not full.
  const torch::Tensor both = hostCopy(torch::stack({label, prediction}), torch::kLong);
  const int64_t* t = both.data_ptr<int64_t>();
  const int64_t* p = t + batchSize;
  const bool images = !batch.empty() && batch[0].dim() == 4 &&
                      (batch[0].size(1) == 1 || batch[0].size(1) == 3) && batch[0].size(2) > 1 &&
                      batch[0].size(3) > 1 && batch[0].is_floating_point();
  for (int64_t i = 0; i < batchSize && static_cast<int64_t>(wrong_.size()) < maxWrong_; ++i) {
    TB_CHECK(t[i] >= 0 && t[i] < numClasses_ && p[i] >= 0 && p[i] < numClasses_,
             "a validation sample has label ", t[i], " and prediction ", p[i], " outside 0..",
             numClasses_ - 1);
    if (t[i] != p[i]) {
      wrong_.push_back({firstIndex + i, t[i], p[i]});
      if (images) wrongImages_.push_back(batch[0][i].detach().to(torch::kCPU).clone());
    }
  }
}

const std::vector<std::vector<int64_t>>& ConfusionMatrix::counts() const {
  if (!unread_.defined()) return counts_;
  const torch::Tensor read = hostCopy(unread_, torch::kLong);
  unread_ = torch::Tensor();
  const int64_t* v = read.data_ptr<int64_t>();
  TB_CHECK(v[numClasses_ * numClasses_] == 0, v[numClasses_ * numClasses_],
           " validation sample(s) have a label or prediction outside 0..", numClasses_ - 1);
  for (int64_t a = 0; a < numClasses_; ++a) {
    for (int64_t b = 0; b < numClasses_; ++b) counts_[a][b] += v[a * numClasses_ + b];
  }
  return counts_;
}

std::map<std::string, double> ConfusionMatrix::afterInference() {
  std::map<std::string, double> out;
  for (int64_t k = 0; k < numClasses_; ++k) {
    int64_t samples = 0;
    for (int64_t c : counts()[k]) samples += c;
    if (samples == 0) continue;
    out["validation_accuracy/" + scalarPart(names_[k])] =
        static_cast<double>(counts()[k][k]) / static_cast<double>(samples);
  }
  return out;
}

nlohmann::json ConfusionMatrix::toJson(int64_t epoch, int64_t globalStep) const {
  int64_t total = 0;
  int64_t correct = 0;
  std::vector<int64_t> rowSum(numClasses_, 0);
  std::vector<int64_t> colSum(numClasses_, 0);
  for (int64_t t = 0; t < numClasses_; ++t) {
    for (int64_t p = 0; p < numClasses_; ++p) {
      rowSum[t] += counts()[t][p];
      colSum[p] += counts()[t][p];
      total += counts()[t][p];
    }
    correct += counts()[t][t];
  }
  nlohmann::json perClass = nlohmann::json::array();
  for (int64_t k = 0; k < numClasses_; ++k) {
    const int64_t tp = counts()[k][k];
    const int64_t tn = total - rowSum[k] - colSum[k] + tp;
    // "accuracy" is the class's accuracy as DIGITS and the validation_accuracy/<class>
    // scalars give it: the share of its samples predicted right (its recall); "one_vs_rest"
    // counts the true negatives too.
    perClass.push_back({{"name", names_[k]},
                        {"samples", rowSum[k]},
                        {"precision", ratio(tp, colSum[k])},
                        {"recall", ratio(tp, rowSum[k])},
                        {"accuracy", ratio(tp, rowSum[k])},
                        {"one_vs_rest", ratio(tp + tn, total)}});
  }
  nlohmann::json wrong = nlohmann::json::array();
  for (const Misclassified& m : wrong_) {
    wrong.push_back({{"index", m.index}, {"true", m.trueClass}, {"predicted", m.predicted}});
  }
  nlohmann::json doc = {{"epoch", epoch},
                        {"global_step", globalStep},
                        {"class_names", names_},
                        {"counts", counts()},
                        {"samples", total},
                        {"accuracy", ratio(correct, total)},
                        {"per_class", perClass},
                        {"misclassified", wrong},
                        {"misclassified_columns", kGridColumns}};
  if (shards_ > 1) {
    doc["misclassified_from"] =
        str("this process's batches only: every ", ordinal(shards_), " batch from batch ", shard_,
            " (shard ", shard_, " of ", shards_, ")");
  }
  return doc;
}

void ConfusionMatrix::publish(TrainerContext& context) {
  std::optional<ImageData> grid;
  if (!wrongImages_.empty()) {
    const torch::Tensor stacked = torch::stack(wrongImages_).to(torch::kFloat32);
    double low = stacked.min().item<double>();
    double high = stacked.max().item<double>();
    if (!(high > low)) high = low + 1.0;
    grid = imageGrid(stacked, ImageGridOptions().range(low, high).columns(kGridColumns));
  }
  if (!context.runDir().empty()) {
    const std::filesystem::path dir = std::filesystem::path(context.runDir()) / "confusion";
    const std::string stem = "epoch-" + std::to_string(context.epochNum());
    // A full disk costs this epoch's files, not the training run. The grid goes first: a
    // reader that sees the JSON finds the image it names.
    try {
      std::filesystem::create_directories(dir);
      if (grid)
        writeFileAtomically((dir / (stem + "-misclassified.png")).string(), encodePng(*grid));
      writeFileAtomically((dir / (stem + ".json")).string(),
                          toJson(context.epochNum(), context.globalStep()).dump(1) + "\n");
    } catch (const std::exception& e) {
      TB_LOG(Warning) << "the confusion matrix of epoch " << context.epochNum()
                      << " was not written: " << e.what();
    }
  }
  context.monitors().putImage("confusion_matrix", confusionHeatMap(counts()));
  if (grid) context.monitors().putImage("misclassified", *grid);
}

ImageData confusionHeatMap(const std::vector<std::vector<int64_t>>& counts) {
  const int k = static_cast<int>(counts.size());
  TB_CHECK(k >= 1, "confusionHeatMap needs 1 or more classes");
  const int cell = std::max(2, std::min(32, 512 / k));
  ImageData image;
  image.channels = 3;
  image.width = image.height = k * cell + 1;
  image.pixels.assign(static_cast<size_t>(image.width) * image.height * 3, 160);
  for (int t = 0; t < k; ++t) {
    TB_CHECK(static_cast<int>(counts[t].size()) == k, "confusionHeatMap: row ", t, " has ",
             counts[t].size(), " entries, not ", k);
    int64_t row = 0;
    for (int64_t c : counts[t]) row += c;
    for (int p = 0; p < k; ++p) {
      const double share = row > 0 ? static_cast<double>(counts[t][p]) / row : 0.0;
      // White (255, 255, 255) to dark blue (8, 48, 107), DIGITS' palette.
      const uint8_t rgb[3] = {static_cast<uint8_t>(255 - share * (255 - 8)),
                              static_cast<uint8_t>(255 - share * (255 - 48)),
                              static_cast<uint8_t>(255 - share * (255 - 107))};
      for (int y = t * cell + 1; y < (t + 1) * cell; ++y) {
        for (int x = p * cell + 1; x < (p + 1) * cell; ++x) {
          uint8_t* px = &image.pixels[(static_cast<size_t>(y) * image.width + x) * 3];
          std::copy(rgb, rgb + 3, px);
        }
      }
    }
  }
  return image;
}

torch::Tensor ConfusionMatrix::totals() const {
  torch::Tensor t = torch::empty({numClasses_ * numClasses_}, torch::kDouble);
  double* v = t.data_ptr<double>();
  for (int64_t a = 0; a < numClasses_; ++a) {
    for (int64_t b = 0; b < numClasses_; ++b)
      v[a * numClasses_ + b] = static_cast<double>(counts()[a][b]);
  }
  return t;
}

void ConfusionMatrix::setTotals(const torch::Tensor& totals) {
  TB_CHECK(totals.numel() == numClasses_ * numClasses_,
           "ConfusionMatrix: totals of another length");
  const torch::Tensor t = totals.to(torch::kCPU, torch::kDouble).contiguous();
  const double* v = t.data_ptr<double>();
  unread_ = torch::Tensor();
  for (int64_t a = 0; a < numClasses_; ++a) {
    for (int64_t b = 0; b < numClasses_; ++b)
      counts_[a][b] = static_cast<int64_t>(v[a * numClasses_ + b]);
  }
}

}  // namespace tbench
