#pragma once
// The small project engine tests train for real: an MLP (one hidden layer of 8) on 64 synthetic
// samples, batches of 8, 2 epochs of 3 steps, a model saver, no TensorBoard file. Trains in
// well under a second on the 2-core machines.

#include <string>

#include "engine/project/Project.h"

namespace tbench::testing {

inline Project tinyProject(const std::string& runRoot, const std::string& name = "tiny") {
  Project p;
  p.name = name;
  p.model.type = "mlp";
  p.model.set("hidden", {8});
  p.data.train.type = "synthetic";
  p.data.train.set("num_samples", 64);
  p.data.batchSize = 8;
  p.stepsPerEpoch = 3;
  p.maxEpoch = 2;
  p.callbacks = {ComponentSpec::of("callback", "model_saver")};
  p.monitors["tensorboard"] = false;
  p.runRoot = runRoot;
  return p;
}

}  // namespace tbench::testing
