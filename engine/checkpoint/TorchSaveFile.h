#pragma once
// The tensors of a file written by Python's torch.save (PyTorch's zip format: <name>/data.pkl, a
// pickle whose tensors are persistent ids of records <name>/data/<key>), read without LibTorch's
// unpickler (issue 37). LibTorch 1.13's torch::pickle_load fails on what a state_dict is: an
// OrderedDict with a `_metadata` attribute, pickled as BUILD on the dict ("isGenericDict()
// INTERNAL ASSERT FAILED ... Expected GenericDict but got None"), and refuses any class it does
// not know (a Lightning checkpoint's hyper-parameters). This reader evaluates the pickle opcodes
// torch.save writes (protocols 2 to 4) into plain values: dicts, lists, tuples, strings,
// numbers, tensors (torch._utils._rebuild_tensor_v2 / _rebuild_parameter over typed storages);
// any other class becomes an opaque value and BUILD's state is dropped, so a state_dict is found
// wherever it sits. Every length, memo index, stack pop and tensor view is checked against the
// file: a damaged or hostile pickle is an InputError naming the file, never a read outside it.

#include <torch/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/checkpoint/ZipIntegrity.h"

namespace tbench {

struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Tensor, Opaque };
  Kind kind = Kind::None;
  int64_t integer = 0;  ///< Bool, Int
  double number = 0;    ///< Float
  std::string text;     ///< String, Bytes; Opaque: the class ("module.name")
  std::vector<std::shared_ptr<PickleValue>> items;  ///< Tuple, List
  std::vector<std::pair<std::shared_ptr<PickleValue>, std::shared_ptr<PickleValue>>> entries;
  torch::Tensor tensor;  ///< Tensor
};
using PickleValuePtr = std::shared_ptr<PickleValue>;

/// The root value of the torch.save archive `bytes` of `path`, whose records `records`
/// (verifyZipArchive) were checked. InputError naming the file when it is not one.
PickleValuePtr readTorchSave(const std::string& path, const std::vector<char>& bytes,
                             const std::vector<ZipRecord>& records);

}  // namespace tbench
