// For scripts/fuzz.sh only: CheckpointIndex.cpp's loadLatestCheckpoint calls
// readCheckpointFile (Checkpoint.cpp, LibTorch's serialization), which the fuzz build does not
// compile; fuzz_checkpoint_index never calls it. The CMake replay links the real one.

#include <stdexcept>
#include <string>

#include "engine/checkpoint/Checkpoint.h"

namespace tbench {

TrainingState readCheckpointFile(const std::string& path) {
  throw std::logic_error(path + ": readCheckpointFile is not part of the fuzz build");
}

}  // namespace tbench
