#include "engine/data/datasets/CsvData.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "engine/core/Check.h"
#include "engine/data/datasets/HoldOut.h"

namespace tbench {

namespace {

/// The table as read: every row's features and target text, with its line.
struct RawRows {
  int64_t featureCount = 0;
  int64_t targetColumn = -1;
  std::vector<double> features;  // row-major [rows, featureCount]
  std::vector<std::string> targets;
  std::vector<int64_t> lines;
  std::vector<std::string> featureNames;
  int64_t rows() const { return static_cast<int64_t>(lines.size()); }
};

RawRows readRows(CsvTable& table, const std::string& targetSpec) {
  RawRows raw;
  std::vector<std::string> fields;
  while (table.nextRow(fields)) {
    if (raw.targetColumn < 0) {
      raw.targetColumn = table.columnIndex(targetSpec, "target");
      raw.featureCount = table.columnCount() - 1;
      if (raw.featureCount == 0) {
        throw InputError(str(table.path(),
                             ": the table has one column, the target, and no "
                             "feature columns"));
      }
      const auto& names = table.columnNames();
      for (size_t c = 0; c < names.size(); ++c) {
        if (static_cast<int64_t>(c) != raw.targetColumn) raw.featureNames.push_back(names[c]);
      }
    }
    for (int64_t c = 0; c < static_cast<int64_t>(fields.size()); ++c) {
      const std::string& text = fields[static_cast<size_t>(c)];
      if (c == raw.targetColumn) {
        raw.targets.push_back(text);
        continue;
      }
      const std::optional<double> value = parseCsvNumber(text);
      if (!value) {
        throw InputError(str(table.where(table.line(), c), ": ",
                             text.empty() ? "an empty field" : "\"" + text + "\"",
                             " is not a number"));
      }
      if (!std::isfinite(*value)) {
        throw InputError(str(table.where(table.line(), c), ": \"", text,
                             "\" is not a finite number (NaN or infinite)"));
      }
      raw.features.push_back(*value);
    }
    raw.lines.push_back(table.line());
  }
  if (raw.lines.empty()) {
    throw InputError(str(table.path(), ": the table has no data rows"));
  }
  return raw;
}

std::string quotedList(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "\"" : ", \"") + n + "\"";
  return text;
}

/// Regression targets: finite numbers.
std::vector<float> regressionTargets(const CsvTable& table, const RawRows& raw) {
  std::vector<float> out;
  out.reserve(raw.targets.size());
  for (size_t i = 0; i < raw.targets.size(); ++i) {
    const std::optional<double> value = parseCsvNumber(raw.targets[i]);
    if (!value || !std::isfinite(*value)) {
      throw InputError(str(table.where(raw.lines[i], raw.targetColumn), ": the target \"",
                           raw.targets[i], "\" is not a finite number (task: regression)"));
    }
    out.push_back(static_cast<float>(*value));
  }
  return out;
}

/// Classification labels: class ids, or class names numbered by `names` (given) or in sorted
/// order (then `names` receives them). Returns the labels; sets `numClasses`.
std::vector<int64_t> classLabels(const CsvTable& table, const RawRows& raw,
                                 std::vector<std::string>& names, int64_t& numClasses) {
  std::vector<int64_t> labels;
  labels.reserve(raw.targets.size());
  const bool ids = parseCsvNumber(raw.targets.front()).has_value();
  if (ids) {
    int64_t largest = 0;
    for (size_t i = 0; i < raw.targets.size(); ++i) {
      const std::optional<double> value = parseCsvNumber(raw.targets[i]);
      const std::string where = table.where(raw.lines[i], raw.targetColumn);
      if (!value || !std::isfinite(*value) || *value < 0 || *value != std::floor(*value) ||
          *value > 1e9) {
        throw InputError(str(where, ": the label \"", raw.targets[i],
                             "\" is not a class id (an integer >= 0); the first row's label is "
                             "a number, so the column holds class ids"));
      }
      const auto label = static_cast<int64_t>(*value);
      if (!names.empty() && label >= static_cast<int64_t>(names.size())) {
        throw InputError(str(where, ": the label ", label, " is out of range: there are ",
                             names.size(), " class names (", quotedList(names), ")"));
      }
      largest = std::max(largest, label);
      labels.push_back(label);
    }
    numClasses = std::max<int64_t>(largest + 1, static_cast<int64_t>(names.size()));
    return labels;
  }
  if (names.empty()) {
    const std::set<std::string> distinct(raw.targets.begin(), raw.targets.end());
    names.assign(distinct.begin(), distinct.end());
  }
  for (size_t i = 0; i < raw.targets.size(); ++i) {
    const auto it = std::find(names.begin(), names.end(), raw.targets[i]);
    if (it == names.end()) {
      throw InputError(str(table.where(raw.lines[i], raw.targetColumn), ": the class \"",
                           raw.targets[i], "\" is not one of the ", names.size(),
                           " known classes (", quotedList(names), ")"));
    }
    labels.push_back(it - names.begin());
  }
  numClasses = static_cast<int64_t>(names.size());
  return labels;
}

}  // namespace

