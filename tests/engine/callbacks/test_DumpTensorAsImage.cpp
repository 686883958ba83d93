// DumpTensorAsImage in the real loop: the fixed batch goes through the trainer's runInference
// every epoch and the named output is put as an image grid; "input" puts the batch itself;
// the batch can come from the first samples of a DataFlow; a missing output names the others.
#include <QtTest>

#include <torch/torch.h>

#include "engine/callbacks/DumpTensorAsImage.h"
#include "engine/callbacks/PeriodicTrigger.h"
#include "engine/core/Check.h"
#include "engine/data/DataFromList.h"
#include "engine/monitors/Monitors.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_DumpTensorAsImage {

using namespace tbench;
using tbench::testing::loopSpecs;

namespace {

/// Keeps every image put, with its stamp.
class ImageRecorder : public TrainingMonitor {
 public:
  struct Put {
    std::string name;
    ImageData image;
    MetricStamp stamp;
  };
  std::vector<Put> puts;
  void processImage(const std::string& name, const ImageData& image,
                    const MetricStamp& stamp) override {
    puts.push_back({name, image, stamp});
  }
};

/// A NoOpTrainer whose "inference" outputs minus the first component as "samples" and a
/// vector as "score", and counts its calls.
class InferringTrainer : public NoOpTrainer {
 public:
  InferringTrainer() : NoOpTrainer(std::make_shared<DummyConstantInput>(4), loopSpecs()) {}
  std::map<std::string, torch::Tensor> runInference(const Datapoint& datapoint) override {
    ++calls;
    return {{"samples", -datapoint.at(0)}, {"score", torch::zeros({datapoint.at(0).size(0)})}};
  }
  int calls = 0;
};

std::shared_ptr<ImageRecorder> train(Trainer& trainer, CallbackPtr callback, int64_t epochs = 2) {
  auto recorder = std::make_shared<ImageRecorder>();
  trainer.setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{recorder}));
  trainer.registerCallback(std::move(callback));
  trainer.train({2, 1, epochs, std::nullopt});
  return recorder;
}

/// Two 1x1x2 grey images in [-1, 1].
Datapoint twoImages() {
  return {torch::tensor({-1.0f, 0.0f, 1.0f, 0.5f}).reshape({2, 1, 1, 2}),
          torch::tensor({3, 4}, torch::kInt64)};
}

}  // namespace

class TestDumpTensorAsImage : public QObject {
  Q_OBJECT

 private slots:
  void putsTheNamedOutputOfTheFixedBatchEveryEpoch() {
    InferringTrainer trainer;
    const auto recorder = train(
        trainer, std::make_shared<DumpTensorAsImage>("samples", twoImages(), "samples",
                                                     ImageGridOptions().range(-1, 1).padding(0)));
    QCOMPARE(trainer.calls, 2);
    QCOMPARE(recorder->puts.size(), size_t(2));
    for (size_t i = 0; i < 2; ++i) {
      const auto& put = recorder->puts[i];
      QCOMPARE(put.name, std::string("samples"));
      QCOMPARE(put.stamp.epochNum, int64_t(i + 1));
      QCOMPARE(put.stamp.globalStep, int64_t(2 * (i + 1)));
      // 2 images in ceil(sqrt(2)) = 2 columns: negated, [1, 0 | -1, -0.5].
      QCOMPARE(put.image.width, 4);
      QCOMPARE(put.image.height, 1);
      QCOMPARE(put.image.pixels, (std::vector<uint8_t>{255, 128, 0, 64}));
    }
  }

  void inputPutsTheBatchWithoutInferenceAndFollowsItsSchedule() {
    InferringTrainer trainer;
    auto dump = std::make_shared<DumpTensorAsImage>(
        "preview", twoImages(), DumpTensorAsImage::kInputComponent,
        ImageGridOptions().range(-1, 1).columns(1).padding(0));
    const auto recorder = train(
        trainer, std::make_shared<PeriodicTrigger>(dump, PeriodicTriggerOptions().epochs(2)), 4);
    QCOMPARE(trainer.calls, 0);
    QCOMPARE(recorder->puts.size(), size_t(2));  // epochs 2 and 4
    QCOMPARE(recorder->puts[0].stamp.epochNum, int64_t(2));
    QCOMPARE(recorder->puts[1].stamp.epochNum, int64_t(4));
    QCOMPARE(recorder->puts[0].image.width, 2);
    QCOMPARE(recorder->puts[0].image.height, 2);
    QCOMPARE(recorder->puts[0].image.pixels, (std::vector<uint8_t>{0, 128, 255, 191}));
  }

  void readsItsBatchFromTheFirstSamplesOfADataFlow() {
    std::vector<Datapoint> samples;
    for (int i = 0; i < 5; ++i) {
      samples.push_back({torch::full({3, 1, 1}, i / 4.0f), torch::tensor(int64_t(i))});
    }
    InferringTrainer trainer;
    auto dump = std::make_shared<DumpTensorAsImage>("rgb", std::make_shared<DataFromList>(samples),
                                                    3, DumpTensorAsImage::kInputComponent,
                                                    ImageGridOptions().columns(3).padding(0));
    const auto recorder = train(trainer, dump, 1);
    QCOMPARE(recorder->puts.size(), size_t(1));
    const ImageData& grid = recorder->puts[0].image;
    QCOMPARE(grid.channels, 3);
    QCOMPARE(grid.width, 3);  // the first 3 samples, not 5
    QCOMPARE(grid.pixels, (std::vector<uint8_t>{0, 0, 0, 64, 64, 64, 128, 128, 128}));
  }

  void aMissingOrMisshapenOutputFailsTheRunNamingTheOutputs() {
    for (const std::string output : {"logits", "score"}) {
      InferringTrainer trainer;
      try {
        train(trainer, std::make_shared<DumpTensorAsImage>("x", twoImages(), output));
        QFAIL("no error");
      } catch (const CheckError& e) {
        const QString message = e.what();
        if (output == "logits") {
          QVERIFY2(message.contains("no output \"logits\" (its outputs: samples, score)"),
                   e.what());
        } else {
          QVERIFY2(message.contains("[N, C, H, W]"), e.what());
        }
      }
    }
    QVERIFY_THROWS_EXCEPTION(CheckError, DumpTensorAsImage("", twoImages(), "samples"));
    QVERIFY_THROWS_EXCEPTION(CheckError, DumpTensorAsImage("x", DataFlowPtr(), 3, "samples"));
  }
};

}  // namespace test_DumpTensorAsImage

TB_TEST_GUILESS_MAIN(test_DumpTensorAsImage::TestDumpTensorAsImage)
#include "test_DumpTensorAsImage.moc"
