// engine/predict at its own layer: a checkpoint of a real run exported (pt, safetensors,
// TorchScript) and tried on a dataset sample. The CLI's `export` and the window's export dialog
// and Try It call these functions; their tests go through the front ends (test_Cli,
// test_Learned), this one through the engine alone.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/WeightsFile.h"
#include "engine/core/Check.h"
#include "engine/predict/ModelExport.h"
#include "engine/predict/TryIt.h"
#include "engine/run/RunPreparation.h"
#include "tests/support/TinyProject.h"

using namespace tbench;
namespace fs = std::filesystem;

namespace {

/// Trains a small MLP on synthetic data for 2 × 3 steps; returns its run directory.
std::string trainedRun(const std::string& runRoot) {
  const Project p = testing::tinyProject(runRoot, "predict");
  RunRequest request;
  request.project = p;
  request.origin = "test_Predict";
  const std::unique_ptr<PreparedRun> run = prepareRun(request);
  if (trainPreparedRun(*run) != RecordedState::Finished) throw std::runtime_error("run failed");
  return run->runDir;
}

/// Whether `b` holds a tensor equal (shape and values) to each of `a`'s.
bool sameValues(const NamedTensorList& a, const NamedTensorList& b) {
  return std::all_of(a.begin(), a.end(), [&](const auto& named) {
    return std::any_of(b.begin(), b.end(), [&](const auto& other) {
      return other.second.sizes() == named.second.sizes() &&
             torch::equal(other.second.to(named.second.scalar_type()), named.second);
    });
  });
}

}  // namespace

class TestPredict : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(root_.isValid());
    runDir_ = trainedRun(root_.path().toStdString());
    checkpoint_ = readWeightsFile(runDir_).path;  // the run's latest
    QVERIFY(fs::exists(checkpoint_));
  }

  void everyFormatCarriesTheTrainedWeights() {
    const TrainingState state = readCheckpointFile(checkpoint_);
    QCOMPARE(int(state.model.size()), 4);  // two Linear layers' weights and biases
    for (const char* format : {"pt", "safetensors", "torchscript"}) {
      const std::string out =
          (fs::path(root_.path().toStdString()) / ("model." + std::string(format))).string();
      exportCheckpoint(checkpoint_, format, out);
      const NamedWeights exported = readWeightsFile(out);
      QVERIFY2(sameValues(state.model, exported.tensors), format);
      QVERIFY2(exported.tensors.size() >= state.model.size(), format);
    }
    // A format the engine does not write is refused by name.
    try {
      exportCheckpoint(checkpoint_, "onnx", (fs::path(root_.path().toStdString()) / "m").string());
      QFAIL("onnx was accepted");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("onnx") != std::string::npos, e.what());
    }
    // A file that is not a checkpoint names itself.
    const std::string junk = (fs::path(root_.path().toStdString()) / "junk.pt").string();
    std::ofstream(junk) << "not a checkpoint";
    try {
      exportCheckpoint(junk, "pt", junk + ".out");
      QFAIL("junk was exported");
    } catch (const std::exception& e) {
      QVERIFY2(std::string(e.what()).find("junk.pt") != std::string::npos, e.what());
    }
  }

  void tryingASampleGivesOneProbabilityPerClass() {
    TryItInput input;
    input.kind = TryItInput::Kind::DatasetSample;
    input.split = "train";
    input.index = 5;
    const TryItResult result = tryCheckpoint(checkpoint_, input, 3);
    QVERIFY(result.classNames.size() >= 2);
    QCOMPARE(result.probabilities.size(), result.classNames.size());
    double sum = 0;
    for (double p : result.probabilities) {
      QVERIFY(p >= 0 && p <= 1);
      sum += p;
    }
    QVERIFY(std::abs(sum - 1) < 1e-5);
    QCOMPARE(int(result.top.size()), 3);
    for (size_t i = 1; i < result.top.size(); ++i) {
      QVERIFY(result.top[i - 1].probability >= result.top[i].probability);
    }
    QCOMPARE(result.top[0].probability,
             *std::max_element(result.probabilities.begin(), result.probabilities.end()));
    QVERIFY(result.trueClass >= 0 && result.trueClass < int64_t(result.classNames.size()));
  }

 private:
  QTemporaryDir root_;
  std::string runDir_;
  std::string checkpoint_;
};

QTEST_GUILESS_MAIN(TestPredict)
#include "test_Predict.moc"
