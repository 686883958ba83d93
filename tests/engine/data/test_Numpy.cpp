// .npy and .npz reading (NpyFile, ZipArchive) and NumpyClassificationData on files written by
// NumPy itself (/usr/bin/python3), their corrupted copies, and dtypes the reader refuses by name.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "engine/core/Check.h"
#include "engine/data/datasets/NumpyData.h"
#include "engine/data/formats/NpyFile.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/ExpectError.h"
#include "tests/support/FileBytes.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Numpy {

using namespace tbench;
using tbench::testing::expectError;

namespace {

// Writes the arrays below into argv[1] and prints the sums the C++ side must find.
const char* kPython = R"(
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
f32 = rng.standard_normal((30, 6)).astype('<f4'); np.save(d + '/f32.npy', f32)
np.save(d + '/f64.npy', rng.standard_normal((30, 2, 3)).astype('<f8'))
np.save(d + '/u8.npy', rng.integers(0, 256, (30, 1, 4, 4)).astype(np.uint8))
np.save(d + '/labels.npy', (np.arange(30) % 3).astype('<i8'))
np.save(d + '/labels_u8.npy', (np.arange(30) % 3).astype(np.uint8))
np.save(d + '/short_labels.npy', np.zeros(29, dtype='<i8'))
np.save(d + '/negative.npy', np.array([0, 1, -2] + [0] * 27, dtype='<i8'))
np.save(d + '/big_endian.npy', f32.astype('>f4'))
np.save(d + '/int32.npy', np.zeros((30, 6), dtype='<i4'))
np.save(d + '/fortran.npy', np.asfortranarray(rng.standard_normal((30, 6)).astype('<f4')))
np.save(d + '/float_labels.npy', np.zeros(30, dtype='<f4'))
nan = f32.copy(); nan[4, 5] = np.nan; np.save(d + '/nan.npy', nan)
labels = (np.arange(30) % 3).astype('<i8')
np.savez(d + '/plain.npz', x=f32, y=labels)
np.savez(d + '/positional.npz', f32, labels)
large = rng.standard_normal((300000, 4)).astype('<f4')
np.savez_compressed(d + '/packed.npz', x=f32, y=labels, large=large)
import zipfile
with zipfile.ZipFile(d + '/bzip2.npz', 'w', zipfile.ZIP_BZIP2) as z:
    z.writestr('x.npy', open(d + '/f32.npy', 'rb').read())
print(repr(float(f32.astype(np.float64).sum())), repr(float(large.astype(np.float64).sum())))
)";

}  // namespace

