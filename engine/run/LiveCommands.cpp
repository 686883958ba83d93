#include "engine/run/LiveCommands.h"
#include "engine/core/Names.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/savers/ModelSaver.h"

namespace fs = std::filesystem;

namespace tbench::live {

std::string valueProblem(const std::string& name, double value) {
  if (!std::isfinite(value)) return str(name, " must be a finite number, got ", value);
  if (name == names::kLearningRate && !(value > 0)) return str(name, " must be > 0, got ", value);
  return {};
}

double setHyperParam(TrainerContext& trainer, const std::string& name, double value,
                     const std::string& source, bool scheduled) {
  if (const std::string problem = valueProblem(name, value); !problem.empty()) {
    throw InputError(problem);
  }
  HyperParam* param = trainer.hyperParam(name);
  if (param == nullptr) throw InputError(str("this trainer has no hyper-parameter \"", name, "\""));
  const double before = param->get();
  param->set(value);
  trainer.monitors().putScalar(name, value);
  std::string shown = name;  // "learning rate set from the window ..."
  std::replace(shown.begin(), shown.end(), '_', ' ');
  TB_LOG(Info) << shown << " set from " << source << " at global step " << trainer.globalStep()
               << ": " << before << " -> " << value
               << (scheduled ? " (the project's schedule sets it again at its next point)" : "");
  return before;
}

std::string saveNow(TrainerContext& trainer, ModelSaver* saver, const std::string& runDir,
                    SaveKind kind) {
  const bool manual = kind == SaveKind::Manual;
  const int64_t step = trainer.globalStep();
  if (saver != nullptr) {
    if (!manual) return {};  // its afterTrain saves the final state
    saver->saveNow();
    if (saver->lastSavedStep() != step) return {};  // ModelSaver logged why
    return (fs::path(saver->directory()) / ModelSaver::fileNameForStep(step)).string();
  }
  const std::string name = ModelSaver::fileNameForStep(step);
  const std::string path = (fs::path(runDir) / name).string();
  try {
    trainer.saveCheckpoint(path);
  } catch (const std::exception& e) {
    TB_LOG(Error) << "cannot save " << path << ": " << e.what();
    return {};
  }
  // Listed in the run's index, so that the history and the export dialog show it; a manual one
  // is never deleted by a later saver in this directory.
  try {
    CheckpointIndex index;
    if (auto existing = CheckpointIndex::read(runDir)) index = *existing;
    if (manual) {
      index.addManual(name);
    } else {
      if (std::find(index.all.begin(), index.all.end(), name) == index.all.end()) {
        index.all.push_back(name);
      }
      index.latest = name;
    }
    index.write(runDir);
  } catch (const std::exception& e) {
    TB_LOG(Warning) << "saved " << path << " but cannot list it in the index: " << e.what();
  }
  TB_LOG(Info) << "saved " << path
               << (manual ? " (manual, requested from the window)" : " (final, on stop)");
  return path;
}

}  // namespace tbench::live
