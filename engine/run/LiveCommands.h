#pragma once
// Note [Live commands]: what a user changes in a training that runs (tensorpack's
// HumanHyperParamSetter reads a file every epoch; here the window posts them, and any other
// front end can): setting a hyper-parameter and saving a checkpoint now. They live in the
// engine so that every front end applies one rule and one behaviour; the window's
// RunController posts them to the engine thread (Trainer::post), where they run between
// steps. They are part of a run's lifecycle (engine/run), and a save goes through the run's
// ModelSaver when it has one.
//
// - setHyperParam sets the trainer's own HyperParam, so every optimizer behind it follows:
//   each replica of a multi-tower strategy, the master of the parameter-server and async
//   strategies, both roles of a GAN. Its scalar is put at once (the chart shows the change at
//   the step it applies to); a schedule in the project sets the value again at its next point.
// - saveNow writes through the run's ModelSaver when it has one (its directory, the file kept
//   for good and marked manual in the index), else into the run directory, listed in its
//   checkpoint index (manual, or as the latest for the final save of a stop).

#include <string>

#include "engine/callbacks/TrainerContext.h"

namespace tbench {

class ModelSaver;

namespace live {

/// The problem with `value` as hyper-parameter `name` typed during a run, or "" (the one
/// rule of the window's field, its dialog and the engine): a finite number, > 0 for the
/// learning rate.
std::string valueProblem(const std::string& name, double value);

/// Engine thread, between steps. Sets `name` to `value`, puts its scalar and logs who asked
/// (`source`, "the window"); `scheduled`: the project has a schedule (the log says it sets the
/// value again). Returns the value before. InputError for a value valueProblem refuses or a
/// trainer without that hyper-parameter.
double setHyperParam(TrainerContext& trainer, const std::string& name, double value,
                     const std::string& source, bool scheduled);

enum class SaveKind { Manual, Final };

/// Engine thread. Saves the trainer's state now, at its global step (see the Note): returns the
/// file written, or "" when nothing was (a Final save with a saver, whose afterTrain saves the
/// final state; a save that failed, logged with the reason).
std::string saveNow(TrainerContext& trainer, ModelSaver* saver, const std::string& runDir,
                    SaveKind kind);

}  // namespace live
}  // namespace tbench
