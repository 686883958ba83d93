// TensorBoardWriter through the real loop: the event file is read back here (TFRecord framing
// and the generated protobuf classes) and by tests/engine/monitors/read_events.py (its own
// CRC-32C, python protobuf, zlib for the PNGs), which is how TensorBoard reads it.

#include <QProcess>
#include <QtTest>

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/Crc32c.h"
#include "engine/monitors/Monitors.h"
#include "engine/monitors/PngEncoder.h"
#include "engine/monitors/TensorBoardWriter.h"
#include "tensorboard/event.pb.h"
#include "tests/support/Recorder.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_TensorBoardWriter {

using namespace tbench;
using tbench::testing::makeNoOpTrainer;

namespace {

/// A record whose framing is broken.
class RecordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

uint64_t loadLittleEndian(const std::string& bytes, size_t at, int size) {
  uint64_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

/// The payloads of every TFRecord in `path`. Throws RecordError naming the offset of a record
/// whose length or data CRC does not match, or that is cut short.
std::vector<std::string> readRecords(const std::string& path) {
  const std::string bytes = readFile(path);
  std::vector<std::string> records;
  size_t offset = 0;
  while (offset < bytes.size()) {
    if (bytes.size() - offset < 12) throw RecordError(str("truncated header at offset ", offset));
    const uint64_t length = loadLittleEndian(bytes, offset, 8);
    if (maskCrc32c(crc32c(bytes.data() + offset, 8)) != loadLittleEndian(bytes, offset + 8, 4)) {
      throw RecordError(str("length CRC mismatch at offset ", offset));
    }
    const size_t start = offset + 12;
    if (length > bytes.size() - start || bytes.size() - start - length < 4) {
      throw RecordError(str("truncated data at offset ", offset));
    }
    if (maskCrc32c(crc32c(bytes.data() + start, length)) !=
        loadLittleEndian(bytes, start + length, 4)) {
      throw RecordError(str("data CRC mismatch at offset ", offset));
    }
    records.push_back(bytes.substr(start, length));
    offset = start + length + 4;
  }
  return records;
}

std::vector<tensorboard::Event> readEvents(const std::string& path) {
  std::vector<tensorboard::Event> events;
  for (const auto& record : readRecords(path)) {
    events.emplace_back();
    if (!events.back().ParseFromString(record)) throw RecordError("a record is not an Event");
  }
  return events;
}

ImageData makeImage(int height, int width, int channels, int seed) {
  ImageData image{height, width, channels, {}};
  for (int i = 0; i < height * width * channels; ++i) {
    image.pixels.push_back(static_cast<uint8_t>((i * 37 + seed * 101) % 256));
  }
  return image;
}

/// What the source below puts, in order.
struct Put {
  std::string tag;
  int64_t step;
  double value = 0;                // scalars
  std::optional<ImageData> image;  // images
};

const std::vector<std::pair<std::string, ImageData>>& images() {
  static const std::vector<std::pair<std::string, ImageData>> all{
      {"sample", makeImage(4, 5, 3, 1)},    // RGB
      {"mask", makeImage(3, 7, 1, 2)},      // gray
      {"overlay", makeImage(2, 3, 4, 3)}};  // RGBA
  return all;
}

/// Puts "loss" = 10 / globalStep after every step, "val" = 1.5 * epoch + 0.1 (not a float) at
/// the end of every epoch, and the three images at the end of epoch 1.
CallbackPtr source() {
  return std::make_shared<CallbackFactory>(
      "source", CallbackFactory::Hooks{{},
                                       {},
                                       {},
                                       [](TrainerContext& c) {
                                         c.monitors().putScalar("loss", 10.0 / c.globalStep());
                                       },
                                       [](TrainerContext& c) {
                                         c.monitors().putScalar("val", c.epochNum() * 1.5 + 0.1);
                                         if (c.epochNum() == 1) {
                                           for (const auto& [tag, image] : images())
                                             c.monitors().putImage(tag, image);
                                         }
                                       },
                                       {}});
}

/// The values `source()` puts in 2 epochs of 3 steps.
std::vector<Put> expectedPuts() {
  std::vector<Put> puts;
  for (int64_t step = 1; step <= 6; ++step) {
    puts.push_back({"loss", step, 10.0 / step, std::nullopt});
    if (step % 3 == 0) {
      // The trainer reports its hyper-parameters (NoOpTrainer's learning rate) before
      // triggerEpoch, where the source puts "val".
      puts.push_back({"learning_rate", step, 0.1, std::nullopt});
      puts.push_back({"val", step, step / 3 * 1.5 + 0.1, std::nullopt});
    }
    if (step == 3) {
      for (const auto& [tag, image] : images()) puts.push_back({tag, step, 0, image});
    }
  }
  return puts;
}

/// Runs 2 epochs of 3 steps with `source()` and a TensorBoardWriter into `dir`; returns the
/// writer. `extra` callbacks run after the source.
std::shared_ptr<TensorBoardWriter> run(const std::string& dir, std::vector<CallbackPtr> extra = {},
                                       std::string writerDir = "") {
  auto trainer = makeNoOpTrainer();
  trainer->setRunDir(dir);
  auto writer = std::make_shared<TensorBoardWriter>(std::move(writerDir));
  trainer->setMonitors(std::make_shared<Monitors>(std::vector<TrainingMonitorPtr>{writer}));
  trainer->registerCallback(source());
  for (auto& c : extra) trainer->registerCallback(std::move(c));
  trainer->train({3, 1, 2, std::nullopt});
  return writer;
}

std::vector<std::string> eventFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find("tfevents") != std::string::npos) {
      files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

struct ReaderOutput {
  int exitCode = -1;
  std::vector<nlohmann::json> lines;
  QString errors;
};

/// Runs read_events.py on `file`.
ReaderOutput runPythonReader(const std::string& file) {
  QProcess process;
  process.start("/usr/bin/python3",
                {QStringLiteral(TB_SOURCE_DIR "/tests/engine/monitors/read_events.py"),
                 QString::fromStdString(file)});
  ReaderOutput output;
  if (!process.waitForFinished(120000)) {
    output.errors = "read_events.py did not finish: " + process.errorString();
    return output;
  }
  output.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  output.errors = QString::fromUtf8(process.readAllStandardError());
  for (const QByteArray& line : process.readAllStandardOutput().split('\n')) {
    if (!line.trimmed().isEmpty())
      output.lines.push_back(nlohmann::json::parse(line.toStdString()));
  }
  return output;
}

void collectLine(LogLevel level, const std::string& line, void* user) {
  if (level == LogLevel::Error) static_cast<std::vector<std::string>*>(user)->push_back(line);
}

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

class TestTensorBoardWriter : public QObject {
  Q_OBJECT
 private slots:
  void crc32cMatchesKnownValues() {
    QCOMPARE(crc32c("123456789", 9), 0xE3069283u);
    QCOMPARE(crc32c("", 0), 0u);
    // Vectors of RFC 3720 (iSCSI), B.4.
    std::vector<uint8_t> bytes(32, 0);
    QCOMPARE(crc32c(bytes.data(), bytes.size()), 0x8A9136AAu);
    std::fill(bytes.begin(), bytes.end(), 0xFF);
    QCOMPARE(crc32c(bytes.data(), bytes.size()), 0x62A8AB43u);
    for (int i = 0; i < 32; ++i) bytes[i] = static_cast<uint8_t>(i);
    QCOMPARE(crc32c(bytes.data(), bytes.size()), 0x46DD794Eu);
    // Continuing from the CRC of a prefix gives the CRC of the whole.
    QCOMPARE(crc32c("56789", 5, crc32c("1234", 4)), 0xE3069283u);
    QCOMPARE(unmaskCrc32c(maskCrc32c(0xE3069283u)), 0xE3069283u);
    QVERIFY(maskCrc32c(0xE3069283u) != 0xE3069283u);
  }

  void eventFileReadsBackWithEveryValue() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    const double before = now();
    // Records on disk, seen by a callback during training: only the header before the first
    // epoch ends (no flush per scalar), the whole of epoch 1 at the start of epoch 2.
    std::vector<size_t> onDisk;
    auto probe = std::make_shared<CallbackFactory>(
        "probe",
        CallbackFactory::Hooks{{},
                               {},
                               [&](TrainerContext& c) {
                                 if (c.epochNum() == 2) {
                                   onDisk.push_back(readRecords(eventFiles(path)[0]).size());
                                 }
                               },
                               [&](TrainerContext& c) {
                                 if (c.globalStep() == 2) {
                                   onDisk.push_back(readRecords(eventFiles(path)[0]).size());
                                 }
                               },
                               {},
                               {}});
    const auto writer = run(path, {probe});
    const double after = now();
    QCOMPARE(onDisk, (std::vector<size_t>{1, 9}));

    const auto files = eventFiles(path);
    QCOMPARE(files.size(), size_t{1});
    QCOMPARE(writer->path(), files[0]);
    const std::string name = std::filesystem::path(files[0]).filename().string();
    const std::string prefix = "events.out.tfevents.";
    QVERIFY2(name.rfind(prefix, 0) == 0, name.c_str());
    const long long stamp = std::stoll(name.substr(prefix.size(), 10));
    QVERIFY2(stamp >= static_cast<long long>(before) - 1 && stamp <= after + 1, name.c_str());
    QCOMPARE(name.substr(prefix.size() + 10), "." + hostname());

    const auto events = readEvents(files[0]);
    const auto puts = expectedPuts();
    QCOMPARE(events.size(), puts.size() + 1);
    QCOMPARE(events[0].what_case(), tensorboard::Event::kFileVersion);
    QCOMPARE(events[0].file_version(), std::string("brain.Event:2"));
    QCOMPARE(events[0].step(), int64_t{0});
    double lastTime = 0;
    for (size_t i = 0; i < puts.size(); ++i) {
      const auto& event = events[i + 1];
      const auto& put = puts[i];
      const std::string where = str("event ", i + 1, " (", put.tag, ")");
      QVERIFY2(event.has_summary(), where.c_str());
      QCOMPARE(event.step(), put.step);
      QVERIFY2(event.wall_time() >= before && event.wall_time() <= after, where.c_str());
      QVERIFY2(event.wall_time() >= lastTime, where.c_str());
      lastTime = event.wall_time();
      QCOMPARE(event.summary().value_size(), 1);
      const auto& value = event.summary().value(0);
      QCOMPARE(value.tag(), put.tag);
      if (!put.image) {
        QCOMPARE(value.value_case(), tensorboard::Summary::Value::kSimpleValue);
        QVERIFY2(value.simple_value() == static_cast<float>(put.value), where.c_str());
      } else {
        QCOMPARE(value.value_case(), tensorboard::Summary::Value::kImage);
        QCOMPARE(value.image().height(), put.image->height);
        QCOMPARE(value.image().width(), put.image->width);
        QCOMPARE(value.image().colorspace(), put.image->channels);
        QCOMPARE(value.image().encoded_image_string(), encodePng(*put.image));
      }
    }
  }

  void pythonReaderSeesTheSameValuesAndPixels() {
    QTemporaryDir dir;
    const std::string file = run(dir.path().toStdString())->path();
    const ReaderOutput output = runPythonReader(file);
    QVERIFY2(output.exitCode == 0, qPrintable(output.errors));
    const auto puts = expectedPuts();
    QCOMPARE(output.lines.size(), puts.size() + 1);
    QCOMPARE(output.lines[0]["file_version"].get<std::string>(), std::string("brain.Event:2"));
    for (size_t i = 0; i < puts.size(); ++i) {
      const auto& line = output.lines[i + 1];
      const auto& put = puts[i];
      QCOMPARE(line["tag"].get<std::string>(), put.tag);
      QCOMPARE(line["step"].get<int64_t>(), put.step);
      if (!put.image) {
        // Exactly the float TensorBoard stores (QCOMPARE on doubles would be fuzzy).
        QVERIFY2(line["value"].get<double>() == static_cast<float>(put.value), line.dump().c_str());
        continue;
      }
      const auto& image = line["image"];
      QCOMPARE(image["colorspace"].get<int>(), put.image->channels);
      const auto& png = image["png"];
      QCOMPARE(png["height"].get<int>(), put.image->height);
      QCOMPARE(png["width"].get<int>(), put.image->width);
      QCOMPARE(png["channels"].get<int>(), put.image->channels);
      QCOMPARE(png["pixels"].get<std::vector<uint8_t>>(), put.image->pixels);
    }
  }

  void corruptRecordsAreReported() {
    QTemporaryDir dir;
    const std::string file = run(dir.path().toStdString())->path();
    const std::string good = readFile(file);
    const size_t second = 12 + readRecords(file)[0].size() + 4;  // the first scalar's record
    struct Case {
      size_t byte;
      std::string message;
    };
    for (const Case& c : {Case{second + 12 + 3, "data CRC mismatch at offset "},
                          Case{second + 1, "length CRC mismatch at offset "}}) {
      std::string bad = good;
      bad[c.byte] = static_cast<char>(bad[c.byte] ^ 0x10);
      const std::string badFile = dir.path().toStdString() + "/corrupt.bin";
      std::ofstream(badFile, std::ios::binary) << bad;
      const std::string expected = c.message + std::to_string(second);
      try {
        readRecords(badFile);
        QFAIL(("expected a RecordError: " + expected).c_str());
      } catch (const RecordError& e) {
        QCOMPARE(std::string(e.what()), expected);
      }
      const ReaderOutput output = runPythonReader(badFile);
      QCOMPARE(output.exitCode, 1);
      QVERIFY2(output.errors.contains(QString::fromStdString(expected)), qPrintable(output.errors));
    }
  }

  void aSecondRunNeverOverwritesAnEventFile() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    // Files with the names the next few seconds would get: the writer must add a suffix.
    const long long start = std::time(nullptr);
    std::vector<std::string> taken;
    for (long long t = start; t < start + 10; ++t) {
      char name[64];
      std::snprintf(name, sizeof(name), "/events.out.tfevents.%010lld.", t);
      taken.push_back(path + name + hostname());
      std::ofstream(taken.back()) << "keep";
    }
    const std::string first = run(path)->path();
    const std::string second = run(path)->path();
    QVERIFY2(first != second, first.c_str());
    for (const auto& file : {first, second}) {
      QVERIFY2(std::find(taken.begin(), taken.end(), file) == taken.end(), file.c_str());
      QCOMPARE(readEvents(file)[0].file_version(), std::string("brain.Event:2"));
      QCOMPARE(readEvents(file).size(), expectedPuts().size() + 1);
    }
    for (const auto& file : taken) QCOMPARE(readFile(file), std::string("keep"));
  }

