// Image decoding (libpng, libjpeg), resizing and ImageFolderData against PIL, on folders that
// make_image_folders.py writes with PIL at test time: pixel values, grey and RGB conversion,
// resize and centre crop, normalisation, class names and labels, hold-out parts, reproducible
// augmentations, corrupt files, and training through the project layer.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "engine/core/Check.h"
#include "engine/data/ImageAugment.h"
#include "engine/data/datasets/ImageFolderData.h"
#include "engine/data/formats/ImageDecode.h"
#include "engine/data/formats/NpyFile.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ImageFolder {

using namespace tbench;
using Options = ImageFolderData::Options;

namespace {

// The images of folder/ (relative paths, in the order the flow reads them) and the channels
// they decode to.
const std::vector<std::pair<std::string, int64_t>> kImages = {
    {"a_square/0_rgb.png", 3},     {"a_square/1_grey.png", 1},  {"a_square/2_palette.png", 3},
    {"a_square/3_rgba.png", 3},    {"a_square/4_color.jpg", 3}, {"a_square/5_grey.JPEG", 1},
    {"b_circle/0_la.png", 1},      {"b_circle/1_bits.PNG", 1},  {"b_circle/2_rgb.jpeg", 3},
    {"b_circle/sub/3_rgb.png", 3}, {"c_noise/0.png", 3},        {"c_noise/1.jpg", 3}};
const std::vector<int64_t> kLabels = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2};

torch::Tensor asTensor(const DecodedImage& image) {
  return torch::from_blob(const_cast<uint8_t*>(image.pixels.data()),
                          {image.height, image.width, image.channels}, torch::kUInt8)
      .clone();
}

/// The largest difference between `image` and PIL's pixels; -1 when the shapes differ.
int64_t maxDifference(const DecodedImage& image, torch::Tensor reference) {
  if (reference.dim() == 2) reference = reference.unsqueeze(2);
  const torch::Tensor mine = asTensor(image);
  if (mine.sizes() != reference.sizes()) return -1;
  return (mine.to(torch::kInt32) - reference.to(torch::kInt32)).abs().max().item<int64_t>();
}

/// PIL's pixels [H, W(, C)] as the flow gives them: float CHW in [0, 1].
torch::Tensor asChw(torch::Tensor reference) {
  if (reference.dim() == 2) reference = reference.unsqueeze(2);
  return reference.permute({2, 0, 1}).to(torch::kFloat32) / 255.0;
}

std::vector<Datapoint> onePass(DataFlow& flow) {
  std::vector<Datapoint> points;
  DataPass pass = flow.pass();
  Datapoint point;
  while (pass.next(point)) points.push_back(point);
  return points;
}

bool samePoints(const std::vector<Datapoint>& a, const std::vector<Datapoint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::equal(a[i][0], b[i][0]) || !torch::equal(a[i][1], b[i][1])) return false;
  }
  return true;
}

template <typename F>
QString errorOf(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return "(no InputError)";
}

}  // namespace

