#include "engine/checkpoint/WeightsExport.h"

#include <torch/serialize.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/checkpoint/PlainPickle.h"
#include "engine/checkpoint/Safetensors.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"

namespace tbench {
std::string weightsToPt(const TrainingState& state) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& [name, tensor] : state.model) dict.insert(name, tensor);
  const std::vector<char> bytes = plainPickle(dict);
  return std::string(bytes.begin(), bytes.end());
}

std::string weightsToSafetensors(const TrainingState& state) {
  return writeSafetensors(state.model,
                          {{"format", "pt"},
                           {"source", "towerbench"},
                           {"global_step", std::to_string(state.globalStep)},
                           {"epoch_num", std::to_string(state.epochNum)}},
                          state.path);
}

TrainingState withWeightAverage(TrainingState state) {
  int replaced = 0;
  for (auto& [name, tensor] : state.model) {
    const auto found = state.trainerState.find("ema/" + name);
    if (found == state.trainerState.end()) continue;
    tensor = found->second;
    ++replaced;
  }
  if (replaced == 0) {
    throw InputError(str(state.path,
                         ": has no weight average (the run was trained without "
                         "trainer.ema_decay); export its weights without --ema"));
  }
  return state;
}

void exportWeights(const std::string& checkpointPath, const std::string& format,
                   const std::string& outPath, bool weightAverage) {
  if (format != "pt" && format != "safetensors") {
    throw InputError(
        str("unknown export format \"", format, "\" (expected \"pt\" or \"safetensors\")"));
  }
  TrainingState state = readCheckpointFile(checkpointPath);
  if (weightAverage) state = withWeightAverage(std::move(state));
  writeFileAtomically(outPath, format == "pt" ? weightsToPt(state) : weightsToSafetensors(state));
}

}  // namespace tbench
