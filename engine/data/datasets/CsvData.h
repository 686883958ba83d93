#pragma once
// CsvData: the rows of a CSV/TSV table (CsvTable.h) as samples: one column is the target, every
// other column a numeric feature.
//
// Datapoints are {features float32 [1, 1, D], label int64 0-dim} (classification) or
// {features float32 [1, 1, D], target float32 [1]} (regression), views into one tensor
// holding the samples.
//
// Targets. Regression: a number. Classification: either class ids (integers >= 0; there are
// max + 1 classes, or classNames().size() when names are given and more) or, when the first
// row's label is not a number, class names: each distinct string is a class, numbered in
// sorted (byte) order, or by its position in Options::classNames when those are given (the
// training source's, for validation data); a string not among them is an error.
// Labels and classes are taken from the whole table, before the split, so both parts of one
// file number the classes alike.
//
// Which rows: the table's part chosen by holdOutIndices (HoldOut.h), then its first `limit`.
// Standardisation (on by default): every feature minus its mean, divided by its population
// standard deviation (1 where that is 0), computed on exactly these rows, or taken from
// Options::featureMean/featureStd (the training source's, so validation data is scaled like
// the data the model learned from).
//
// The constructor reads and checks everything, throwing InputError naming the file, line and
// column (CsvTable.h): wrong field counts, non-numbers, NaN and infinities, bad labels, an
// unknown target column, an empty table or part.

#include <torch/arg.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/data/datasets/TensorData.h"
#include "engine/data/formats/CsvTable.h"

namespace tbench {

class CsvData : public TensorData {
 public:
  struct Options {
    TORCH_ARG(CsvFormat, format) = {};
    /// The target column: a header name, or a 0-based index (negative: from the end).
    TORCH_ARG(std::string, target) = "-1";
    /// Float targets instead of class labels.
    TORCH_ARG(bool, regression) = false;
    TORCH_ARG(bool, standardize) = true;
    /// Classification: the names of classes 0..K-1 (and the numbering of string labels).
    TORCH_ARG(std::vector<std::string>, classNames) = {};
    /// With standardize: apply these instead of computing them (both D long, or both empty).
    TORCH_ARG(std::vector<double>, featureMean) = {};
    TORCH_ARG(std::vector<double>, featureStd) = {};
    /// Which part of the table (holdOutIndices): the held-out part when true.
    TORCH_ARG(bool, testPart) = false;
    TORCH_ARG(double, testFraction) = 0.0;
    TORCH_ARG(uint64_t, splitSeed) = 1;
    /// Use only the first `limit` rows of the part; 0 = all.
    TORCH_ARG(int64_t, limit) = 0;
    /// With shuffle, pass k visits the samples in an order drawn from mixSeed(seed, k).
    TORCH_ARG(bool, shuffle) = false;
    TORCH_ARG(uint64_t, seed) = 0;
  };

  CsvData(std::string path, Options options);

  std::optional<int64_t> size() const override { return features_.size(0); }
  /// D: the number of feature columns.
  int64_t featureCount() const { return features_.size(3); }
  /// > 0 for classification.
  int64_t numClasses() const { return numClasses_; }
  /// 1 for regression, else 0.
  int64_t numTargets() const { return options_.regression() ? 1 : 0; }
  /// Class k's name: the given names, or the sorted label strings; empty for unnamed ids.
  const std::vector<std::string>& classNames() const { return classNames_; }
  /// The mean and divisor applied to each feature; empty without standardisation.
  const std::vector<double>& featureMean() const { return mean_; }
  const std::vector<double>& featureStd() const { return std_; }
  /// The header's names of the feature columns, in order; empty without a header.
  const std::vector<std::string>& featureNames() const { return featureNames_; }

  /// float32 [N, 1, 1, D], standardised.
  const torch::Tensor& features() const { return features_; }
  /// Classification: int64 [N]. Regression: float32 [N, 1].
  const torch::Tensor& targets() const { return targets_; }
  /// Sample i is the table's data row rows()[i] (0-based, counting data rows only).
  const std::vector<int64_t>& rows() const { return rows_; }

 private:
  std::string path_;
  Options options_;
  torch::Tensor features_;
  torch::Tensor targets_;
  int64_t numClasses_ = 0;
  std::vector<std::string> classNames_;
  std::vector<std::string> featureNames_;
  std::vector<double> mean_;
  std::vector<double> std_;
  std::vector<int64_t> rows_;
};

}  // namespace tbench
