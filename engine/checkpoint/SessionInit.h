#pragma once
// Session initialisation from a checkpoint (tensorpack's SessionInit / SaverRestore with an
// ignore list): start training from another run's weights, for example to fine-tune. Only the
// model's tensors are taken; the optimizer, counters and random state start afresh.

#include <string>
#include <vector>

#include "engine/checkpoint/Checkpoint.h"

namespace tbench {

/// Reads the checkpoint at `path` and copies its tensors into `module` by name, skipping the
/// names matched by `ignore` (exact, or a prefix ending in '.'). Logs the report: Info when
/// everything matched, Warning when some tensors were missing, unexpected or of another shape.
/// Throws InputError naming the file when it cannot be read or is not a checkpoint, or when
/// not a single tensor could be restored from it.
RestoreReport initFromCheckpoint(torch::nn::Module& module, const std::string& path,
                                 const std::vector<std::string>& ignore = {});

}  // namespace tbench
