#pragma once
// A named hyper-parameter that callbacks may read and change while training runs, such as
// the optimizer's learning rate. Trainers register theirs; setters find them by name.
// Called on the engine thread only.

#include <functional>
#include <memory>
#include <string>

namespace tbench {

class HyperParam {
 public:
  virtual ~HyperParam() = default;
  /// The name used in schedules and as the scalar name ("learning_rate").
  virtual const std::string& name() const = 0;
  virtual double get() const = 0;
  virtual void set(double value) = 0;
};

/// A hyper-parameter backed by a getter and a setter.
class FunctionHyperParam : public HyperParam {
 public:
  FunctionHyperParam(std::string name, std::function<double()> get, std::function<void(double)> set)
      : name_(std::move(name)), get_(std::move(get)), set_(std::move(set)) {}
  const std::string& name() const override { return name_; }
  double get() const override { return get_(); }
  void set(double value) override { set_(value); }

 private:
  std::string name_;
  std::function<double()> get_;
  std::function<void(double)> set_;
};

/// A hyper-parameter that is just a stored value (NoOpTrainer's learning rate, tests).
class ValueHyperParam : public HyperParam {
 public:
  ValueHyperParam(std::string name, double value) : name_(std::move(name)), value_(value) {}
  const std::string& name() const override { return name_; }
  double get() const override { return value_; }
  void set(double value) override { value_ = value; }

 private:
  std::string name_;
  double value_;
};

}  // namespace tbench
