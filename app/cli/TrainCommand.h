#pragma once
// The commands of towerbench-cli. Each returns the process exit status (0 success, 1 training
// failed, 2 bad input, 130 stopped by a signal) and writes its messages to stderr.

#include "app/cli/CliArgs.h"

namespace tbench::cli {

/// `train`: loads the project, applies overrides, prepares the run directory (project.json,
/// log.log) and trains headless. `commandLine` is written as the first line of log.log.
int runTrain(const CliArgs& args, const std::string& commandLine);

/// `eval`: restores the checkpoint into the project's model and prints the validation metrics.
int runEval(const CliArgs& args);

/// `export`: writes a checkpoint's weights as .pt or .safetensors.
int runExport(const CliArgs& args);

/// `validate`: checks the project and opens its data sources; prints every problem.
int runValidate(const CliArgs& args);
/// `towerbench-cli summary PROJECT`: the model's parameters and buffers (name, shape, count,
/// trainable), totals, and what init would load (issue 37). 0, or 2 with the problem on stderr.
int runSummary(const CliArgs& args);
/// `towerbench-cli find-lr PROJECT`: the learning-rate range test (engine/run/LrFinder.h); one
/// line per step ("step I  rate R  cost C  smoothed S"), then the suggestion. 0, or 2.
int runFindLr(const CliArgs& args);

}  // namespace tbench::cli
