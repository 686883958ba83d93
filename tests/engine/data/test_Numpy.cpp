// .npy reading (NpyFile) and NumpyClassificationData on files written by NumPy itself
// (/usr/bin/python3), their corrupted copies, and dtypes the reader refuses by name.

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "engine/core/Check.h"
#include "engine/data/NpyFile.h"
#include "engine/data/NumpyData.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/TrainConfig.h"

using namespace tbench;

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
print(repr(float(f32.astype(np.float64).sum())))
)";

}  // namespace

class TestNumpy : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QProcess python;
    python.start("/usr/bin/python3", {"-c", kPython, dir_.path()});
    QVERIFY(python.waitForFinished(60000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    f32Sum_ = python.readAllStandardOutput().trimmed().toDouble();
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
    const std::string original = readAll(path("f32.npy"));
    writeFile("truncated.npy", original.substr(0, original.size() - 5));
    expectError([&] { readNpyFile(path("truncated.npy")); }, "truncated.npy",
                "truncated: the shape needs 720 bytes of data from byte 128, the file has 715");
    writeFile("trailing.npy", original + "xyz");
    expectError([&] { readNpyFile(path("trailing.npy")); }, "trailing.npy",
                "3 bytes after the data, which ends at byte 848");
    writeFile("magic.npy", "PK" + original.substr(2));
    expectError([&] { readNpyFile(path("magic.npy")); }, "magic.npy", "not a .npy file");
    std::string badShape = original;
    badShape.replace(badShape.find("(30, 6)"), 7, "(30, x)");
    writeFile("shape.npy", badShape);
    expectError([&] { readNpyFile(path("shape.npy")); }, "shape.npy", "cannot read the shape");
    expectError([&] { readNpyFile(path("missing.npy")); }, "missing.npy", "cannot be read");
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
  }

 private:
  std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }
  static std::string readAll(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void writeFile(const QString& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  template <typename F>
  static void expectError(F&& f, const QString& file, const QString& expected) {
    try {
      f();
      QFAIL(qPrintable("no error for " + file));
    } catch (const InputError& e) {
      const QString message = QString::fromStdString(e.what());
      QVERIFY2(message.contains(file) && message.contains(expected), qPrintable(message));
    }
  }

  QTemporaryDir dir_;
  double f32Sum_ = 0;
};

QTEST_MAIN(TestNumpy)
#include "test_Numpy.moc"