  void anUnwritableDirectoryIsLoggedOnceTrainingGoesOnAndTheRunFails() {
    QTemporaryDir dir;
    const std::string blocker = dir.path().toStdString() + "/blocker";
    std::ofstream(blocker) << "not a directory";
    const std::string eventsDir = blocker + "/tensorboard";
    std::vector<std::string> errors;
    logging::setExtraSink(collectLine, &errors);
    int epochsDone = 0;
    auto counter = CallbackFactory::everyTrigger("counter", [&](TrainerContext&) { ++epochsDone; });
    std::string said;
    try {
      run(dir.path().toStdString(), {counter}, eventsDir);
    } catch (const std::runtime_error& e) {
      said = e.what();  // Note [Records that cannot be written]: the run ends failed
    } catch (...) {
      logging::setExtraSink(nullptr, nullptr);
      throw;
    }
    logging::setExtraSink(nullptr, nullptr);
    QCOMPARE(epochsDone, 2);
    QVERIFY2(said.find(eventsDir + "/events.out.tfevents.") != std::string::npos &&
                 said.find("lacks the TensorBoard events from global step 1 on: cannot create: "
                           "Not a directory") != std::string::npos,
             said.c_str());
    // Logged once when it happened (afterTrain's own line, "afterTrain of ... failed", is the
    // loop's report of the end).
    errors.erase(std::remove_if(errors.begin(), errors.end(),
                                [](const std::string& line) {
                                  return line.find("afterTrain of") != std::string::npos;
                                }),
                 errors.end());
    QCOMPARE(errors.size(), size_t{1});
    QVERIFY2(errors[0].find(eventsDir + "/events.out.tfevents.") != std::string::npos,
             errors[0].c_str());
  }

  void needsADirectory() {
    auto trainer = makeNoOpTrainer();
    trainer->setMonitors(std::make_shared<Monitors>(
        std::vector<TrainingMonitorPtr>{std::make_shared<TensorBoardWriter>()}));
    QVERIFY_THROWS_EXCEPTION(CheckError, trainer->train({1, 1, 1, std::nullopt}));
  }

  void pngEncoderRejectsMalformedImages() {
    ImageData image = makeImage(2, 2, 3, 0);
    QCOMPARE(encodePng(image).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    image.pixels.pop_back();
    QVERIFY_THROWS_EXCEPTION(CheckError, encodePng(image));
    QVERIFY_THROWS_EXCEPTION(CheckError, encodePng(makeImage(2, 2, 2, 0)));
    QVERIFY_THROWS_EXCEPTION(CheckError, encodePng(ImageData{0, 4, 1, {}}));
  }
};

}  // namespace test_TensorBoardWriter

TB_TEST_GUILESS_MAIN(test_TensorBoardWriter::TestTensorBoardWriter)
#include "test_TensorBoardWriter.moc"
