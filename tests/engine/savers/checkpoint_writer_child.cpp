// Helper for test_ModelSaver: trains forever in <run dir>, saving a checkpoint every step,
// until the test SIGKILLs it. Prints "saved <global step>" after every save.
//
//   checkpoint_writer_child <run dir> <starting epoch>

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/data/DataFromList.h"
#include "engine/input/FeedInput.h"
#include "engine/models/Mlp.h"
#include "engine/models/SupervisedModel.h"
#include "engine/savers/ModelSaver.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/TinyMlp.h"

using namespace tbench;

namespace {}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <run dir> <starting epoch>\n", argv[0]);
    return 2;
  }
  // About 0.8 M parameters (3 MB per checkpoint), so that a write takes long enough to be
  // interrupted in the middle.
  TrainConfig config = TrainConfig::quiet();
  config.model = testing::tinyMlpModel({16, 4, /*hidden=*/{1024, 512}}, testing::adam(1e-4));
  torch::manual_seed(1);
  config.input = std::make_shared<FeedInput>(std::make_shared<DataFromList>(std::vector<Datapoint>{
      {torch::randn({8, 1, 16, 16}), torch::randint(0, 4, {8}, torch::kInt64)}}));
  config.callbacks = {
      std::make_shared<ModelSaver>(ModelSaver::Options().maxToKeep(3).keepCheckpointEveryNHours(0)),
      // After the saver's write, which happens once every callback has triggered.
      CallbackFactory::everyTrigger("announce", [](TrainerContext& c) {
        c.afterTriggers([&c] {
          std::printf("saved %lld\n", static_cast<long long>(c.globalStep()));
          std::fflush(stdout);
        });
      })};
  config.stepsPerEpoch = 1;
  config.startingEpoch = std::atoll(argv[2]);
  config.maxEpoch = config.startingEpoch + 100000000;
  config.runDir = argv[1];
  config.numThreads = 1;
  SimpleTrainer trainer;
  launchTrainWithConfig(config, trainer);
  return 0;
}