CsvData::CsvData(std::string path, Options options)
    : TensorData(options.shuffle(), options.seed()),
      path_(std::move(path)),
      options_(std::move(options)) {
  CsvTable table(path_, options_.format());
  const RawRows raw = readRows(table, options_.target());
  featureNames_ = raw.featureNames;
  const int64_t featureCount = raw.featureCount;

  // Targets of every row, before the split: both parts of a file number classes alike.
  std::vector<int64_t> labels;
  std::vector<float> values;
  if (options_.regression()) {
    values = regressionTargets(table, raw);
  } else {
    classNames_ = options_.classNames();
    labels = classLabels(table, raw, classNames_, numClasses_);
    if (numClasses_ < 2) {
      throw InputError(
          str(path_, ": the labels name one class only (a classifier needs 2 classes or more)"));
    }
  }

  rows_ = holdOutIndices(raw.rows(), options_.testFraction(), options_.splitSeed(),
                         options_.testPart());
  if (options_.limit() > 0 && static_cast<int64_t>(rows_.size()) > options_.limit()) {
    rows_.resize(static_cast<size_t>(options_.limit()));
  }
  if (rows_.empty()) {
    throw InputError(str(path_, ": the ", options_.testPart() ? "test" : "train",
                         " split is empty (", raw.rows(), " rows, test_fraction ",
                         options_.testFraction(), ")"));
  }

  const auto count = static_cast<int64_t>(rows_.size());
  const torch::Tensor all = torch::from_blob(const_cast<double*>(raw.features.data()),
                                             {raw.rows(), featureCount}, torch::kFloat64);
  const torch::Tensor index = torch::tensor(rows_, torch::kInt64);
  torch::Tensor features = all.index_select(0, index);  // a copy: `raw` may go
  if (options_.standardize()) {
    const bool given = !options_.featureMean().empty() || !options_.featureStd().empty();
    if (given) {
      for (const auto* stat : {&options_.featureMean(), &options_.featureStd()}) {
        if (static_cast<int64_t>(stat->size()) != featureCount) {
          throw InputError(str(path_, ": ", featureCount,
                               " feature columns, but the training data's statistics "
                               "(feature_mean, feature_std) have ",
                               stat->size(), " values"));
        }
      }
      mean_ = options_.featureMean();
      std_ = options_.featureStd();
    } else {
      const torch::Tensor mean = features.mean(0);
      torch::Tensor deviation = features.std(0, /*unbiased=*/false);
      deviation = torch::where(deviation > 0, deviation, torch::ones_like(deviation));
      mean_.assign(mean.data_ptr<double>(), mean.data_ptr<double>() + featureCount);
      std_.assign(deviation.data_ptr<double>(), deviation.data_ptr<double>() + featureCount);
    }
    const torch::Tensor mean = torch::tensor(mean_, torch::kFloat64);
    const torch::Tensor deviation = torch::tensor(std_, torch::kFloat64);
    features.sub_(mean).div_(deviation);
  }
  features_ = features.to(torch::kFloat32).reshape({count, 1, 1, featureCount}).contiguous();

  if (options_.regression()) {
    std::vector<float> part;
    part.reserve(rows_.size());
    for (int64_t r : rows_) part.push_back(values[static_cast<size_t>(r)]);
    targets_ = torch::tensor(part, torch::kFloat32).reshape({count, 1});
  } else {
    std::vector<int64_t> part;
    part.reserve(rows_.size());
    for (int64_t r : rows_) part.push_back(labels[static_cast<size_t>(r)]);
    targets_ = torch::tensor(part, torch::kInt64);
  }
  setTensors({features_, targets_});
}

}  // namespace tbench
