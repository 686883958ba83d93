#pragma once
// The weights users bring to start a run from (issue 37; tensorpack's SmartInit, which takes a
// checkpoint, an npz or a dict): every file is read to one list of named tensors, whatever
// wrote it.
//
//   - a Towerbench checkpoint (model-<step>.pt) or a run directory (its latest checkpoint);
//   - a PyTorch state_dict saved with torch.save (PyTorch's zip format): a dict of tensors, or
//     one nested under "state_dict", "model_state_dict", "model", "module", "net" or
//     "network" (Lightning's checkpoints and common training scripts save it so); Towerbench's
//     own exported weights (.pt) are such a dict;
//   - a .safetensors file (Safetensors.h);
//   - a TorchScript file: its parameters and buffers (a scripted model's own weights).
//
// The file's kind is told by its bytes, not its name. Errors name the file and say which kinds
// are read.

#include <string>

#include "engine/checkpoint/Safetensors.h"

namespace tbench {

struct NamedWeights {
  NamedTensorList tensors;  ///< in the file's order
  /// What was read, for the log: "Towerbench checkpoint (global step 1200)", "PyTorch
  /// state_dict (under \"model\")", "safetensors", "TorchScript module".
  std::string source;
  std::string path;  ///< the file read (a run directory's checkpoint)
};

/// Reads `path` (a file or a run directory). InputError naming it when it is none of the kinds.
NamedWeights readWeightsFile(const std::string& path);

}  // namespace tbench
