#pragma once
// safetensors (https://github.com/huggingface/safetensors, the Hugging Face hub's format), read
// and written without a library: 8 bytes of little-endian header length N, N bytes of a JSON
// header {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}},
// then the tensors' raw little-endian bytes, offsets relative to the end of the header.
//
// The reader checks what the format's own loader checks (the header length within the file,
// the JSON an object, each dtype known, each shape non-negative, each tensor's byte count equal
// to its shape's, its bytes within the data, no two tensors overlapping) and refuses a file that
// fails, naming the file and the tensor; it never reads outside the file, whatever the bytes
// (tests/engine/checkpoint/test_WeightsFile.cpp fuzzes it).

#include <torch/types.h>

#include <string>
#include <utility>
#include <vector>

namespace tbench {

using NamedTensorList = std::vector<std::pair<std::string, torch::Tensor>>;

/// Whether `bytes` start like a safetensors file (a header length within the file, then '{').
bool looksLikeSafetensors(const char* bytes, size_t size);

/// The tensors of the safetensors file held in `bytes` (read from `path`, named in errors), in
/// the order of their data. InputError when it is not one.
NamedTensorList readSafetensors(const char* bytes, size_t size, const std::string& path);

/// safetensors' name of `type` ("F32"), or nullptr for a dtype the format cannot hold.
const char* safetensorsDtype(torch::ScalarType type);

/// `tensors` as a safetensors file's bytes, packed in name order (the order of the header's
/// keys), with `metadata` (str -> str) as "__metadata__". InputError naming `path` and the
/// tensor for a dtype the format cannot hold or a tensor named "__metadata__".
std::string writeSafetensors(NamedTensorList tensors,
                             const std::vector<std::pair<std::string, std::string>>& metadata,
                             const std::string& path);

}  // namespace tbench