class TestNumpy : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const testing::PythonRun python = testing::runPython({"-c", kPython, dir_.path()});
    QVERIFY2(python.ok, python.err.constData());
    const QStringList sums = QString(python.out).trimmed().split(' ');
    QCOMPARE(sums.size(), 2);
    f32Sum_ = sums[0].toDouble();
    largeSum_ = sums[1].toDouble();
  }

  void readsWhatNumpyWrote() {
    NpyHeader header;
    const torch::Tensor f32 = readNpyFile(path("f32.npy"), &header);
    QCOMPARE(header.descr, std::string("<f4"));
    QCOMPARE(f32.sizes().vec(), (std::vector<int64_t>{30, 6}));
    QCOMPARE(f32.scalar_type(), torch::kFloat32);
    QVERIFY(std::abs(f32.to(torch::kFloat64).sum().item<double>() - f32Sum_) < 1e-9);
    QCOMPARE(readNpyFile(path("f64.npy")).scalar_type(), torch::kFloat64);
    QCOMPARE(readNpyFile(path("u8.npy")).sizes().vec(), (std::vector<int64_t>{30, 1, 4, 4}));
    QCOMPARE(readNpyHeader(path("labels.npy")).shape, (std::vector<int64_t>{30}));
  }

  void refusesWhatItDoesNotRead_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    QTest::newRow("big-endian") << "big_endian.npy"
                                << "dtype '>f4' is not accepted (big-endian)";
    QTest::newRow("int32") << "int32.npy"
                           << "dtype '<i4' is not accepted";
    QTest::newRow("fortran") << "fortran.npy"
                             << "Fortran order";
    QTest::newRow("nan") << "nan.npy"
                         << "element 29 (byte 244) is NaN or infinite";
  }
  void refusesWhatItDoesNotRead() {
    QFETCH(QString, file);
    QFETCH(QString, expected);
    expectError([&] { readNpyFile(path(file)); }, file, expected);
  }

  void corruptedCopiesAreReportedWithTheirOffset() {
    const std::string original = testing::readBytes(path("f32.npy"));
    testing::writeBytes(path("truncated.npy"), original.substr(0, original.size() - 5));
    expectError([&] { readNpyFile(path("truncated.npy")); }, "truncated.npy",
                "truncated: the shape needs 720 bytes of data from byte 128, the file has 715");
    testing::writeBytes(path("trailing.npy"), original + "xyz");
    expectError([&] { readNpyFile(path("trailing.npy")); }, "trailing.npy",
                "3 bytes after the data, which ends at byte 848");
    testing::writeBytes(path("magic.npy"), "PK" + original.substr(2));
    expectError([&] { readNpyFile(path("magic.npy")); }, "magic.npy", "not a .npy file");
    std::string badShape = original;
    badShape.replace(badShape.find("(30, 6)"), 7, "(30, x)");
    testing::writeBytes(path("shape.npy"), badShape);
    expectError([&] { readNpyFile(path("shape.npy")); }, "shape.npy", "cannot read the shape");
    expectError([&] { readNpyFile(path("missing.npy")); }, "missing.npy", "cannot be read");
  }

  // Found by fuzz_npy_file: the header was parsed with std::regex, which recursed once per
  // character and overflowed the stack (a crash) on a header of a few hundred kilobytes.
  void longHeadersAreReadOrRefusedWithoutCrashing() {
    const auto npy = [](std::string header) {
      header += std::string(63 - (12 + header.size()) % 64, ' ') + "\n";
      const uint32_t length = static_cast<uint32_t>(header.size());
      std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
      for (int i = 0; i < 4; ++i) bytes += static_cast<char>((length >> (8 * i)) & 0xff);
      return bytes + header;
    };
    testing::writeBytes(path("long_descr.npy"), npy("{'descr': '" + std::string(500000, 'x') +
                                                    "', 'fortran_order': False, 'shape': (1,), }"));
    expectError([&] { readNpyFile(path("long_descr.npy")); }, "long_descr.npy", "is not accepted");
    std::string dims;
    for (int i = 0; i < 200000; ++i) dims += "1, ";
    testing::writeBytes(path("long_shape.npy"),
                        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }") +
                            std::string(4, '\0'));
    expectError([&] { readNpyHeader(path("long_shape.npy")); }, "long_shape.npy",
                "has over 64 dimensions");
    testing::writeBytes(path("long_space.npy"),
                        npy("{'descr'" + std::string(800000, ' ') +
                            ": '<f4', 'fortran_order': False, 'shape': (2,), }") +
                            std::string(8, '\0'));
    QCOMPARE(readNpyFile(path("long_space.npy")).sizes().vec(), (std::vector<int64_t>{2}));
    testing::writeBytes(
        path("huge_dim.npy"),
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"));
    expectError([&] { readNpyFile(path("huge_dim.npy")); }, "huge_dim.npy",
                "has a dimension over 2^40");
  }

  void readsNpzArchives() {
    // np.savez stores the members, np.savez_compressed deflates them: both read as np.save's.
    const torch::Tensor f32 = readNpyFile(path("f32.npy"));
    const torch::Tensor labels = readNpyFile(path("labels.npy"));
    QVERIFY(torch::equal(readNpyFile(path("plain.npz") + ":x"), f32));
    QVERIFY(torch::equal(readNpyFile(path("plain.npz") + ":y"), labels));
    QVERIFY(torch::equal(readNpyFile(path("packed.npz") + ":x"), f32));
    QVERIFY(torch::equal(readNpyFile(path("packed.npz") + ":y.npy"), labels));
    QVERIFY(torch::equal(readNpyFile(path("positional.npz") + ":arr_1"), labels));
    const torch::Tensor large = readNpyFile(path("packed.npz") + ":large");  // several chunks
    QCOMPARE(large.sizes().vec(), (std::vector<int64_t>{300000, 4}));
    QVERIFY(std::abs(large.to(torch::kFloat64).sum().item<double>() - largeSum_) < 1e-6);
    QCOMPARE(readNpyHeader(path("packed.npz") + ":large").shape, (std::vector<int64_t>{300000, 4}));
    QCOMPARE(parseNpyLocation("/d/a.NPZ:x").file, std::string("/d/a.NPZ"));
    QCOMPARE(parseNpyLocation("/d/a.npz:x").member, std::string("x"));
    QCOMPARE(parseNpyLocation("/d/a.npy").member, std::string());
    NumpyClassificationData data(path("packed.npz") + ":x", path("packed.npz") + ":y", {});
    QCOMPARE(data.numClasses(), int64_t{3});
    QVERIFY(torch::equal(data.features().reshape({30, 6}), f32));
  }

  void refusesDamagedOrUnsupportedArchives() {
    expectError([&] { readNpyFile(path("plain.npz")); }, "plain.npz:NAME\" (it holds x, y)",
                "a zip archive (.npz), not a .npy file: name one of its arrays as");
    expectError([&] { readNpyFile(path("plain.npz") + ":z"); }, "plain.npz",
                "no array \"z\" in the archive (it holds x, y)");
    expectError([&] { readNpyFile(path("bzip2.npz") + ":x"); }, "bzip2.npz: member \"x.npy\"",
                "uses compression method 12");
    const std::string packed = testing::readBytes(path("packed.npz"));
    testing::writeBytes(path("cut.npz"), packed.substr(0, packed.size() - 100));
    expectError([&] { readNpyFile(path("cut.npz") + ":x"); }, "cut.npz",
                "no end-of-archive record: not a zip archive, or cut off");
    testing::writeBytes(path("half.npz"), packed.substr(0, packed.size() / 2));
    expectError([&] { readNpyHeader(path("half.npz") + ":x"); }, "half.npz",
                "no end-of-archive record");
    // A flipped bit in the data of a stored member, and in a deflated member.
    std::string plain = testing::readBytes(path("plain.npz"));
    plain[plain.find("\x93NUMPY") + 200] ^= 0x10;
    testing::writeBytes(path("flipped.npz"), plain);
    expectError([&] { readNpyFile(path("flipped.npz") + ":x"); }, "flipped.npz: member \"x.npy\"",
                "CRC-32 mismatch (the archive is damaged)");
    std::string deflated = packed;
    deflated[deflated.find("x.npy") + 60] ^= 0x10;
    testing::writeBytes(path("deflated.npz"), deflated);
    expectError([&] { readNpyFile(path("deflated.npz") + ":x"); }, "deflated.npz: member \"x.npy\"",
                "damaged");
  }

  void classificationDataFromTwoArrays() {
    NumpyClassificationData data(path("u8.npy"), path("labels_u8.npy"),
                                 NumpyClassificationData::Options().limit(20));
    QCOMPARE(data.size().value(), int64_t{20});
    QCOMPARE(data.numClasses(), int64_t{3});
    QCOMPARE(data.sampleShape(), (std::vector<int64_t>{1, 4, 4}));
    QVERIFY(data.features().max().item<float>() <= 1.0f);  // uint8 scaled to [0, 1]
    data.resetState();
    auto pass = data.pass();
    Datapoint point;
    QVERIFY(pass.next(point));
    QCOMPARE(point[1].item<int64_t>(), int64_t{0});
    NumpyClassificationData vectors(path("f32.npy"), path("labels.npy"), {});
    QCOMPARE(vectors.sampleShape(), (std::vector<int64_t>{1, 1, 6}));
  }

  void classificationDataChecksTheLabels() {
    expectError([&] { NumpyClassificationData(path("f32.npy"), path("short_labels.npy"), {}); },
                "short_labels.npy", "has 30 samples but");
    expectError([&] { NumpyClassificationData(path("f32.npy"), path("negative.npy"), {}); },
                "negative.npy", "label 2 is -2 (labels must be >= 0)");
    expectError([&] { NumpyClassificationData(path("f32.npy"), path("float_labels.npy"), {}); },
                "float_labels.npy", "class labels must be integers");
    expectError([&] { NumpyClassificationData(path("labels.npy"), path("labels.npy"), {}); },
                "labels.npy", "expected [N, D], [N, H, W] or [N, C, H, W]");
  }

  void trainsFromAProject() {
    // A "numpy" source in a project: validated, built by its registered factory, trained.
    const nlohmann::json doc = {
        {"format", 1},
        {"name", "numpy"},
        {"model", {{"type", "mlp"}, {"hidden", {16}}}},
        {"data",
         {{"train",
           {{"type", "numpy"}, {"features", path("f32.npy")}, {"labels", path("labels.npy")}}},
          {"batch_size", 10}}},
        {"optimizer", {{"type", "sgd"}, {"learning_rate", 0.1}}},
        {"max_epoch", 3},
        {"callbacks", nlohmann::json::array()},
        {"trainer", {{"strategy", "simple"}}}};
    const Project project = projectFromJson(doc);
    BuiltRun run = buildRun(project, "");
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(run.trainer->globalStep(), int64_t{9});  // 30 samples / 10 per step x 3 epochs
    const auto costs = history->get("cost");
    QCOMPARE(int(costs.size()), 9);
    QVERIFY(std::isfinite(costs.back().value));
    // A missing key and a dtype the reader refuses, at validation and at build.
    nlohmann::json missing = doc;
    missing["data"]["train"].erase("labels");
    QCOMPARE(validateProjectJson(missing).at(0).toString(),
             std::string("$.data.train.labels: missing required key"));
    nlohmann::json wrong = doc;
    wrong["data"]["train"]["features"] = path("int32.npy");
    expectError([&] { buildRun(projectFromJson(wrong), ""); }, "int32.npy", "is not accepted");
    // Arrays of an archive; an archive without the array's name is refused at validation.
    nlohmann::json archive = doc;
    archive["data"]["train"]["features"] = path("packed.npz") + ":x";
    archive["data"]["train"]["labels"] = path("packed.npz") + ":y";
    QCOMPARE(buildRun(projectFromJson(archive), "").config.model->inputs().size(), size_t{2});
    archive["data"]["train"]["labels"] = path("packed.npz");
    QCOMPARE(validateProjectJson(archive).at(0).toString(),
             "$.data.train.labels: \"" + path("packed.npz") +
                 "\" is an archive: name one of its arrays as \"" + path("packed.npz") + ":NAME\"");
  }

 private:
  std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }

  QTemporaryDir dir_;
  double f32Sum_ = 0;
  double largeSum_ = 0;
};

}  // namespace test_Numpy

TB_TEST_MAIN(test_Numpy::TestNumpy)
#include "test_Numpy.moc"
