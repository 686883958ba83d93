#pragma once
// TowerContext: what a tower function knows about the replica it builds or runs
// (tensorpack's TowerContext). Towers are named "tower0", "tower1", ...; the inference tower
// is not a training tower. Parameter names never depend on the tower, so checkpoints are the
// same whatever the strategy.

#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/core/Device.h"

namespace tbench {

class TowerContext {
 public:
  TowerContext(int index, Device device, bool isTraining)
      : index_(index), device_(device), isTraining_(isTraining) {}

  /// "tower0", "tower1", ...; "inference" for the inference tower.
  std::string name() const { return isTraining_ ? "tower" + std::to_string(index_) : "inference"; }
  int index() const { return index_; }
  const Device& device() const { return device_; }
  bool isTraining() const { return isTraining_; }
  /// The first training tower: the one whose summaries are reported.
  bool isMainTower() const { return index_ == 0; }

  /// Records a scalar summary (a 0-dim or 1-element tensor) for this step; the trainer puts
  /// it on the monitors after the step (the main tower's only).
  void summary(const std::string& name, torch::Tensor value) {
    summaries_.emplace_back(name, std::move(value));
  }
  /// Returns and clears the summaries of the current step.
  std::vector<std::pair<std::string, torch::Tensor>> takeSummaries() {
    return std::exchange(summaries_, {});
  }

 private:
  int index_;
  Device device_;
  bool isTraining_;
  std::vector<std::pair<std::string, torch::Tensor>> summaries_;
};

}  // namespace tbench
