// Runs what docs/WRITE-A-TRAINER.md's code defines (compiled into this test from the guide).

#include <QtTest>

#include <torch/torch.h>

#include "engine/project/registry/ComponentFactories.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/project/Plugin.h"
#include "engine/train/ModelDesc.h"

extern "C" void towerbench_plugin_register(tbench::PluginContext& context);

// Defined by the guide's blocks (write_a_trainer_snippets.cpp).
namespace guide {
std::pair<int64_t, int64_t> trainMlpGan(int64_t steps);
std::shared_ptr<tbench::ModelDesc> tinyModel();
std::vector<torch::Tensor> trainEma(const std::string& dir, int64_t steps, int64_t stopAt,
                                    const std::string& resumeFrom);
}  // namespace guide

class TestWriteATrainer : public QObject {
  Q_OBJECT
 private slots:
  void theGuidesGanTrainsOnItsSchedule() {
    const auto [discriminator, generator] = guide::trainMlpGan(4);
    QCOMPARE(discriminator, int64_t{8});  // schedule {2, 1}
    QCOMPARE(generator, int64_t{4});
  }

  void theGuidesTrainerResumesExactly() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    const auto whole = guide::trainEma(path, 12, -1, "");
    guide::trainEma(path, 12, 5, "");
    QVERIFY(QFileInfo::exists(dir.filePath("stop.pt")));
    const auto resumed = guide::trainEma(path, 12, -1, path + "/stop.pt");
    QCOMPARE(whole.size(), resumed.size());
    QVERIFY(!whole.empty());
    for (size_t i = 0; i < whole.size(); ++i) QVERIFY(torch::equal(whole[i], resumed[i]));
    // The averages are not the initial weights: they moved with training.
    const auto early = guide::trainEma(path, 1, -1, "");
    QVERIFY(!torch::equal(early.front(), whole.front()));
  }

  void theGuidesPluginRegistersItsStrategy() {
    auto& registry = tbench::ComponentRegistry::global();
    tbench::PluginContext context{registry, "guide"};
    towerbench_plugin_register(context);
    const tbench::ComponentType* type = registry.find("strategy", "ema");
    QVERIFY(type != nullptr);
    QCOMPARE(type->keys.size(), size_t{1});
    QCOMPARE(type->keys.front().name, std::string("decay"));
    // Its factory refuses a GAN and makes the guide's trainer for a single-cost model.
    const auto& make = tbench::strategyMaker("ema");
    QVERIFY(make.trainer != nullptr && make.input != nullptr);
    tbench::Settings settings = registry.defaults("strategy", "ema");
    auto trainer = make.trainer(settings, {tbench::Device{}}, *guide::tinyModel());
    QVERIFY(trainer != nullptr);
    QCOMPARE(trainer->numTowers(), 1);
  }
};

QTEST_GUILESS_MAIN(TestWriteATrainer)
#include "test_WriteATrainer.moc"
