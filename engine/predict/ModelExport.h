#pragma once
// The model of a checkpoint, rebuilt and exported as TorchScript.
//
// A checkpoint holds the project it was trained with and what its model was built for (the
// "data" entry, Checkpoint.h), so the network can be rebuilt without the data files: the
// project's model type with the checkpoint's input shape and classes, then the checkpoint's
// tensors. exportTorchScript writes a module that Python's torch.jit.load runs without any
// Towerbench code: forward(x) in eval mode with the trained weights. A built-in network is
// compiled from its scriptForward(); a TorchScript model is its own module with the trained
// tensors. A source's standardisation ("feature_mean", "feature_std") is part of the module:
// it takes raw features, as the data files hold them.

#include <torch/nn/module.h>

#include <memory>
#include <string>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/project/Project.h"
#include "engine/project/registry/ComponentFactories.h"

namespace torch::jit {
struct Module;
}

namespace tbench {

/// A checkpoint's network with its trained tensors, in eval mode.
struct RestoredNetwork {
  Project project;
  ModelContext context;
  DataFacts facts;
  ModelDescBasePtr model;
  std::shared_ptr<torch::nn::Module> net;
};

/// Rebuilds the network of `state` (read from a checkpoint). InputError naming the file when
/// the checkpoint has no project or "data" entry (written before they existed), its project is
/// invalid here, or its tensors do not fit the rebuilt network.
RestoredNetwork restoreNetwork(const TrainingState& state);

/// The TorchScript module of `network` (see the file comment). InputError when the network
/// has no TorchScript form.
torch::jit::Module scriptModuleOf(const RestoredNetwork& network);

/// Reads the checkpoint at `checkpointPath` and writes its network as TorchScript to
/// `outPath` (atomically). InputError for the reasons above; std::runtime_error naming
/// `outPath` when it cannot be written.
void exportTorchScript(const std::string& checkpointPath, const std::string& outPath,
                       bool weightAverage = false);

/// Exports the checkpoint in `format`: "pt" and "safetensors" (weights, exportWeights) or
/// "torchscript" (exportTorchScript). InputError for another format. The CLI's `export` and the
/// window's export dialog both call this. `weightAverage`: the weight average the checkpoint
/// keeps (trainer.ema_decay) instead of the raw weights (WeightsExport.h: withWeightAverage).
void exportCheckpoint(const std::string& checkpointPath, const std::string& format,
                      const std::string& outPath, bool weightAverage = false);

}  // namespace tbench
