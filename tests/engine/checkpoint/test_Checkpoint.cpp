// Checkpoint files: exact resume (model + optimizer + RNG), damaged and foreign files, the
// restore report, session init, and what Python's torch.load sees of checkpoints and exports.

#include <QCryptographicHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/serialize.h>
#include <torch/torch.h>

#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/CheckpointIndex.h"
#include "engine/checkpoint/Safetensors.h"
#include "engine/checkpoint/SessionInit.h"
#include "engine/checkpoint/WeightsExport.h"
#include "engine/checkpoint/WeightsFile.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/TorchCompat.h"
#include "engine/models/Mlp.h"
#include "tests/engine/checkpoint/CheckpointTestData.h"
#include "tests/support/ExpectError.h"

using namespace tbench;
using namespace tbench::testdata;

namespace {

std::shared_ptr<Mlp> makeMlp(uint64_t seed, int64_t hidden = 16) {
  torch::manual_seed(seed);
  MlpOptions o;
  o.image = ImageShape{1, 8, 8};
  o.numClasses = 4;
  o.hidden = {hidden};
  return std::make_shared<Mlp>(o);
}

std::vector<std::pair<torch::Tensor, torch::Tensor>> fixedBatches(int n) {
  torch::manual_seed(7);
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches;
  for (int i = 0; i < n; ++i) {
    batches.emplace_back(torch::randn({16, 1, 8, 8}), torch::randint(0, 4, {16}, torch::kInt64));
  }
  return batches;
}

void step(Mlp& net, torch::optim::Optimizer& opt,
          const std::pair<torch::Tensor, torch::Tensor>& batch) {
  opt.zero_grad();
  torch::nn::functional::cross_entropy(net.forward(batch.first), batch.second).backward();
  opt.step();
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string writeBytes(const std::string& path, const std::vector<char>& bytes) {
  writeBytes(path, std::string(bytes.begin(), bytes.end()));
  return path;
}

/// Asserts that reading `path` throws an InputError whose message names the path and contains
/// `expected`.
#define EXPECT_INPUT_ERROR(path, expected)                                             \
  do {                                                                                 \
    try {                                                                              \
      readCheckpointFile(path);                                                        \
      QFAIL(qPrintable(QString("no error for %1").arg(QString::fromStdString(path)))); \
    } catch (const InputError& e) {                                                    \
      const std::string message = e.what();                                            \
      QVERIFY2(message.find(path) != std::string::npos, e.what());                     \
      QVERIFY2(message.find(expected) != std::string::npos, e.what());                 \
    }                                                                                  \
  } while (false)

QByteArray sha256(const torch::Tensor& t) {
  const auto c = t.contiguous();
  return QCryptographicHash::hash(
             QByteArrayView(static_cast<const char*>(c.data_ptr()),
                            static_cast<qsizetype>(c.numel() * c.element_size())),
             QCryptographicHash::Sha256)
      .toHex();
}

}  // namespace

class TestCheckpoint : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }
  // Written in initTestCase: an Mlp after 3 Adam steps and its exports.
  TrainingState saved_;
  std::vector<std::string> pythonLines_;
  QString pythonError_;

  std::vector<std::string> linesStartingWith(const std::string& tag) const {
    std::vector<std::string> out;
    for (const auto& line : pythonLines_) {
      if (line.rfind(tag + " ", 0) == 0) out.push_back(line.substr(tag.size() + 1));
    }
    return out;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    auto net = makeMlp(1);
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-2));
    const auto batches = fixedBatches(3);
    for (const auto& b : batches) step(*net, opt, b);
    TrainingState state = captureState(*net, &opt, 3, 1, "{\"name\": \"fashion \xc3\xa9\"}");
    state.epochStep = 3;
    state.hyperParams = {{"learning_rate", 0.25}};
    state.callbackStates = {{"StatMonitorParamSetter(learning_rate on e)", "{\"values\":[1.5]}"}};
    writeCheckpointFile(path("model-3.pt"), state);
    saved_ = readCheckpointFile(path("model-3.pt"));
    exportWeights(path("model-3.pt"), "pt", path("weights.pt"));
    exportWeights(path("model-3.pt"), "safetensors", path("weights.safetensors"));
    writeCheckpointFile(path("dtypes.pt"), allDtypesState());
    exportWeights(path("dtypes.pt"), "safetensors", path("dtypes.safetensors"));

    QProcess python;
    python.start("/usr/bin/python3", {"-c", kPythonScript, dir_.path()});
    QVERIFY(python.waitForFinished(60000));
    pythonError_ = QString::fromUtf8(python.readAllStandardError());
    for (const auto& line : QString::fromUtf8(python.readAllStandardOutput()).split('\n')) {
      if (!line.isEmpty()) pythonLines_.push_back(line.toStdString());
    }
    QVERIFY2(python.exitCode() == 0, qPrintable(pythonError_));
  }

  void countersHyperParamsAndCallbackStatesRoundTrip() {
    QCOMPARE(saved_.epochStep, int64_t{3});
    QCOMPARE(saved_.hyperParams, (std::map<std::string, double>{{"learning_rate", 0.25}}));
    QCOMPARE(saved_.callbackStates.size(), size_t{1});
    QCOMPARE(saved_.callbackStates.begin()->second, std::string("{\"values\":[1.5]}"));
  }

  void readsCheckpointsWrittenBeforePlainPickles() {
    // Files written by earlier versions: torch::pickle_save (type-tagged dicts), without
    // epoch_step, hyper_params and callbacks.
    auto net = makeMlp(1);
    c10::Dict<std::string, torch::Tensor> model;
    for (const auto& item : net->named_parameters()) model.insert(item.key(), item.value());
    c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
    dict.insert("format", std::string(kCheckpointFormat));
    dict.insert("model", model);
    dict.insert("optimizer", torch::empty({0}, torch::kUInt8));
    dict.insert("optimizer_type", std::string("adam"));
    dict.insert("global_step", int64_t{12});
    dict.insert("epoch_num", int64_t{2});
    dict.insert("rng_state", torch::empty({0}, torch::kUInt8));
    dict.insert("project", std::string());
    const std::vector<char> bytes = torch::pickle_save(dict);
    {
      std::ofstream out(path("legacy.pt"), std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const TrainingState legacy = readCheckpointFile(path("legacy.pt"));
    QCOMPARE(legacy.globalStep, int64_t{12});
    QCOMPARE(legacy.epochStep, int64_t{-1});  // unknown: resume derives it
    QVERIFY(legacy.hyperParams.empty());
    QCOMPARE(legacy.model.size(), net->named_parameters().size());
  }

  void roundTripResumesExactlyWithOptimizerState() {
    const auto batches = fixedBatches(4);
    auto net = makeMlp(1);
    torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(1e-2));
    for (int i = 0; i < 3; ++i) step(*net, opt, batches[i]);
    writeCheckpointFile(path("resume.pt"), captureState(*net, &opt, 3, 2, "project text"));

    const TrainingState state = readCheckpointFile(path("resume.pt"));
    QCOMPARE(state.globalStep, int64_t{3});
    QCOMPARE(state.epochNum, int64_t{2});
    QCOMPARE(state.project, std::string("project text"));
    QCOMPARE(state.optimizerType, std::string("adam"));
    QCOMPARE(state.path, path("resume.pt"));
    QCOMPARE(state.model.size(), net->named_parameters().size());

    // A differently initialised model and a fresh optimizer, restored from the file.
    auto restored = makeMlp(99);
    torch::optim::Adam restoredOpt(restored->parameters(), torch::optim::AdamOptions(1e-2));
    const RestoreReport report = restoreModel(*restored, state);
    QCOMPARE(report.loaded.size(), state.model.size());
    QVERIFY(report.missing.empty() && report.unexpected.empty() && report.shapeMismatch.empty());
    restoreOptimizer(restoredOpt, state);
    // The control: the same weights but the optimizer starts afresh.
    auto weightsOnly = makeMlp(99);
    torch::optim::Adam freshOpt(weightsOnly->parameters(), torch::optim::AdamOptions(1e-2));
    restoreModel(*weightsOnly, state);

    step(*net, opt, batches[3]);
    step(*restored, restoredOpt, batches[3]);
    step(*weightsOnly, freshOpt, batches[3]);
    auto reference = net->named_parameters();
    auto mine = restored->named_parameters();
    auto control = weightsOnly->named_parameters();
    bool controlDiffers = false;
    for (const auto& item : reference) {
      QVERIFY2(torch::equal(mine[item.key()], item.value()), item.key().c_str());
      controlDiffers |= !torch::equal(control[item.key()], item.value());
    }
    QVERIFY2(controlDiffers, "the optimizer state made no difference: the test proves nothing");
  }

  void rngStateRoundTrip() {
    auto net = makeMlp(5);
    torch::manual_seed(1234);
    torch::randn({7});
    writeCheckpointFile(path("rng.pt"), captureState(*net, nullptr, 0, 0, ""));
    const auto expected = torch::randn({100});
    torch::manual_seed(1);  // move the generator elsewhere
    const TrainingState state = readCheckpointFile(path("rng.pt"));
    QCOMPARE(state.rngState.numel(), int64_t{5056});  // torch.get_rng_state()'s layout
    QCOMPARE(state.optimizer.numel(), int64_t{0});
    QVERIFY(!torch::equal(torch::randn({100}), expected));
    restoreRngState(state);
    QVERIFY(torch::equal(torch::randn({100}), expected));

    TrainingState bad = state;
    bad.rngState = torch::zeros({10}, torch::kUInt8);
    QVERIFY_THROWS_EXCEPTION(InputError, restoreRngState(bad));
  }

  void cudaRngStatesRoundTrip() {
    // Issue 25 (F5): the CUDA generators' states travel in "cuda_rng_states" (on a GPU they
    // are restored: test_Resume::resumedGpuRunMatchesTheUninterruptedOne).
    auto net = makeMlp(5);
    TrainingState state = captureState(*net, nullptr, 0, 0, "");
    if (!torch::cuda::is_available()) QVERIFY(state.cudaRngStates.empty());
    const auto seedAndOffset = torch::zeros({16}, torch::kUInt8);  // the CUDA layout
    state.cudaRngStates = {{"cuda:0", seedAndOffset}, {"cuda:7", seedAndOffset + 1}};
    writeCheckpointFile(path("cuda-rng.pt"), state);
    const TrainingState read = readCheckpointFile(path("cuda-rng.pt"));
    QCOMPARE(read.cudaRngStates.size(), size_t{2});
    QVERIFY(torch::equal(read.cudaRngStates.at("cuda:0"), seedAndOffset));
    QVERIFY(torch::equal(read.cudaRngStates.at("cuda:7"), seedAndOffset + 1));
    // A device this machine lacks (cuda:7 here; every one without CUDA) is skipped with a
    // warning, and the CPU generator is still restored.
    restoreRngState(read);
    const auto first = torch::randn({4});
    torch::manual_seed(99);
    restoreRngState(read);
    QVERIFY(torch::equal(torch::randn({4}), first));

    // A key that names no CUDA device is refused, naming the file.
    c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
    c10::Dict<std::string, torch::Tensor> model;
    for (const auto& item : net->named_parameters()) model.insert(item.key(), item.value());
    c10::Dict<std::string, torch::Tensor> cuda;
    cuda.insert("gpu0", seedAndOffset);
    dict.insert("format", std::string(kCheckpointFormat));
    dict.insert("model", model);
    dict.insert("optimizer", torch::empty({0}, torch::kUInt8));
    dict.insert("optimizer_type", std::string("adam"));
    dict.insert("global_step", int64_t{1});
    dict.insert("epoch_num", int64_t{1});
    dict.insert("rng_state", torch::empty({0}, torch::kUInt8));
    dict.insert("project", std::string());
    dict.insert("cuda_rng_states", cuda);
    const std::vector<char> bytes = torch::pickle_save(dict);
    {
      std::ofstream out(path("bad-cuda-rng.pt"), std::ios::binary);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    try {
      readCheckpointFile(path("bad-cuda-rng.pt"));
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("bad-cuda-rng.pt") != std::string::npos, e.what());
      QVERIFY2(what.find("cuda_rng_states") != std::string::npos, e.what());
    }
  }

  void damagedFilesGiveInputErrorNamingTheFile() {
    const std::string good = readFile(path("model-3.pt"));
    const std::string p = path("damaged.pt");

    EXPECT_INPUT_ERROR(path("does-not-exist.pt"), "cannot open");
    writeBytes(p, std::string());
    EXPECT_INPUT_ERROR(p, "empty");

    // Truncated at many offsets: the first bytes, evenly spread offsets, the last bytes.
    std::vector<size_t> cuts;
    for (size_t i = 1; i < 64; ++i) cuts.push_back(i);
    for (size_t i = 1; i < 100; ++i) cuts.push_back(good.size() * i / 100);
    for (size_t i = 1; i < 64; ++i) cuts.push_back(good.size() - i);
    for (size_t cut : cuts) {
      writeBytes(p, good.substr(0, cut));
      EXPECT_INPUT_ERROR(p, cut < 4 ? "not a Towerbench checkpoint" : "checkpoint");
    }

    std::mt19937 rng(5);
    std::string noise(4096, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    writeBytes(p, noise);
    EXPECT_INPUT_ERROR(p, "not a Towerbench checkpoint");
    writeBytes(p, "PK\x03\x04" + noise);  // a zip signature in front of garbage
    EXPECT_INPUT_ERROR(p, "truncated or corrupt");
    writeBytes(p, std::string("{\"latest\": \"model-3.pt\", \"all\": []}\n"));
    EXPECT_INPUT_ERROR(p, "not a Towerbench checkpoint");

    // Note [Checkpoint integrity]: a flipped bit in tensor data, and a record flagged as a
    // directory (LibTorch then hands out uninitialised memory), are caught.
    {
      std::string bytes = good;
      const size_t data = 30 + static_cast<uint8_t>(bytes[26]) +
                          256 * static_cast<uint8_t>(bytes[27]) + static_cast<uint8_t>(bytes[28]) +
                          256 * static_cast<uint8_t>(bytes[29]);
      bytes[data + 5] ^= 0x01;
      writeBytes(p, bytes);
      EXPECT_INPUT_ERROR(p, "archive/data/0: CRC mismatch");
      bytes = good;
      // The first entry of the central directory, whose offset the end record holds (the
      // optimizer's archive inside the checkpoint has central directory signatures too).
      const size_t end = bytes.rfind("PK\x05\x06");
      size_t directory = 0;
      for (int i = 3; i >= 0; --i)
        directory = directory * 256 + static_cast<uint8_t>(bytes[end + 16 + i]);
      QCOMPARE(bytes.compare(directory, 4, "PK\x01\x02"), 0);
      bytes[directory + 38] |= 0x10;
      writeBytes(p, bytes);
      EXPECT_INPUT_ERROR(p, "flagged as a directory");
    }

    // Single corrupted bytes anywhere: either the file still loads (the byte was in a part
    // nothing checks) or it is an InputError; never a crash or another exception type.
    int rejected = 0;
    for (int i = 0; i < 300; ++i) {
      std::string bytes = good;
      bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
      writeBytes(p, bytes);
      try {
        readCheckpointFile(p);
      } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(p) != std::string::npos, e.what());
        ++rejected;
      }
    }
    QVERIFY(rejected > 0);
  }

  // Found by fuzz_checkpoint_file: LibTorch 1.13's reader leaks its zip state when it refuses
  // an archive while opening it (no version record, a version it does not read), and its
  // unpickler allocates what a length prefix claims; such archives, intact otherwise, are
  // refused before LibTorch sees them (Note [Checkpoint integrity]).
  void archivesLibTorchWouldRefuseAreRefusedFirst() {
    const char* script = R"(
import sys, zipfile
d = sys.argv[1]
src = zipfile.ZipFile(d + '/model-3.pt')
def rewrite(name, version, pickle=None, pickleName='archive/data.pkl'):
    with zipfile.ZipFile(d + '/' + name, 'w', zipfile.ZIP_STORED) as z:
        for i in src.infolist():
            if i.filename.endswith('/data.pkl') and pickle is not None:
                z.writestr(pickleName, pickle)
            elif not i.filename.endswith('/version'):
                z.writestr(i.filename, src.read(i))
            elif version is not None:
                z.writestr(i.filename, version)
rewrite('noversion.pt', None)
rewrite('version99.pt', '99\n')
rewrite('version3.pt', '3\n')
rewrite('longstring.pt', '3\n', b'\x80\x02}X\xff\xff\xff\x7fabc.')
rewrite('memoindex.pt', '3\n', b'\x80\x02}r\xff\xff\xff\xff.')
rewrite('tuple3.pt', '3\n', b'\x80\x02\x87.')
rewrite('binget.pt', '3\n', b'\x80\x02}q\x00h\x01.')
rewrite('upper.pt', '3\n', b'\x80\x02\x87.', 'archive/Data.PKL')
)";
    QProcess python;
    python.start("/usr/bin/python3", {"-c", script, dir_.path()});
    QVERIFY(python.waitForFinished(60000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    EXPECT_INPUT_ERROR(path("noversion.pt"), "the archive has no archive/version record");
    EXPECT_INPUT_ERROR(path("version99.pt"), "archive/version is \"99");
    QCOMPARE(readCheckpointFile(path("version3.pt")).globalStep, int64_t{3});
    // Note [Pickles LibTorch cannot take]: LibTorch's unpickler allocated 2 GB for this string,
    // reserved 2^33 memo entries, read before its stack for a TUPLE3 (a crash).
    EXPECT_INPUT_ERROR(path("longstring.pt"),
                       "archive/data.pkl: opcode 0x58 at byte 3 claims 2147483647 bytes, 4 follow");
    EXPECT_INPUT_ERROR(path("memoindex.pt"), "at byte 3 puts memo index 4294967295");
    EXPECT_INPUT_ERROR(path("tuple3.pt"), "opcode 0x87 at byte 2 takes 3 values, the stack has 0");
    EXPECT_INPUT_ERROR(path("binget.pt"), "gets memo index 1, which was never put");
    // LibTorch's zip reader finds a record by its name in any case.
    EXPECT_INPUT_ERROR(path("upper.pt"), "archive/Data.PKL: opcode 0x87 at byte 2");
  }

  void foreignPicklesAreNotCheckpoints() {
    auto dictWith = [](std::initializer_list<std::pair<const char*, c10::IValue>> entries) {
      c10::impl::GenericDict d(c10::StringType::get(), c10::AnyType::get());
      for (const auto& [k, v] : entries) d.insert(std::string(k), v);
      return torch::pickle_save(d);
    };
    const std::string p = path("foreign.pt");
    writeBytes(p, torch::pickle_save(torch::ones({2, 2})));
    EXPECT_INPUT_ERROR(p, "not a dict");
    writeBytes(p, dictWith({{"model", torch::ones({1})}}));
    EXPECT_INPUT_ERROR(p, "no \"format\" key");
    writeBytes(p, dictWith({{"format", std::string("something-else")}}));
    EXPECT_INPUT_ERROR(p, "format \"something-else\"");
    writeBytes(p,
               dictWith({{"format", std::string(kCheckpointFormat)}, {"global_step", int64_t{1}}}));
    EXPECT_INPUT_ERROR(p, "no \"model\" key");

    // A real checkpoint with one wrong type.
    c10::Dict<std::string, torch::Tensor> model;
    model.insert("w", torch::ones({2}));
    writeBytes(p, dictWith({{"format", std::string(kCheckpointFormat)},
                            {"model", model},
                            {"optimizer", torch::empty({0}, torch::kUInt8)},
                            {"optimizer_type", std::string()},
                            {"global_step", std::string("12")},
                            {"epoch_num", int64_t{1}},
                            {"rng_state", torch::empty({0}, torch::kUInt8)},
                            {"project", std::string()}}));
    EXPECT_INPUT_ERROR(p, "\"global_step\" is a String, expected an int");
  }

  void pythonWrittenFilesAreNotCheckpoints() {
    QVERIFY2(!linesStartingWith("DONE").empty() || !pythonLines_.empty(), qPrintable(pythonError_));
    EXPECT_INPUT_ERROR(path("tensor.pt"), "not a dict");
    EXPECT_INPUT_ERROR(path("nomodel.pt"), "no \"model\" key");
    // LibTorch cannot unpickle a one-entry dict from Python (opcode SETITEM).
    EXPECT_INPUT_ERROR(path("plaindict.pt"), "not a Towerbench checkpoint");
  }

  void restoreReportNamesEveryMismatch() {
    // Checkpoint: layers.0 is Linear(64, 16), layers.2 Linear(16, 4) (after the ReLU).
    auto source = makeMlp(1, 16);
    TrainingState state = captureState(*source, nullptr, 0, 0, "");
    state.model.emplace_back("extra.weight", torch::ones({3}));

    // Model: hidden 8, so every weight and bias but the last bias has another shape.
    auto target = makeMlp(2, 8);
    const auto before = target->named_parameters();
    std::map<std::string, torch::Tensor> untouched;
    for (const auto& item : before) untouched[item.key()] = item.value().clone();
    RestoreReport report = restoreModel(*target, state, {"layers.0.bias"});
    const std::string text = report.toString();
    QCOMPARE(report.ignored, std::vector<std::string>{"layers.0.bias"});
    QCOMPARE(report.unexpected, std::vector<std::string>{"extra.weight"});
    QCOMPARE(report.loaded.size(), size_t{1});  // the last bias, [4] in both
    QCOMPARE(report.shapeMismatch.size(), size_t{2});
    QVERIFY2(
        text.find("layers.0.weight: checkpoint [16, 64] vs model [8, 64]") != std::string::npos,
        text.c_str());
    QVERIFY2(text.find("extra.weight") != std::string::npos, text.c_str());
    QVERIFY2(
        text.find("restored 1 tensors, 0 missing, 1 unexpected, 2 of another shape, 1 ignored") !=
            std::string::npos,
        text.c_str());
    auto after = target->named_parameters();
    QVERIFY(torch::equal(after[report.loaded[0]], source->named_parameters()[report.loaded[0]]));
    QVERIFY(torch::equal(after["layers.0.bias"], untouched["layers.0.bias"]));
    QVERIFY(torch::equal(after["layers.0.weight"], untouched["layers.0.weight"]));

    // A prefix ignores a whole submodule; a model with more layers reports the missing ones.
    auto deeper = std::make_shared<Mlp>(MlpOptions{ImageShape{1, 8, 8}, 4, {16, 16}, 0.0});
    report = restoreModel(*deeper, state, {"layers.2."});
    QCOMPARE(report.ignored, (std::vector<std::string>{"layers.2.weight", "layers.2.bias"}));
    QCOMPARE(report.loaded, (std::vector<std::string>{"layers.0.weight", "layers.0.bias"}));
    QCOMPARE(report.missing, (std::vector<std::string>{"layers.4.weight", "layers.4.bias"}));
  }

  void restoreOptimizerRejectsAStateThatDoesNotFit() {
    const auto batches = fixedBatches(1);
    auto net = makeMlp(1);
    torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-2));
    step(*net, adam, batches[0]);
    const TrainingState state = captureState(*net, &adam, 1, 1, "");

    torch::optim::SGD sgd(net->parameters(), torch::optim::SGDOptions(0.1));
    try {
      restoreOptimizer(sgd, state);
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("\"adam\"") != std::string::npos, e.what());
    }

    // Same class and parameter count, other shapes: rejected, and the previous state stays.
    auto other = makeMlp(2, 8);
    torch::optim::Adam otherAdam(other->parameters(), torch::optim::AdamOptions(1e-2));
    step(*other, otherAdam, batches[0]);
    QVERIFY_THROWS_EXCEPTION(InputError, restoreOptimizer(otherAdam, state));
    for (const auto& p : other->parameters()) {
      auto& s = static_cast<torch::optim::AdamParamState&>(
          *otherAdam.state().at(compat::optimizerStateKey(p)));
      QCOMPARE(s.step(), int64_t{1});
      QCOMPARE(s.exp_avg().sizes(), p.sizes());
    }
    step(*other, otherAdam, batches[0]);  // still usable

    // No optimizer state in the checkpoint: a warning, nothing changes.
    const TrainingState noOptimizer = captureState(*net, nullptr, 1, 1, "");
    restoreOptimizer(adam, noOptimizer);
  }

  void initFromCheckpointLoadsAndNamesTheFile() {
    auto target = makeMlp(8);
    const RestoreReport report = initFromCheckpoint(*target, path("model-3.pt"), {"layers.2."});
    QCOMPARE(report.loaded.size(), size_t{2});
    QCOMPARE(report.ignored.size(), size_t{2});
    QVERIFY(torch::equal(target->named_parameters()["layers.0.weight"], saved_.model[0].second));

    for (const std::string& bad : {path("nothing-here.pt"), path("kept-for-nothing.json")}) {
      try {
        initFromCheckpoint(*target, bad, {});
        QFAIL("expected an InputError");
      } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(bad) != std::string::npos, e.what());
      }
    }
    auto unrelated = makeMlp(8, 5);
    try {
      initFromCheckpoint(*unrelated, path("model-3.pt"), {"layers.2.bias"});
      QFAIL("expected an InputError: no tensor fits");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("model-3.pt") != std::string::npos, e.what());
    }
  }

  // Issue 37: Towerbench's own exports start a run (they had been refused as "not a
  // Towerbench checkpoint"), and so does a run directory (its latest checkpoint).
  void initTakesTowerbenchsExportsAndRunDirectories() {
    writeBytes(path("kept-for-nothing.json"), std::string("{}"));
    for (const std::string& file : {path("weights.pt"), path("weights.safetensors")}) {
      auto target = makeMlp(8);
      const RestoreReport report = initFromCheckpoint(*target, file);
      QCOMPARE(report.loaded.size(), saved_.model.size());
      for (const auto& [name, tensor] : saved_.model) {
        QVERIFY2(torch::equal(target->named_parameters()[name], tensor), name.c_str());
      }
    }
    const NamedWeights pt = readWeightsFile(path("weights.pt"));
    QCOMPARE(pt.source, std::string("PyTorch state_dict"));
    QVERIFY(readWeightsFile(path("model-3.pt")).source.find("global step 3") != std::string::npos);
    QTemporaryDir run;
    writeCheckpointFile(run.filePath("model-3.pt").toStdString(), saved_);
    CheckpointIndex index;
    index.latest = "model-3.pt";
    index.all = {"model-3.pt"};
    index.write(run.path().toStdString());
    const NamedWeights latest = readWeightsFile(run.path().toStdString());
    QVERIFY2(latest.source.find("the latest of run") != std::string::npos, latest.source.c_str());
    QCOMPARE(latest.tensors.size(), saved_.model.size());
    QTemporaryDir empty;
    testing::expectError([&] { readWeightsFile(empty.path().toStdString()); }, empty.path(),
                         "without a checkpoint");
  }

  // The reader of safetensors (engine/checkpoint/Safetensors.h) on damaged copies of a real
  // file: every truncation and thousands of byte changes either read or say why, naming the
  // file; none reads outside it (run under ASan in the fuzz preset).
  void safetensorsReaderRefusesDamagedFiles() {
    const std::vector<char> good = readFileBytes(path("dtypes.safetensors"));
    const NamedTensorList all = readSafetensors(good.data(), good.size(), "good");
    QCOMPARE(all.size(), allDtypesState().model.size());
    const auto refused = [&](std::vector<char> bytes, const char* expected) {
      try {
        readSafetensors(bytes.data(), bytes.size(), "damaged.safetensors");
      } catch (const InputError& e) {
        const QString message = e.what();
        return message.contains("damaged.safetensors") &&
               (expected == nullptr || message.contains(expected));
      }
      return expected == nullptr;  // read: fine for a change that keeps the file valid
    };
    for (size_t size = 0; size < good.size(); size += std::max<size_t>(1, good.size() / 97)) {
      QVERIFY2(refused(std::vector<char>(good.begin(), good.begin() + size), nullptr),
               qPrintable(QString("truncated to %1").arg(size)));
    }
    std::mt19937 random(5);
    for (int i = 0; i < 3000; ++i) {
      std::vector<char> bytes = good;
      const size_t at = random() % std::min<size_t>(bytes.size(), 8 + 600);
      bytes[at] = static_cast<char>(random());
      QVERIFY(refused(bytes, nullptr));
    }
    std::vector<char> longHeader = good;
    longHeader[5] = 1;  // a header length of terabytes
    QVERIFY(refused(longHeader, "the header says"));
    // Two tensors over the same bytes.
    const std::string json = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
    std::string overlap(8, '\0');
    overlap[0] = static_cast<char>(json.size());
    overlap += json + std::string(12, '\0');
    QVERIFY(refused(std::vector<char>(overlap.begin(), overlap.end()), "overlap"));
  }

  // init's names (engine/checkpoint/SessionInit.h): exactly, then without a wrapper's prefix,
  // then by a dotted suffix naming one tensor, after init.rename's rules.
  void weightNamesMatchTheWaysFilesDifferFromModels() {
    const std::vector<std::string> model = {"backbone.conv.weight", "backbone.conv.bias",
                                            "head.weight", "head.bias", "bn.running_mean"};
    const auto matched = [&](const std::vector<std::string>& file,
                             const std::vector<std::string>& rename = {}) {
      std::map<std::string, std::string> out;
      const NameMatch match = matchWeightNames(model, file, rename);
      for (const auto& [m, f] : match.pairs) out[m] = f;
      QStringList notes;
      for (const auto& n : match.notes) notes << QString::fromStdString(n);
      return std::make_pair(out, notes.join("; "));
    };
    auto [exact, none] = matched({"head.weight", "bn.running_mean"});
    QCOMPARE(exact.size(), size_t{2});
    QVERIFY(none.isEmpty());
    auto [ddp, ddpNotes] = matched({"module.head.weight", "module._orig_mod.head.bias"});
    QCOMPARE(ddp["head.weight"], std::string("module.head.weight"));
    QCOMPARE(ddp["head.bias"], std::string("module._orig_mod.head.bias"));
    QVERIFY2(ddpNotes.contains("after removing \"module.\""), qPrintable(ddpNotes));
    // A backbone saved alone: its names under the model's "backbone.".
    auto [suffix, suffixNotes] = matched({"conv.weight", "conv.bias"});
    QCOMPARE(suffix["backbone.conv.weight"], std::string("conv.weight"));
    QVERIFY2(suffixNotes.contains("2 after adding \"backbone.\""), qPrintable(suffixNotes));
    // "weight" would name two model tensors (head.weight, backbone.conv.weight): not matched.
    auto [ambiguous, ambiguousNotes] = matched({"weight"});
    QVERIFY(ambiguous.empty());
    // Rules first, in order, as re.sub.
    auto [renamed, renamedNotes] = matched({"fc.weight", "fc.bias"}, {"^fc\\.=>head."});
    QCOMPARE(renamed["head.weight"], std::string("fc.weight"));
    QVERIFY2(renamedNotes.contains("2 renamed by init.rename"), qPrintable(renamedNotes));
    testing::expectError(
        [&] {
          matchWeightNames(model, {"a.x", "b.x"}, {"^[ab]=>c"});
        },
        "init.rename", "one name");
    testing::expectError([&] { matchWeightNames(model, {"a"}, {"(=>x"}); }, "init.rename",
                         "not a regular expression");
    testing::expectError([&] { matchWeightNames(model, {"a"}, {"no arrow"}); }, "init.rename",
                         "REGEX=>REPLACEMENT");
  }

  void pythonLoadsTheCheckpointAsADict() {
    QCOMPARE(linesStartingWith("TYPE"), std::vector<std::string>{"dict"});
    QCOMPARE(linesStartingWith("KEYS"),
             std::vector<std::string>{"callbacks epoch_num epoch_step format global_step "
                                      "hyper_params model optimizer optimizer_type project "
                                      "rng_state"});
    QCOMPARE(linesStartingWith("HYPER"), std::vector<std::string>{"{\"learning_rate\": 0.25} 3"});
    QCOMPARE(linesStartingWith("META"),
             std::vector<std::string>{"towerbench-checkpoint-1 3 1 adam "
                                      "\"{\\\"name\\\": \\\"fashion \\u00e9\\\"}\" torch.uint8 "
                                      "torch.uint8 5056"});
    const auto tensors = linesStartingWith("T");
    QCOMPARE(tensors.size(), saved_.model.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      const auto& [name, t] = saved_.model[i];
      std::istringstream in(tensors[i]);
      std::string pyName, shape, sum, hash;
      in >> pyName;
      std::getline(in, shape, ']');
      in >> sum >> hash;
      QCOMPARE(pyName, name);  // same names, same order
      std::ostringstream mine;
      mine << t.sizes();
      QCOMPARE(shape + "]", " " + mine.str());
      const double expected = t.to(torch::kFloat64).sum().item<double>();
      QVERIFY2(std::abs(std::stod(sum) - expected) <= 1e-12 * (1 + std::abs(expected)),
               tensors[i].c_str());
      QCOMPARE(QByteArray::fromStdString(hash), sha256(t));  // bit-identical values
    }
  }

  void ptExportLoadsInPython() {
    QCOMPARE(linesStartingWith("PTTYPE"),
             std::vector<std::string>{"dict " + std::to_string(saved_.model.size())});
    const auto lines = linesStartingWith("PT");
    QCOMPARE(lines.size(), saved_.model.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      QCOMPARE(
          QString::fromStdString(lines[i]),
          QString::fromStdString(saved_.model[i].first + " 1 ") + sha256(saved_.model[i].second));
    }
  }

  void safetensorsExportParsesInPythonBySpec() {
    QCOMPARE(linesStartingWith("STMETA"),
             std::vector<std::string>{"{\"epoch_num\": \"1\", \"format\": \"pt\", \"global_step\": "
                                      "\"3\", \"source\": \"towerbench\"}"});
    const auto weights = linesStartingWith("ST");
    QCOMPARE(weights.size(), saved_.model.size());
    for (const auto& line : weights)
      QVERIFY2(line.find(" F32 ") != std::string::npos, line.c_str());

    const TrainingState all = allDtypesState();
    const auto dtypes = linesStartingWith("SD");
    QCOMPARE(dtypes.size(), all.model.size());
    std::map<std::string, std::string> byName;
    for (const auto& line : dtypes) byName[line.substr(0, line.find(' '))] = line;
    const std::map<std::string, std::string> expected = {
        {"f64", "F64 [2, 3]"}, {"f32.transposed", "F32 [4, 3]"},
        {"f16", "F16 [5]"},    {"bf16", "BF16 [2, 2]"},
        {"i64", "I64 [7]"},    {"i32", "I32 [3]"},
        {"i16", "I16 [2]"},    {"i8", "I8 [3]"},
        {"u8", "U8 [3]"},      {"bool", "BOOL [3]"},
        {"scalar", "F32 []"},  {"empty", "F32 [0, 3]"}};
    for (const auto& [name, t] : all.model) {
      QVERIFY2(byName.count(name), name.c_str());
      QCOMPARE(QString::fromStdString(byName[name]),
               QString::fromStdString(name + " " + expected.at(name) + " 1 ") + sha256(t));
    }
  }

  void safetensorsHeaderLayout() {
    const TrainingState all = allDtypesState();
    const std::string bytes = weightsToSafetensors(all);
    QVERIFY(bytes.size() >= 8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
    QCOMPARE(n % 8, uint64_t{0});
    QVERIFY(8 + n <= bytes.size());
    const std::string header = bytes.substr(8, n);
    QCOMPARE(header.front(), '{');
    const size_t close = header.find_last_of('}');
    QVERIFY(header.find_first_not_of(' ', close + 1) == std::string::npos);  // space padding
    QVERIFY(header.size() - close - 1 < 8);
    const auto doc = nlohmann::json::parse(header);
    QCOMPARE(doc.at("__metadata__").at("format").get<std::string>(), std::string("pt"));
    for (const auto& [k, v] : doc.at("__metadata__").items()) QVERIFY(v.is_string());

    const std::string buffer = bytes.substr(8 + n);
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    std::map<std::string, torch::Tensor> original(all.model.begin(), all.model.end());
    const std::map<torch::ScalarType, std::string> names = {
        {torch::kFloat64, "F64"},   {torch::kFloat32, "F32"}, {torch::kFloat16, "F16"},
        {torch::kBFloat16, "BF16"}, {torch::kInt64, "I64"},   {torch::kInt32, "I32"},
        {torch::kInt16, "I16"},     {torch::kInt8, "I8"},     {torch::kUInt8, "U8"},
        {torch::kBool, "BOOL"}};
    QCOMPARE(doc.size(), all.model.size() + 1);
    for (const auto& [name, info] : doc.items()) {
      if (name == "__metadata__") continue;
      const torch::Tensor& t = original.at(name);
      QCOMPARE(info.at("dtype").get<std::string>(), names.at(t.scalar_type()));
      QCOMPARE(info.at("shape").get<std::vector<int64_t>>(), t.sizes().vec());
      const auto b = info.at("data_offsets")[0].get<uint64_t>();
      const auto e = info.at("data_offsets")[1].get<uint64_t>();
      QCOMPARE(e - b, static_cast<uint64_t>(t.numel() * t.element_size()));
      ranges.emplace_back(b, e);
      if (t.numel() == 0) continue;
      auto copy = torch::empty(t.sizes(), t.options());
      std::memcpy(copy.data_ptr(), buffer.data() + b, e - b);
      QVERIFY2(torch::equal(copy, t), name.c_str());
    }
    std::sort(ranges.begin(), ranges.end());
    uint64_t expectedBegin = 0;
    for (const auto& [b, e] : ranges) {
      QCOMPARE(b, expectedBegin);  // contiguous, no overlap, no hole
      expectedBegin = e;
    }
    QCOMPARE(expectedBegin, static_cast<uint64_t>(buffer.size()));
  }

  void exportErrorsNameTheFile() {
    try {
      exportWeights(path("model-3.pt"), "onnx", path("out.onnx"));
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("onnx") != std::string::npos, e.what());
    }
    try {
      exportWeights(path("missing.pt"), "pt", path("out.pt"));
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find(path("missing.pt")) != std::string::npos, e.what());
    }
    QVERIFY(QDir(dir_.path()).mkdir("a-directory.safetensors"));
    try {
      exportWeights(path("model-3.pt"), "safetensors", path("a-directory.safetensors"));
      QFAIL("expected a std::runtime_error");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("a-directory.safetensors") != std::string::npos,
               e.what());
    }
    QVERIFY(!QFile::exists(dir_.filePath("out.pt")));
  }

  void writeFailureLeavesThePreviousFile() {
    const std::string before = readFile(path("model-3.pt"));
    TrainingState state = saved_;
    state.model.emplace_back("broken", torch::Tensor());
    QVERIFY_THROWS_EXCEPTION(CheckError, writeCheckpointFile(path("model-3.pt"), state));
    QVERIFY(QDir(dir_.path()).mkdir("dir.pt"));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeCheckpointFile(path("dir.pt"), saved_));
    QCOMPARE(readFile(path("model-3.pt")), before);
  }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "test_Checkpoint.moc"