class TestImageFolder : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const testing::PythonRun python =
        testing::runPython({TB_SOURCE_DIR "/tests/engine/data/make_image_folders.py", dir_.path()});
    QVERIFY2(python.ok, python.err.constData());
  }

  void decodesAsPilDoes() {
    for (const auto& [name, channels] : kImages) {
      const std::string file = path("folder/" + name);
      const bool jpeg =
          name.find(".jp") != std::string::npos || name.find(".JP") != std::string::npos;
      const int64_t tolerance = jpeg ? 1 : 0;  // the same libjpeg: expected exact
      DecodedImage image = decodeImageFile(file);
      QVERIFY2(image.channels == channels, name.c_str());
      const ImageInfo info = readImageInfo(file);
      QCOMPARE(info.channels, channels);
      QCOMPARE(info.height, int64_t{10});
      QCOMPARE(info.width, int64_t{12});
      const std::string own = channels == 3 ? ".rgb.npy" : ".l.npy";
      const std::string other = channels == 3 ? ".l.npy" : ".rgb.npy";
      const int64_t decoded = maxDifference(image, reference(name, own));
      QVERIFY2(decoded >= 0 && decoded <= tolerance,
               (name + ": differs from PIL by " + std::to_string(decoded)).c_str());
      convertChannels(image, 4 - channels);  // grey <-> RGB, as PIL's convert
      const int64_t converted = maxDifference(image, reference(name, other));
      QVERIFY2(converted >= 0 && converted <= tolerance,
               (name + ": converted differs from PIL by " + std::to_string(converted)).c_str());
    }
  }

  void resizesAsPilDoes() {
    const DecodedImage source = decodeImageFile(path("resize_src.png"));
    for (auto [w, h] :
         std::vector<std::pair<int, int>>{{5, 7}, {23, 17}, {12, 4}, {3, 10}, {40, 40}, {1, 1}}) {
      const std::string name = "resize_" + std::to_string(w) + "x" + std::to_string(h) + ".npy";
      const DecodedImage resized = resizeBilinear(source, h, w);
      QVERIFY2(maxDifference(resized, readNpyFile(path("ref/" + name))) == 0, name.c_str());
    }
    // torchvision's Resize(size) + CenterCrop(size) of a tall grey image.
    const DecodedImage tall = decodeImageFile(path("tall.png"));
    for (int size : {6, 13}) {
      const DecodedImage cropped = resizeShorterSideAndCrop(tall, size);
      QCOMPARE(cropped.height, int64_t{size});
      QCOMPARE(cropped.width, int64_t{size});
      const std::string name = "ref/tall_crop" + std::to_string(size) + ".npy";
      QVERIFY2(maxDifference(cropped, readNpyFile(path(name))) == 0, name.c_str());
    }
  }

  void readsAFolderAsTorchvisionDoes() {
    ImageFolderData flow(path("folder"), Options().workers(2));
    QCOMPARE(flow.classNames(), (std::vector<std::string>{"a_square", "b_circle", "c_noise"}));
    QCOMPARE(flow.size().value(), int64_t(kImages.size()));  // no .txt, no hidden folders
    QCOMPARE(flow.sampleShape(), (std::vector<int64_t>{3, 10, 12}));
    for (size_t i = 0; i < kImages.size(); ++i) {
      QCOMPARE(flow.files()[i], path("folder/" + kImages[i].first));
    }
    flow.resetState();
    const std::vector<Datapoint> points = onePass(flow);
    QCOMPARE(points.size(), kImages.size());
    for (size_t i = 0; i < points.size(); ++i) {
      QCOMPARE(points[i][0].scalar_type(), torch::kFloat32);
      QCOMPARE(points[i][1].scalar_type(), torch::kInt64);
      QCOMPARE(points[i][1].dim(), int64_t{0});
      QCOMPARE(points[i][1].item<int64_t>(), kLabels[i]);
      const torch::Tensor expected = asChw(reference(kImages[i].first, ".rgb.npy"));
      QVERIFY2(torch::allclose(points[i][0], expected, 0, 1e-6), kImages[i].first.c_str());
    }
  }

  void convertsResizesAndNormalises() {
    // Grey, normalised with one mean and std for the channel.
    ImageFolderData grey(path("folder"),
                         Options().channels(1).workers(0).normalization({{0.5}, {0.25}}));
    QCOMPARE(grey.sampleShape(), (std::vector<int64_t>{1, 10, 12}));
    grey.resetState();
    std::vector<Datapoint> points = onePass(grey);
    for (size_t i = 0; i < points.size(); ++i) {
      const torch::Tensor expected = (asChw(reference(kImages[i].first, ".l.npy")) - 0.5) / 0.25;
      QVERIFY2(torch::allclose(points[i][0], expected, 0, 1e-5), kImages[i].first.c_str());
    }
    // RGB at size 8: the shorter side scaled and the centre cropped, or stretched; per-channel
    // normalisation.
    const std::vector<double> mean{0.4, 0.5, 0.6}, std{0.2, 0.3, 0.4};
    const auto m = torch::tensor(mean, torch::kFloat32).view({3, 1, 1});
    const auto s = torch::tensor(std, torch::kFloat32).view({3, 1, 1});
    for (auto [mode, suffix] : {std::pair{ImageFolderData::Resize::ShorterSideAndCrop, ".crop8"},
                                std::pair{ImageFolderData::Resize::Stretch, ".stretch8"}}) {
      ImageFolderData sized(path("folder"),
                            Options().size(8).resize(mode).workers(2).normalization({mean, std}));
      QCOMPARE(sized.sampleShape(), (std::vector<int64_t>{3, 8, 8}));
      sized.resetState();
      points = onePass(sized);
      for (size_t i = 0; i < points.size(); ++i) {
        const torch::Tensor expected =
            (asChw(reference(kImages[i].first, std::string(suffix) + ".npy")) - m) / s;
        QVERIFY2(torch::allclose(points[i][0], expected, 0, 1e-5),
                 (kImages[i].first + suffix).c_str());
      }
    }
  }

  void holdOutPartsAreDisjoint() {
    auto files = [&](bool test, uint64_t seed) {
      ImageFolderData flow(path("folder"),
                           Options().test(test).testFraction(0.25).splitSeed(seed).workers(0));
      const auto list = flow.files();
      return std::set<std::string>(list.begin(), list.end());
    };
    const auto train = files(false, 3), test = files(true, 3);
    QCOMPARE(int(test.size()), 3);  // round(12 x 0.25)
    QCOMPARE(int(train.size()), 9);
    std::set<std::string> both = train;
    both.insert(test.begin(), test.end());
    QCOMPARE(both.size(), kImages.size());  // disjoint, and together the whole folder
    QVERIFY(files(true, 4) != test);        // another seed holds out others
    QCOMPARE(ImageFolderData(path("folder"), Options().limit(5)).size().value(), int64_t{5});
    QVERIFY(errorOf([&] {
              ImageFolderData(path("folder"), Options().test(true));
            }).contains("the held-out part is empty"));
  }

  void augmentationsAreReproducible() {
    const AugmentOptions augment{2, true, 0.2};
    auto make = [&](int64_t workers, bool shuffle, uint64_t seed, AugmentOptions a) {
      auto flow = std::make_shared<ImageFolderData>(
          path("folder"),
          Options().size(8).workers(workers).augment(a).shuffle(shuffle).seed(seed));
      flow->resetState();
      return flow;
    };
    // The same seed gives the same tensors with 0 and 2 workers, pass by pass.
    auto inline0 = make(0, true, 7, augment), threaded = make(2, true, 7, augment);
    const auto first = onePass(*inline0);
    QVERIFY(samePoints(first, onePass(*threaded)));
    const auto second = onePass(*inline0);
    QVERIFY(samePoints(second, onePass(*threaded)));
    QVERIFY(!samePoints(first, second));
    // Without shuffling, pass 2 reads the files in the same order with other augmentations;
    // without augmentations, passes are equal.
    auto ordered = make(2, false, 7, augment);
    const auto a = onePass(*ordered), b = onePass(*ordered);
    for (size_t i = 0; i < a.size(); ++i) QVERIFY(torch::equal(a[i][1], b[i][1]));
    QVERIFY(!samePoints(a, b));
    auto plain = make(2, false, 7, {});
    QVERIFY(samePoints(onePass(*plain), onePass(*plain)));
    // Another seed, other augmentations.
    QVERIFY(!samePoints(onePass(*make(0, false, 8, augment)), a));
    // Each augmentation does what it says on a sample: a flip mirrors, a shift moves in zeros.
    DecodedImage image = decodeImageFile(path("folder/c_noise/0.png"));
    std::vector<float> plainOut(3 * 10 * 12), flipped(3 * 10 * 12), shifted(3 * 10 * 12);
    writeFloatCHW(image, {}, {}, plainOut.data());
    writeFloatCHW(image, {0, 0, true, 1, 1}, {}, flipped.data());
    writeFloatCHW(image, {1, -2, false, 1, 1}, {}, shifted.data());
    auto at = [](const std::vector<float>& v, int c, int y, int x) {
      return v[(c * 10 + y) * 12 + x];
    };
    QCOMPARE(at(flipped, 1, 3, 0), at(plainOut, 1, 3, 11));
    QCOMPARE(at(shifted, 2, 4, 5), at(plainOut, 2, 5, 3));
    QCOMPARE(at(shifted, 0, 9, 5), 0.0f);  // row 10 lies outside
    QCOMPARE(at(shifted, 0, 4, 1), 0.0f);  // column -1 lies outside
  }

  void corruptImagesAreSkippedOrFatal() {
    const std::map<std::string, QString> reasons = {
        {"bad/x/1_truncated.png", "truncated"},
        {"bad/x/2_empty.png", "empty file"},
        {"bad/y/1_garbage.jpg", "not a PNG or JPEG image"},
        {"bad/y/2_truncated.jpg", "truncated"}};
    for (const auto& [name, reason] : reasons) {
      const QString file = QString::fromStdString(path(name));
      const std::string image = path(name);  // C++17 lambdas cannot capture a binding
      const QString message = errorOf([&] { decodeImageFile(image); });
      QVERIFY2(message.startsWith(file + ": ") && message.mid(file.size()).contains(reason),
               qPrintable(message));
    }
    for (int64_t workers : {0, 2}) {
      ImageFolderData skipping(path("bad"),
                               Options().workers(workers).onError(ImageFolderData::OnError::Skip));
      QCOMPARE(skipping.size().value(), int64_t{12});  // what the scan found
      skipping.resetState();
      QCOMPARE(onePass(skipping).size(), size_t{8});
      QCOMPARE(skipping.skippedFiles(), int64_t{4});
      QCOMPARE(onePass(skipping).size(), size_t{8});  // a second pass: the same four
      QCOMPARE(skipping.skippedFiles(), int64_t{4});

      ImageFolderData failing(path("bad"), Options().workers(workers));
      failing.resetState();
      const QString message = errorOf([&] { onePass(failing); });
      QVERIFY2(message.contains(QString::fromStdString(path("bad/x/1_truncated.png"))),
               qPrintable(message));
    }
  }

  void randomCorruptionsThrowOrDecode() {
    // Flipped bytes and cuts anywhere: each copy decodes or throws InputError, nothing aborts.
    std::mt19937 rng(3);
    int refused = 0;
    for (const char* name : {"folder/c_noise/0.png", "folder/a_square/4_color.jpg"}) {
      std::ifstream in(path(name), std::ios::binary);
      const std::string original(std::istreambuf_iterator<char>(in), {});
      for (int trial = 0; trial < 400; ++trial) {
        std::string bytes = original;
        if (trial % 4 == 0) {
          bytes.resize(rng() % bytes.size());
        } else {
          for (int flips = 1 + int(rng() % 4); flips > 0; --flips) {
            bytes[rng() % bytes.size()] = static_cast<char>(rng());
          }
        }
        try {
          decodeImage(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), name);
        } catch (const InputError& e) {
          QVERIFY(std::string(e.what()).rfind(name, 0) == 0);
          ++refused;
        }
      }
    }
    QVERIFY(refused > 200);
  }

  void refusesBadFoldersNamingThem() {
    QVERIFY(errorOf([&] { scanImageFolder(path("missing")); }).contains("no such directory"));
    const QString empty = errorOf([&] { scanImageFolder(path("empty_class")); });
    QVERIFY2(empty.contains(QString::fromStdString(path("empty_class/b"))) &&
                 empty.contains("no images"),
             qPrintable(empty));
    QVERIFY(errorOf([&] { scanImageFolder(path("task/dark")); }).contains("0 class folder(s)"));
    QVERIFY(errorOf([&] {
              ImageFolderData(path("folder"), Options().channels(2));
            }).contains("channels must be 1 (grey) or 3 (RGB), got 2"));
    QVERIFY(errorOf([&] {
              ImageFolderData(path("folder"), Options().normalization({{0.1, 0.2}, {}}));
            }).contains("mean has 2 values for 3 channels"));
  }

  void trainsFromAProject() {
    // Dark against bright squares: 36 training images, 12 held out for validation.
    const nlohmann::json train = {{"type", "image_folder"},
                                  {"dir", path("task")},
                                  {"channels", 1},
                                  {"mean", {0.5}},
                                  {"std", {0.5}},
                                  {"test_fraction", 0.25},
                                  {"split_seed", 5},
                                  {"horizontal_flip", true},
                                  {"random_crop_padding", 1}};
    nlohmann::json validation = train;
    validation.erase("horizontal_flip");  // the validation slot's split is "test"
    const nlohmann::json doc = {
        {"format", 1},
        {"name", "folders"},
        {"model", {{"type", "mlp"}, {"hidden", {16}}}},
        {"data", {{"train", train}, {"validation", validation}, {"batch_size", 6}}},
        {"optimizer", {{"type", "adam"}, {"learning_rate", 0.01}}},
        {"max_epoch", 3},
        {"callbacks", {{{"type", "inference"}}}},
        {"trainer", {{"strategy", "simple"}}}};
    const Project project = projectFromJson(doc);
    const DataSourceMaker& maker = dataSourceMaker("image_folder");
    QCOMPARE(maker.count(project.data.train.resolved()), int64_t{36});
    QCOMPARE(maker.count(project.data.validation.resolved()), int64_t{12});
    BuiltRun run = buildRun(project, "");
    QCOMPARE(run.dataFacts.classNames, (std::vector<std::string>{"bright", "dark"}));
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(run.trainer->globalStep(), int64_t{18});  // 36 / 6 per step x 3 epochs
    const auto errors = history->get("validation_error");
    QCOMPARE(int(errors.size()), 3);
    QVERIFY2(errors.back().value <= 0.1, qPrintable(QString::number(errors.back().value)));

    // Validation classes must be the training classes.
    nlohmann::json other = doc;
    other["data"]["validation"] = {
        {"type", "image_folder"}, {"dir", path("other")}, {"split", "train"}, {"channels", 1}};
    const QString message = errorOf([&] { buildRun(projectFromJson(other), ""); });
    QVERIFY2(message.contains("[cats, dogs]") && message.contains("[bright, dark]"),
             qPrintable(message));
    // What validation says before anything is read.
    nlohmann::json wrong = doc;
    wrong["data"]["validation"] = {{"type", "image_folder"}, {"dir", path("task")}};
    wrong["data"]["train"]["channels"] = 2;
    wrong["data"]["train"]["std"] = {0.5, 0.5, 0.5};
    std::vector<std::string> issues;
    for (const auto& issue : validateProjectJson(wrong)) issues.push_back(issue.toString());
    QCOMPARE(int(issues.size()), 3);
    auto has = [&](const std::string& part) {
      return std::any_of(issues.begin(), issues.end(),
                         [&](const std::string& i) { return i.find(part) != std::string::npos; });
    };
    QVERIFY(has("$.data.train.channels: must be 1 (grey) or 3 (RGB)"));
    QVERIFY(has("$.data.train.std: has 3 values for 2 channel(s)"));
    QVERIFY(
        has("$.data.validation.split: \"test\" reads the held-out part, and test_fraction is 0"));
  }

 private:
  std::string path(const std::string& relative) const {
    return dir_.filePath(QString::fromStdString(relative)).toStdString();
  }
  /// What make_image_folders.py saved for image `name` ("a/b.png" is "ref/a__b.png<suffix>").
  torch::Tensor reference(const std::string& name, const std::string& suffix) const {
    std::string flat;
    for (char c : name) flat += c == '/' ? std::string("__") : std::string(1, c);
    return readNpyFile(path("ref/" + flat + suffix));
  }

  QTemporaryDir dir_;
};

}  // namespace test_ImageFolder

TB_TEST_MAIN(test_ImageFolder::TestImageFolder)
#include "test_ImageFolder.moc"
