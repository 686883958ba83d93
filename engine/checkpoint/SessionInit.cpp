#include "engine/checkpoint/SessionInit.h"

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

RestoreReport initFromCheckpoint(torch::nn::Module& module, const std::string& path,
                                 const std::vector<std::string>& ignore) {
  const TrainingState state = readCheckpointFile(path);
  RestoreReport report = restoreModel(module, state, ignore);
  // A checkpoint that shares no tensor with the model is almost surely the wrong file; going
  // on would silently train from scratch.
  if (report.loaded.empty() && !(report.missing.empty() && report.shapeMismatch.empty())) {
    throw InputError(
        str(path, ": no tensor of the checkpoint fits the model\n", report.toString()));
  }
  const bool clean =
      report.missing.empty() && report.unexpected.empty() && report.shapeMismatch.empty();
  if (clean) {
    TB_LOG(Info) << "initialised from " << path << " (global step " << state.globalStep
                 << "): " << report.toString();
  } else {
    TB_LOG(Warning) << "initialised from " << path << " (global step " << state.globalStep
                    << "): " << report.toString();
  }
  return report;
}

}  // namespace tbench
