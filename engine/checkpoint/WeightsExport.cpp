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

void exportWeights(const std::string& checkpointPath, const std::string& format,
                   const std::string& outPath) {
  if (format != "pt" && format != "safetensors") {
    throw InputError(
        str("unknown export format \"", format, "\" (expected \"pt\" or \"safetensors\")"));
  }
  const TrainingState state = readCheckpointFile(checkpointPath);
  writeFileAtomically(outPath, format == "pt" ? weightsToPt(state) : weightsToSafetensors(state));
}

}  // namespace tbench
