// FashionMnist and SyntheticData as DataFlows: datapoint form, limit, shuffling, errors, and
// that the synthetic set is learnable.

#include <QtTest/QtTest>

#include <torch/torch.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Check.h"
#include "engine/data/BatchData.h"
#include "engine/data/ProxyDataFlow.h"
#include "engine/data/datasets/FashionMnist.h"
#include "engine/data/datasets/SyntheticData.h"
#include "tests/support/ExpectError.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_FashionMnist {

using namespace tbench;

using tbench::testing::contains;
using tbench::testing::messageOf;

namespace {

// The labels of one pass, in order.
std::vector<int64_t> labelsOfAPass(DataFlow& flow) {
  std::vector<int64_t> labels;
  auto pass = flow.pass();
  Datapoint point;
  while (pass.next(point)) labels.push_back(point.at(1).item<int64_t>());
  return labels;
}

void gunzipTo(const std::string& from, const std::string& to) {
  gzFile in = gzopen(from.c_str(), "rb");
  std::ofstream out(to, std::ios::binary);
  char buffer[1 << 16];
  int n;
  while ((n = gzread(in, buffer, sizeof(buffer))) > 0) out.write(buffer, n);
  gzclose(in);
}

}  // namespace

class TestFashionMnist : public QObject {
  Q_OBJECT

 private slots:
  void trainingSetDatapoints() {
    FashionMnist train("train");
    QCOMPARE(train.size().value(), int64_t{60000});
    QCOMPARE(train.numClasses(), int64_t{10});
    QCOMPARE(train.imageShape(), std::vector<int64_t>({1, 28, 28}));
    QCOMPARE(train.split(), std::string("train"));
    QCOMPARE(FashionMnist::classNames().at(9), std::string("Ankle boot"));
    train.resetState();

    QCOMPARE(train.images().sizes().vec(), std::vector<int64_t>({60000, 1, 28, 28}));
    QVERIFY(train.images().min().item<float>() >= 0.0f);
    QCOMPARE(train.images().max().item<float>(), 1.0f);

    auto pass = train.pass();
    Datapoint point;
    QVERIFY(pass.next(point));
    QCOMPARE(point.size(), size_t{2});
    QCOMPARE(point[0].scalar_type(), torch::kFloat32);
    QCOMPARE(point[0].sizes().vec(), std::vector<int64_t>({1, 28, 28}));
    QCOMPARE(point[1].scalar_type(), torch::kInt64);
    QCOMPARE(point[1].dim(), int64_t{0});
    QCOMPARE(point[1].item<int64_t>(), int64_t{9});  // the first training label
    // Pixel bytes of image 0 sum to 76247 (computed from the file with python3).
    QCOMPARE(point[0].mul(255).round().sum().item<double>(), 76247.0);
    QCOMPARE(point[0][0][14][14].item<float>(), 217.0f / 255.0f);

    int64_t count = 1;
    std::vector<int64_t> perClass(10, 0);
    perClass[9] = 1;
    while (pass.next(point)) {
      ++count;
      ++perClass.at(point[1].item<int64_t>());
    }
    QCOMPARE(count, int64_t{60000});
    QCOMPARE(perClass, std::vector<int64_t>(10, 6000));
  }

  void limitUsesTheFirstSamples() {
    FashionMnist test("test", "", FashionMnist::Options().limit(10));
    QCOMPARE(test.size().value(), int64_t{10});
    test.resetState();
    QCOMPARE(test.images().size(0), int64_t{10});
    QCOMPARE(labelsOfAPass(test), std::vector<int64_t>({9, 2, 1, 1, 6, 1, 4, 6, 5, 7}));
    FashionMnist beyond("test", "", FashionMnist::Options().limit(20000));
    QCOMPARE(beyond.size().value(), int64_t{10000});
  }

