// Fuzz target: engine/checkpoint/Checkpoint's readCheckpointFile and, on the same file,
// WeightsFile's readWeightsFile (init's reader: torch.save state_dicts through its own
// unpickler, safetensors, checkpoints) (fuzz/README.md). The first
// byte chooses what the rest is:
//   even: the .pt file as it is (truncations, flipped bits: the zip check must catch them);
//   odd:  the records of a checkpoint archive, each [name length: 1 byte][name]
//         [data length: 4 bytes, little-endian][data] (a name under "archive/"), which this
//         harness writes as a stored zip with the right CRC-32s, so that mutations get past
//         the integrity check (ZipIntegrity.h) to LibTorch's unpickler and stateFromPickle.
// A file that reads has its generator state restored, as resuming does. Any outcome other than
// that or a std::exception (InputError) with a message
// naming the file is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/WeightsFile.h"
#include "engine/checkpoint/ZipIntegrity.h"
#include "fuzz/FuzzScratch.h"

namespace {

void put16(std::string& out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

// A zip archive of `records` (name, data), stored, as torch::pickle_save writes one.
std::string storedZip(const std::vector<std::pair<std::string, std::string>>& records) {
  std::string out;
  std::string directory;
  for (const auto& [name, data] : records) {
    const uint32_t crc = tbench::crc32(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    const uint32_t offset = static_cast<uint32_t>(out.size());
    put32(out, 0x04034b50);
    put16(out, 20);  // version needed
    put16(out, 0);   // flags
    put16(out, 0);   // stored
    put32(out, 0);   // time, date
    put32(out, crc);
    put32(out, static_cast<uint32_t>(data.size()));
    put32(out, static_cast<uint32_t>(data.size()));
    put16(out, static_cast<uint32_t>(name.size()));
    put16(out, 0);  // extra
    out += name;
    out += data;
    put32(directory, 0x02014b50);
    put16(directory, 20);  // made by
    put16(directory, 20);  // needed
    put16(directory, 0);
    put16(directory, 0);
    put32(directory, 0);
    put32(directory, crc);
    put32(directory, static_cast<uint32_t>(data.size()));
    put32(directory, static_cast<uint32_t>(data.size()));
    put16(directory, static_cast<uint32_t>(name.size()));
    put16(directory, 0);  // extra
    put16(directory, 0);  // comment
    put16(directory, 0);  // disk
    put16(directory, 0);  // internal attributes
    put32(directory, 0);  // external attributes
    put32(directory, offset);
    directory += name;
  }
  const uint32_t directoryOffset = static_cast<uint32_t>(out.size());
  out += directory;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint32_t>(records.size()));
  put16(out, static_cast<uint32_t>(records.size()));
  put32(out, static_cast<uint32_t>(directory.size()));
  put32(out, directoryOffset);
  put16(out, 0);
  return out;
}

// The records of the odd mode; a record cut off by the input's end gets what is there.
std::vector<std::pair<std::string, std::string>> parseRecords(const uint8_t* data, size_t size) {
  std::vector<std::pair<std::string, std::string>> records;
  size_t at = 0;
  while (at < size && records.size() < 64) {
    const size_t nameLength = data[at++];
    const size_t nameEnd = std::min(size, at + nameLength);
    std::string name =
        "archive/" + std::string(reinterpret_cast<const char*>(data + at), nameEnd - at);
    at = nameEnd;
    uint32_t length = 0;
    for (int i = 0; i < 4 && at < size; ++i) length |= uint32_t{data[at++]} << (8 * i);
    const size_t dataEnd = std::min<size_t>(size, at + length);
    records.emplace_back(std::move(name),
                         std::string(reinterpret_cast<const char*>(data + at), dataEnd - at));
    at = dataEnd;
  }
  return records;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string path;
  if (data[0] & 1) {
    const std::string zip = storedZip(parseRecords(data + 1, size - 1));
    path = tbench::fuzz::writeScratch("model-10.pt", reinterpret_cast<const uint8_t*>(zip.data()),
                                      zip.size());
  } else {
    path = tbench::fuzz::writeScratch("model-10.pt", data + 1, size - 1);
  }
  try {
    const tbench::TrainingState state = tbench::readCheckpointFile(path);
    if (state.path != path) std::abort();
    // What resuming does next with the file's own bytes (TrainConfig): the generator's state.
    tbench::restoreRngState(state);
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();
  }
  try {
    const tbench::NamedWeights weights = tbench::readWeightsFile(path);
    for (const auto& [name, tensor] : weights.tensors) {
      if (!tensor.defined()) std::abort();
      (void)tensor.sum();  // reads every element of the view: inside its storage
    }
  } catch (const std::bad_alloc&) {
    std::abort();
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();
  }
  return 0;
}
