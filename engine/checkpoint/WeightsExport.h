#pragma once
// Exporting a checkpoint's model weights for use outside Towerbench.
//
//  - "pt": a pickle that Python's torch.load opens as a plain dict {name: tensor}, names as in
//    Module::named_parameters() / named_buffers() (load_state_dict-ready for a PyTorch module
//    with the same structure).
//  - "safetensors": the safetensors format (https://github.com/huggingface/safetensors): an
//    8-byte little-endian header length N, N bytes of JSON header (padded with spaces to a
//    multiple of 8) {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//    "__metadata__": {"format": "pt", ...}}, then the tensors' raw little-endian bytes, packed
//    in the header's (sorted) name order. Metadata: format, global_step, epoch_num, source.

#include <string>

#include "engine/checkpoint/Checkpoint.h"

namespace tbench {

/// Reads the checkpoint at `checkpointPath` and writes its model weights to `outPath` in
/// `format` ("pt" or "safetensors"), atomically. Throws InputError for an unknown format, an
/// unreadable checkpoint or a dtype safetensors cannot hold (naming the file and the tensor);
/// std::runtime_error naming `outPath` when it cannot be written.
void exportWeights(const std::string& checkpointPath, const std::string& format,
                   const std::string& outPath, bool weightAverage = false);

/// `state` with its model's parameters replaced by the weight average the checkpoint keeps
/// beside them ("ema/<name>" in trainer_state; trainer.ema_decay, Note [Weight average]);
/// buffers as they are. InputError naming the file when it has no average.
TrainingState withWeightAverage(TrainingState state);

/// The "pt" export of `state`'s model, as bytes.
std::string weightsToPt(const TrainingState& state);
/// The safetensors export of `state`'s model, as bytes. Throws InputError for an unsupported
/// dtype.
std::string weightsToSafetensors(const TrainingState& state);

}  // namespace tbench