  void shuffleIsAReproduciblePermutation() {
    const auto options = FashionMnist::Options().limit(200).shuffle(true).seed(11);
    FashionMnist a("test", "", options);
    FashionMnist b("test", "", options);
    FashionMnist plain("test", "", FashionMnist::Options().limit(200));
    a.resetState();
    b.resetState();
    plain.resetState();
    const auto inOrder = labelsOfAPass(plain);
    const auto a0 = labelsOfAPass(a);
    const auto a1 = labelsOfAPass(a);
    QCOMPARE(labelsOfAPass(b), a0);
    QCOMPARE(labelsOfAPass(b), a1);
    QVERIFY(a0 != inOrder);
    QVERIFY(a0 != a1);
    auto sorted = [](std::vector<int64_t> v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    QCOMPARE(sorted(a0), sorted(inOrder));
  }

  void batchesOfImages() {
    auto test = std::make_shared<FashionMnist>("test", "", FashionMnist::Options().limit(100));
    BatchData batched(test, 32);
    QCOMPARE(batched.size().value(), int64_t{3});
    batched.resetState();
    auto pass = batched.pass();
    Datapoint batch;
    QVERIFY(pass.next(batch));
    QCOMPARE(batch[0].sizes().vec(), std::vector<int64_t>({32, 1, 28, 28}));
    QCOMPARE(batch[1].sizes().vec(), std::vector<int64_t>({32}));
    QCOMPARE(batch[1].scalar_type(), torch::kInt64);
  }

  // Note [Stacked reads]: BatchData gathers a batch from the in-memory IDX set in one
  // index_select. The batches equal, bit for bit, those of stacking the datapoints one by one
  // (the path every other flow takes, forced here by a proxy that cannot stack), shuffled,
  // over several passes, with and without the remainder.
  void stackedReadsEqualDatapointByDatapoint() {
    struct Opaque : ProxyDataFlow {
      using ProxyDataFlow::ProxyDataFlow;
    };
    for (const bool remainder : {false, true}) {
      auto options = FashionMnist::Options().limit(100).shuffle(true).seed(7);
      auto direct = std::make_shared<FashionMnist>("test", "", options);
      auto proxied = std::make_shared<Opaque>(std::make_shared<FashionMnist>("test", "", options));
      BatchData fast(direct, 32, remainder);
      BatchData slow(proxied, 32, remainder);
      fast.resetState();
      slow.resetState();
      for (int passIndex = 0; passIndex < 3; ++passIndex) {
        auto a = fast.pass();
        auto b = slow.pass();
        Datapoint x, y;
        int batches = 0;
        while (true) {
          const bool more = a.next(x);
          QCOMPARE(more, b.next(y));
          if (!more) break;
          ++batches;
          QCOMPARE(x.size(), y.size());
          for (size_t c = 0; c < x.size(); ++c) {
            QCOMPARE(x[c].sizes().vec(), y[c].sizes().vec());
            QCOMPARE(x[c].scalar_type(), y[c].scalar_type());
            QVERIFY(torch::equal(x[c], y[c]));
          }
        }
        QCOMPARE(batches, remainder ? 4 : 3);  // 100 = 3 x 32 + 4
      }
    }
  }

  void uncompressedFilesInAnotherDirectory() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string root = dir.path().toStdString();
    const std::string images = root + "/t10k-images-idx3-ubyte";
    gunzipTo(std::string(FashionMnist::kDefaultDir) + "/t10k-images-idx3-ubyte.gz", images);
    std::filesystem::copy_file(
        std::string(FashionMnist::kDefaultDir) + "/t10k-labels-idx1-ubyte.gz",
        root + "/t10k-labels-idx1-ubyte.gz");
    const auto files = FashionMnist::findFiles("test", root);
    QCOMPARE(files.first, images);
    QCOMPARE(files.second, root + "/t10k-labels-idx1-ubyte.gz");
    FashionMnist test("test", root, FashionMnist::Options().limit(5));
    test.resetState();
    QCOMPARE(labelsOfAPass(test), std::vector<int64_t>({9, 2, 1, 1, 6}));
    QCOMPARE(test.images()[0].mul(255).round().sum().item<double>(), 33456.0);

    // The training files are not there.
    const auto message = messageOf<InputError>([&] { FashionMnist("train", root); });
    QVERIFY2(contains(message, root + "/train-images-idx3-ubyte.gz"),
             message.value_or("none").c_str());
    QVERIFY2(contains(message, "apt-get install dataset-fashion-mnist"),
             message.value_or("none").c_str());
  }

