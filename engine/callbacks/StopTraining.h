#pragma once
// StopTraining: thrown by a callback (or a step) to end training cleanly. The loop catches
// it at the step boundary, runs afterTrain on every callback and returns normally.

#include <stdexcept>
#include <string>

namespace tbench {

class StopTraining : public std::runtime_error {
 public:
  explicit StopTraining(const std::string& reason = "StopTraining") : std::runtime_error(reason) {}
};

}  // namespace tbench
