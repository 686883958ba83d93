#include "engine/checkpoint/PlainPickle.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>

namespace tbench {

std::vector<char> plainPickle(const c10::IValue& value) {
  std::vector<char> pickle;
  // No tensor table: tensors become persistent storages (torch._utils._rebuild_tensor_v2),
  // and tag_aggregates=false leaves dicts and lists untagged (Note [Plain pickles]).
  torch::jit::Pickler pickler(
      [&](const char* data, size_t size) { pickle.insert(pickle.end(), data, data + size); },
      /*tensor_table=*/nullptr, /*type_renamer=*/nullptr, /*memoized_class_types=*/nullptr,
      /*get_tensor_id=*/nullptr, /*tag_aggregates=*/false);
  pickler.protocol();
  pickler.pushIValue(value);
  pickler.stop();

  std::vector<char> archive;
  archive.reserve(pickle.size() + 1024);
  {
    caffe2::serialize::PyTorchStreamWriter writer([&](const void* data, size_t size) {
      const char* bytes = static_cast<const char*>(data);
      archive.insert(archive.end(), bytes, bytes + size);
      return size;
    });
    torch::jit::writeArchiveAndTensors("data", pickle.data(), pickle.size(), pickler.tensorData(),
                                       writer);
  }  // the writer's destructor writes the end of the archive
  return archive;
}

}  // namespace tbench