  void missingDirectory() {
    const auto message =
        messageOf<InputError>([] { FashionMnist("train", "/nonexistent/fashion"); });
    QVERIFY2(contains(message, "/nonexistent/fashion") && contains(message, "does not exist"),
             message.value_or("none").c_str());
    QVERIFY2(
        contains(message, "apt-get install dataset-fashion-mnist") && contains(message, "\"dir\""),
        message.value_or("none").c_str());
  }

  void badSplitAndOptions() {
    const auto split = messageOf<InputError>([] { FashionMnist("validation"); });
    QVERIFY2(contains(split, "\"validation\"") && contains(split, "\"train\" or \"test\""),
             split.value_or("none").c_str());
    const auto limit =
        messageOf<InputError>([] { FashionMnist("test", "", FashionMnist::Options().limit(-1)); });
    QVERIFY2(contains(limit, "limit"), limit.value_or("none").c_str());
    const auto classes = messageOf<InputError>(
        [] { FashionMnist("test", "", FashionMnist::Options().numClasses(5)); });
    QVERIFY2(contains(classes, "is out of range: expected 0 to 4"),
             classes.value_or("none").c_str());
  }

  // ---- SyntheticData ----

  void syntheticShapes() {
    SyntheticData data(SyntheticData::Options().numSamples(100).imageSize(6).numClasses(3));
    QCOMPARE(data.size().value(), int64_t{100});
    QCOMPARE(data.numClasses(), int64_t{3});
    QCOMPARE(data.imageShape(), std::vector<int64_t>({1, 6, 6}));
    data.resetState();
    QCOMPARE(data.patterns().sizes().vec(), std::vector<int64_t>({3, 1, 6, 6}));
    QVERIFY(torch::equal(data.patterns().abs(), torch::ones({3, 1, 6, 6})));
    auto pass = data.pass();
    Datapoint point;
    int64_t count = 0;
    while (pass.next(point)) {
      QCOMPARE(point.size(), size_t{2});
      QCOMPARE(point[0].scalar_type(), torch::kFloat32);
      QCOMPARE(point[0].sizes().vec(), std::vector<int64_t>({1, 6, 6}));
      QCOMPARE(point[1].scalar_type(), torch::kInt64);
      QCOMPARE(point[1].dim(), int64_t{0});
      const int64_t label = point[1].item<int64_t>();
      QVERIFY(label >= 0 && label < 3);
      ++count;
    }
    QCOMPARE(count, int64_t{100});
    // Every class occurs (100 uniform draws from 3 classes).
    QVERIFY(data.labels().bincount(/*weights=*/{}, 3).min().item<int64_t>() > 0);
  }

  void syntheticIsDeterministic() {
    const auto options = SyntheticData::Options().numSamples(64).dataSeed(5);
    SyntheticData a(options);
    SyntheticData b(options);
    SyntheticData other(SyntheticData::Options().numSamples(64).dataSeed(6));
    a.resetState();
    torch::manual_seed(1234);  // the global generator must not matter
    b.resetState();
    other.resetState();
    QVERIFY(torch::equal(a.images(), b.images()));
    QVERIFY(torch::equal(a.labels(), b.labels()));
    QVERIFY(!torch::equal(a.patterns(), other.patterns()));
    // The noise has the requested size: residuals from the patterns have std about 0.5.
    const torch::Tensor residual = a.images() - a.patterns().index_select(0, a.labels());
    const double std = residual.std().item<double>();
    QVERIFY2(std > 0.45 && std < 0.55, std::to_string(std).c_str());
  }

