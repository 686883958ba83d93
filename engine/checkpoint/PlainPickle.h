#pragma once
// The one writer of every .pt file Towerbench produces (checkpoints, exported weights).
//
// Note [Plain pickles]: torch::pickle_save tags dicts and lists with their element types
// (torch.jit._pickle.restore_type_tag), which PyTorch 2.6+'s default torch.load
// (weights_only=True) refuses. This writes the same zip layout with untagged aggregates and
// tensors as plain storages, which weights_only=True opens, older torch.load opens, and
// torch::pickle_load still reads.

#include <ATen/core/ivalue.h>

#include <vector>

namespace tbench {

/// `value` as a torch.load-compatible zip archive (dicts, lists, str, int, float, bool,
/// None and CPU tensors).
std::vector<char> plainPickle(const c10::IValue& value);

}  // namespace tbench
