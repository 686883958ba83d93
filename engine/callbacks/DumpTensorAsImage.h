#pragma once
// DumpTensorAsImage: shows what the model makes of a fixed batch as an image grid, every epoch
// (tensorpack's DumpTensorAsImage). At every trigger() (triggerEpoch by default; wrap it in
// PeriodicTrigger for another schedule) it runs the trainer's inference tower on the same
// batch (TrainerContext::runInference: eval mode, no gradients, the current weights) and puts
// the output called `output` as one grid (ImageGrid.h) under `name`: the monitors write it to
// TensorBoard and images/<name>/ and the window shows it.
//
// The output must be [N, C, H, W] with C 1 or 3, or [N, H, W] (grey); anything else, or a
// name the model does not output, fails the run with a CheckError naming what it has. The
// output name kInputComponent ("input") is not a model output: it is the batch's first
// component as the model is fed it (a data preview; no inference runs).
//
// The batch is given, or read once in setupGraph from the first `count` datapoints of a
// DataFlow of single samples (stacked component by component; the flow's resetState is called
// there). Engine thread.

#include <string>

#include "engine/callbacks/Callback.h"
#include "engine/callbacks/ImageGrid.h"

namespace tbench {

class DumpTensorAsImage : public Callback {
 public:
  /// The output name that means "the batch's first component".
  static constexpr const char* kInputComponent = "input";

  /// Puts `output` for the fixed `batch` (components stacked, [N, ...]) as `name`.
  DumpTensorAsImage(std::string name, Datapoint batch, std::string output,
                    ImageGridOptions grid = {});
  /// The batch is the first `count` (>= 1) samples of `samples`, read in setupGraph.
  DumpTensorAsImage(std::string name, DataFlowPtr samples, int64_t count, std::string output,
                    ImageGridOptions grid = {});

  std::string name() const override { return "DumpTensorAsImage(" + name_ + ")"; }

 private:
  void onSetupGraph() override;
  void onTrigger() override;

  std::string name_;
  Datapoint batch_;
  DataFlowPtr samples_;
  int64_t count_ = 0;
  std::string output_;
  ImageGridOptions grid_;
};

}  // namespace tbench
