// ImageFileWriter through the real loop: every image put becomes
// <run dir>/images/<sanitized name>/epoch-<E>-step-<S>.png, which PNG-decodes (ImageDecode,
// libpng) to the same pixels; names are made safe and kept apart; a directory that cannot be
// written is logged and training goes on.
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/Check.h"
#include "engine/data/formats/ImageDecode.h"
#include "engine/monitors/ImageFileWriter.h"
#include "engine/monitors/Monitors.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ImageFileWriter {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;
namespace fs = std::filesystem;

namespace {

ImageData makeImage(int height, int width, int channels, int seed) {
  ImageData image;
  image.height = height;
  image.width = width;
  image.channels = channels;
  for (int i = 0; i < height * width * channels; ++i) {
    image.pixels.push_back(static_cast<uint8_t>((i * 37 + seed * 101) % 256));
  }
  return image;
}

/// Puts "gan/samples" (RGB, different each epoch) at the end of every epoch and "mask" (grey)
/// at the end of epoch 2.
CallbackPtr source() {
  return CallbackFactory::everyTrigger("source", [](TrainerContext& c) {
    c.monitors().putImage("gan/samples", makeImage(3, 5, 3, static_cast<int>(c.epochNum())));
    if (c.epochNum() == 2) c.monitors().putImage("mask", makeImage(4, 2, 1, 9));
  });
}

std::shared_ptr<ImageFileWriter> run(const std::string& runDir, std::string writerDir = "") {
  auto trainer = makeNoOpTrainer();
  trainer->setRunDir(runDir);
  auto writer = std::make_shared<ImageFileWriter>(std::move(writerDir));
  trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{writer}));
  trainer->registerCallback(source());
  trainer->train({3, 1, 2, std::nullopt});
  return writer;
}

void compareDecoded(const std::string& path, const ImageData& expected) {
  QVERIFY2(fs::exists(path), path.c_str());
  const DecodedImage decoded = decodeImageFile(path);
  QCOMPARE(decoded.height, int64_t(expected.height));
  QCOMPARE(decoded.width, int64_t(expected.width));
  QCOMPARE(decoded.channels, int64_t(expected.channels));
  QCOMPARE(decoded.pixels, expected.pixels);
}

}  // namespace

class TestImageFileWriter : public QObject {
  Q_OBJECT

 private slots:
  void writesEveryImageAsAPngThatDecodesToTheSamePixels() {
    QTemporaryDir dir;
    const std::string root = dir.path().toStdString();
    const auto writer = run(root);
    QCOMPARE(writer->written(), int64_t(3));
    const fs::path images = fs::path(root) / "images";
    compareDecoded((images / "gan_samples" / "epoch-1-step-3.png").string(), makeImage(3, 5, 3, 1));
    compareDecoded((images / "gan_samples" / "epoch-2-step-6.png").string(), makeImage(3, 5, 3, 2));
    compareDecoded((images / "mask" / "epoch-2-step-6.png").string(), makeImage(4, 2, 1, 9));
    int files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(images)) {
      files += entry.is_regular_file() ? 1 : 0;
      // Atomic writes leave no temporary file behind.
      QVERIFY2(entry.path().extension() == ".png" || entry.is_directory(), entry.path().c_str());
    }
    QCOMPARE(files, 3);
  }

  void anExplicitDirectoryIsUsedInsteadOfTheRunDirectory() {
    QTemporaryDir dir;
    const std::string other = dir.filePath("elsewhere").toStdString();
    run(dir.filePath("run").toStdString(), other);
    QVERIFY(fs::exists(fs::path(other) / "images" / "mask" / "epoch-2-step-6.png"));
    QVERIFY(!fs::exists(fs::path(dir.filePath("run").toStdString()) / "images"));
  }

  void namesAreMadeSafeFolderNames() {
    QCOMPARE(sanitizedImageName("samples"), std::string("samples"));
    QCOMPARE(sanitizedImageName("gan/samples"), std::string("gan_samples"));
    QCOMPARE(sanitizedImageName("a b:c"), std::string("a_b_c"));
    QCOMPARE(sanitizedImageName("grün"), std::string("gr__n"));  // two UTF-8 bytes
    QCOMPARE(sanitizedImageName(".."), std::string("__"));
    QCOMPARE(sanitizedImageName(".hidden.png"), std::string("_hidden.png"));
    QCOMPARE(sanitizedImageName("../x"), std::string("___x"));
    QCOMPARE(sanitizedImageName("v1.2-x_y"), std::string("v1.2-x_y"));
    QCOMPARE(sanitizedImageName(""), std::string("image"));
  }

  void namesThatSanitizeAlikeGetTheirOwnFolders() {
    ImageFileWriter writer("/tmp/unused");
    const MetricStamp stamp{12, 2, 0};
    QCOMPARE(writer.pathFor("a/b", stamp),
             std::string("/tmp/unused/images/a_b/epoch-2-step-12.png"));
    QCOMPARE(writer.pathFor("a_b", stamp),
             std::string("/tmp/unused/images/a_b-2/epoch-2-step-12.png"));
    QCOMPARE(writer.pathFor("a:b", stamp),
             std::string("/tmp/unused/images/a_b-3/epoch-2-step-12.png"));
    QCOMPARE(writer.pathFor("a/b", MetricStamp{13, 3, 0}),
             std::string("/tmp/unused/images/a_b/epoch-3-step-13.png"));
  }

  void anUnwritableDirectoryIsLoggedAndTrainingGoesOn() {
    QTemporaryDir dir;
    const std::string blocker = dir.filePath("blocker").toStdString();
    std::ofstream(blocker) << "a file, not a directory";
    const auto writer = run(dir.path().toStdString(), blocker + "/sub");
    QCOMPARE(writer->written(), int64_t(0));
  }

  void aMalformedImageIsRefused() {
    QTemporaryDir dir;
    ImageFileWriter writer(dir.path().toStdString());
    ImageData bad = makeImage(2, 2, 3, 0);
    bad.pixels.pop_back();
    QVERIFY_THROWS_EXCEPTION(CheckError, writer.processImage("bad", bad, MetricStamp{}));
    QVERIFY(!fs::exists(fs::path(dir.path().toStdString()) / "images"));
  }
};

}  // namespace test_ImageFileWriter

TB_TEST_GUILESS_MAIN(test_ImageFileWriter::TestImageFileWriter)
#include "test_ImageFileWriter.moc"