  void syntheticLimitAndShuffle() {
    SyntheticData all(SyntheticData::Options().numSamples(50));
    SyntheticData limited(SyntheticData::Options().numSamples(50).limit(20));
    SyntheticData shuffled(SyntheticData::Options().numSamples(50).shuffle(true).seed(2));
    QCOMPARE(limited.size().value(), int64_t{20});
    all.resetState();
    limited.resetState();
    shuffled.resetState();
    QVERIFY(torch::equal(limited.images(), all.images().narrow(0, 0, 20)));
    const auto inOrder = labelsOfAPass(all);
    const auto first = labelsOfAPass(shuffled);
    const auto second = labelsOfAPass(shuffled);
    QVERIFY(first != inOrder || second != inOrder);
    QVERIFY(first != second);
    QCOMPARE(labelsOfAPass(limited).size(), size_t{20});
  }

  void syntheticPatternsAreDistinct() {
    // 2x2 images have 16 possible patterns; 16 classes need every one of them.
    SyntheticData data(SyntheticData::Options().numSamples(10).imageSize(2).numClasses(16));
    data.resetState();
    const torch::Tensor flat = data.patterns().view({16, 4});
    for (int64_t i = 0; i < 16; ++i) {
      for (int64_t j = 0; j < i; ++j) QVERIFY(!torch::equal(flat[i], flat[j]));
    }
    const auto tooMany = messageOf<InputError>(
        [] { SyntheticData(SyntheticData::Options().imageSize(2).numClasses(17)); });
    QVERIFY2(contains(tooMany, "exceeds the 16 distinct"), tooMany.value_or("none").c_str());
  }

  void syntheticRejectsBadOptions() {
    QVERIFY(contains(
        messageOf<InputError>([] { SyntheticData(SyntheticData::Options().numSamples(0)); }),
        "numSamples"));
    QVERIFY(contains(
        messageOf<InputError>([] { SyntheticData(SyntheticData::Options().numClasses(1)); }),
        "numClasses"));
    QVERIFY(contains(
        messageOf<InputError>([] { SyntheticData(SyntheticData::Options().noise(-1)); }), "noise"));
    QVERIFY(contains(
        messageOf<InputError>([] { SyntheticData(SyntheticData::Options().imageSize(0)); }),
        "imageSize"));
  }

  void syntheticIsLearnableByASmallMlp() {
    // The promise of the header: noise 0.5, a small MLP, a couple hundred steps.
    torch::manual_seed(0);
    auto data = std::make_shared<SyntheticData>(
        SyntheticData::Options().numSamples(2048).shuffle(true).seed(1));
    BatchData batches(data, 64);
    batches.resetState();
    torch::nn::Sequential mlp(torch::nn::Flatten(), torch::nn::Linear(64, 32), torch::nn::ReLU(),
                              torch::nn::Linear(32, 4));
    torch::optim::Adam adam(mlp->parameters(), torch::optim::AdamOptions(1e-2));
    int64_t steps = 0;
    while (steps < 200) {
      auto pass = batches.pass();
      Datapoint batch;
      while (steps < 200 && pass.next(batch)) {
        adam.zero_grad();
        torch::nn::functional::cross_entropy(mlp->forward(batch[0]), batch[1]).backward();
        adam.step();
        ++steps;
      }
    }
    torch::NoGradGuard noGrad;
    const double error = (mlp->forward(data->images()).argmax(1) != data->labels())
                             .to(torch::kFloat64)
                             .mean()
                             .item<double>();
    qInfo("training error after 200 steps: %.4f", error);
    QVERIFY2(error < 0.01, std::to_string(error).c_str());
  }
};

}  // namespace test_FashionMnist

TB_TEST_APPLESS_MAIN(test_FashionMnist::TestFashionMnist)
#include "test_FashionMnist.moc"
