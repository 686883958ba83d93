// The project file: parsing, defaults, round trips and every malformed fixture under
// malformed/. Command-line overrides are in test_ProjectOverrides.cpp.

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/builtin/Builtin.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ProjectJson {

using nlohmann::json;
using namespace tbench;

namespace {

const char* kFullProject = R"({
  "format": 1,
  "name": "fashion-mlp_v2.1",
  "description": "An MLP on Fashion-MNIST",
  "model": {"type": "mlp", "hidden": [512, 256, 64], "dropout": 0.25},
  "data": {
    "train": {"type": "idx", "images": "/data/train-images.gz",
              "labels": "/data/train-labels.gz", "limit": 5000},
    "validation": {"type": "synthetic", "num_samples": 300, "image_size": 12, "num_classes": 3,
                   "noise": 0.75, "seed": 7, "limit": 200},
    "batch_size": 64, "shuffle": false, "remainder": true
  },
  "optimizer": {"type": "sgd", "learning_rate": 0.1, "momentum": 0.9, "nesterov": true,
                "weight_decay": 0.0005},
  "schedule": {"learning_rate": {"unit": "step", "interpolation": "linear",
                                 "points": [[0, 0.1], [1000, 0.01], [5000, 0.001]]}},
  "steps_per_epoch": 250, "max_epoch": 12, "starting_epoch": 3,
  "callbacks": [{"type": "throughput"}, {"type": "progress_bar", "scalars": ["cost", "accuracy"]}],
  "monitors": {"json": false, "scalar_printer": false},
  "trainer": {"strategy": "simple", "devices": ["cpu"]},
  "seed": 1234, "num_threads": 2, "run_root": "/tmp/runs"
})";

const char* kConvnetProject = R"({
  "format": 1,
  "name": "conv",
  "model": {"type": "convnet", "conv1_channels": 8, "conv2_channels": 16, "kernel_size": 3,
            "fc_width": 100, "batch_norm": true, "dropout": 0.5},
  "data": {"train": {"type": "fashion-mnist", "split": "test", "dir": "/srv/fm"},
           "validation": {"type": "fashion-mnist"}},
  "optimizer": {"type": "adamw", "learning_rate": 0.002, "weight_decay": 0.01, "beta1": 0.8,
                "beta2": 0.99, "eps": 1e-6, "clip_global_norm": 5, "clip_value": 0.5,
                "report_grad_norm": false},
  "trainer": {"strategy": "queue_input", "devices": ["cpu"], "queue_size": 7}
})";

const char* kMinimalProject =
    R"({"format": 1, "name": "minimal", "model": {}, "data": {"train": {}}})";

QString dump(const json& doc) { return QString::fromStdString(doc.dump(2)); }

#define TB_DIFF(field) \
  if (!(a.field == b.field)) return #field

/// The first field in which `a` and `b` differ, "" when they are equal field by field.
std::string firstDifference(const Project& a, const Project& b) {
  TB_DIFF(format);
  TB_DIFF(name);
  TB_DIFF(description);
  // A component's type and every key of that type (settings over defaults).
  auto same = [](const ComponentSpec& x, const ComponentSpec& y) {
    return x.kind == y.kind && x.type == y.type && x.resolved().values() == y.resolved().values();
  };
  if (!same(a.model, b.model)) return "model";
  if (!same(a.data.train, b.data.train)) return "data.train";
  TB_DIFF(data.hasValidation);
  if (a.data.hasValidation && !same(a.data.validation, b.data.validation)) {
    return "data.validation";
  }
  TB_DIFF(data.batchSize);
  TB_DIFF(data.shuffle);
  TB_DIFF(data.remainder);
  if (!same(a.optimizer, b.optimizer)) return "optimizer";
  TB_DIFF(schedule.enabled);
  TB_DIFF(schedule.unit);
  TB_DIFF(schedule.interpolation);
  TB_DIFF(schedule.points);
  TB_DIFF(stepsPerEpoch);
  TB_DIFF(maxEpoch);
  TB_DIFF(startingEpoch);
  TB_DIFF(callbacks.size());
  for (size_t i = 0; i < a.callbacks.size(); ++i) {
    if (!same(a.callbacks[i], b.callbacks[i])) return "callbacks[" + std::to_string(i) + "]";
  }
  for (const char* monitor : {"json", "scalar_printer", "tensorboard"}) {
    if (a.monitorOn(monitor) != b.monitorOn(monitor)) return std::string("monitors.") + monitor;
  }
  if (!same(a.trainer, b.trainer)) return "trainer";
  TB_DIFF(init.checkpoint);
  TB_DIFF(init.ignore);
  TB_DIFF(seed);
  TB_DIFF(numThreads);
  TB_DIFF(runRoot);
  return "";
}

#define TB_COMPARE_PROJECTS(actual, expected) \
  QCOMPARE(QString::fromStdString(firstDifference(actual, expected)), QString())

QString fixtureDir() { return QStringLiteral(TB_SOURCE_DIR "/tests/engine/project/malformed"); }

/// What each malformed fixture must report: substrings of ProjectError::what(). A leading "!"
/// means the text must not appear.
const std::map<QString, QStringList>& malformedExpectations() {
  static const std::map<QString, QStringList> table = {
      // The position is where the parser stopped: the end of the unexpected "model" (a comma
      // is missing before it).
      {"syntax_error.json",
       {"syntax_error.json: invalid project:\n  $: syntax error at line 4, column 9",
        "unexpected string literal"}},
      {"empty.json", {"$: syntax error at line 1, column 1"}},
      // Found by fuzz_project_json: nlohmann's out_of_range escaped without the file's name.
      {"number_overflow.json",
       {"number_overflow.json: invalid project:\n  $: number out of range at line 3, column 16",
        "'1E400'"}},
      // The token in a string and inside a longer number is passed over.
      {"number_overflow_after_a_string.json",
       {"$: number out of range at line 4, column 16", "'21E400'"}},
      {"duplicate_key.json", {"$.optimizer: duplicate key"}},
      {"not_an_object.json", {"$: expected an object, found an array"}},
      {"missing_format.json", {"$.format: missing required key"}},
      {"format_2.json",
       {"$.format: unsupported format 2 (this Towerbench reads format 1)", "!$.model"}},
      {"missing_name.json", {"$.name: missing required key"}},
      {"bad_name.json", {"$.name: must be usable as a directory name", "got string \"my run/1\""}},
      {"unknown_top_level_key.json", {"$.optimzer: unknown key (did you mean \"optimizer\"?)"}},
      {"unknown_nested_key.json", {"$.data.train.limt: unknown key (did you mean \"limit\"?)"}},
      {"wrong_types.json",
       {"$.data.batch_size: expected an integer, found string \"128\"",
        "$.monitors.json: expected a boolean, found string \"yes\"",
        "$.trainer.devices[0]: expected a string, found number 0",
        "$.schedule.learning_rate.points[0][1]: expected a number, found string \"0.1\""}},
      {"wrong_section_types.json",
       {"$.model: expected an object, found string \"mlp\"",
        "$.optimizer: expected an object, found an array",
        "$.callbacks: expected an array, found an object"}},
      {"negative_batch_size.json", {"$.data.batch_size: must be >= 1, got -8"}},
      {"integral_float.json", {"$.data.batch_size: expected an integer, found number 128.0"}},
      {"unknown_model_type.json",
       {"$.model.type: unknown value \"resnet\" (expected \"mlp\", \"convnet\", \"torchscript\" or "
        "\"dcgan\")",
        "!$.model.hidden"}},
      {"mlp_key_on_convnet.json", {"$.model.hidden: not a setting of model type \"convnet\""}},
      {"mlp_key_on_default_type.json",
       {"$.model.hidden: not a setting of model type \"convnet\" (the default when \"type\" is "
        "not given)"}},
      {"source_key_of_other_type.json",
       {"$.data.train.split: not a setting of source type \"synthetic\""}},
      {"idx_without_files.json",
       {"$.data.train.images: must not be empty", "$.data.train.labels: missing required key"}},
      {"missing_train.json", {"$.data.train: missing required key"}},
      {"unknown_device.json",
       {"$.trainer.devices[0]: unknown device \"cuda:9\" (available: cpu",
        "$.trainer.devices[1]: unknown device \"gpu0\" (expected \"cpu\" or \"cuda:N\")",
        "!takes exactly one device"}},
      {"two_devices_simple.json",
       {"$.trainer.devices: strategy \"simple\" takes exactly one device, got 2"}},
      // Issue 25 (F4): ranks shard one order; an unordered decode has another in every rank.
      {"unordered_images_distributed.json",
       {"$.trainer: strategy \"distributed\" shards the training data by position, but "
        "data.train has \"ordered\": false"}},
      // Issue 34 (N3): validation is sharded by position too: the same rule for its source.
      {"unordered_validation_images_distributed.json",
       {"$.trainer: strategy \"distributed\" shards the validation data by position, but "
        "data.validation has \"ordered\": false",
        "!data.train has"}},
      // Issue 25 (F12): a short last batch would weigh as a full one, trailing ones dropped.
      {"remainder_distributed.json",
       {"$.trainer: strategy \"distributed\" gives every rank a full batch each step, but "
        "data.remainder is true"}},
      {"queue_size_on_simple.json", {"$.trainer.queue_size: not a setting of strategy \"simple\""}},
      {"starting_epoch_after_max.json", {"$.starting_epoch: must be <= max_epoch (3), got 5"}},
      {"schedule_not_increasing.json",
       {"$.schedule.learning_rate.points[2][0]: must be greater than the previous point's 10, "
        "got 10"}},
      {"schedule_without_points.json",
       {"$.schedule.learning_rate.points: must have at least one point"}},
      {"nesterov_without_momentum.json", {"$.optimizer.nesterov: requires momentum > 0"}},
      {"optimizer_key_of_other_type.json",
       {"$.optimizer.momentum: not a setting of optimizer type \"adam\""}},
      {"bad_plateau.json",
       {"$.callbacks[1].factor: must not be 1", "$.callbacks[1].patience:", "$.callbacks[1].mode:",
        "$.callbacks[2].stat: missing required key", "!$.callbacks[0]"}},
      {"bad_callbacks.json",
       {"$.callbacks[0].type: unknown value \"progress-bar\" (did you mean \"progress_bar\"?)",
        "$.callbacks[1].type: missing required key",
        "$.callbacks[2].scalars: not a setting of callback type \"throughput\""}},
      {"several_errors.json",
       {"$.name: must not be empty", "$.model.kernel_size: must be odd, got 4",
        "$.model.dropout: must be in [0, 1), got 1.5", "$.data.batch_size: must be >= 1, got 0",
        "$.optimizer.learning_rate: must be > 0, got 0",
        "$.optimizer.beta2: must be in [0, 1), got 1.0", "$.max_epoch: must be >= 1, got 0",
        "$.seed: must be >= 0, got -1", "$.num_threads: must be >= 0, got -2",
        "$.run_root: must not be empty", "$.trainer.devices: must list at least one device",
        "$.trainer.queue_size: must be >= 1, got 0", "!$.starting_epoch"}},
  };
  return table;
}

/// JSON pointer "/data/train/0" -> "$.data.train[0]" (no key of the schema is a number).
std::string pointerToPath(const std::string& pointer) {
  std::string path = "$";
  std::istringstream tokens(pointer.substr(1));
  std::string token;
  while (std::getline(tokens, token, '/')) {
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    path += index ? "[" + token + "]" : "." + token;
  }
  return path;
}

bool hasIssueAt(const std::vector<ProjectIssue>& issues, const std::string& path) {
  for (const auto& issue : issues) {
    if (issue.path == path) return true;
  }
  return false;
}

std::string writeTempFile(const QTemporaryDir& dir, const char* name, const std::string& text) {
  const std::string path = dir.filePath(name).toStdString();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

class TestProjectJson : public QObject {
  Q_OBJECT

 private slots:
  void fullDocumentParses() {
    const Project p = projectFromJson(json::parse(kFullProject));
    QCOMPARE(p.format, 1);
    QCOMPARE(p.name, std::string("fashion-mlp_v2.1"));
    QCOMPARE(p.description, std::string("An MLP on Fashion-MNIST"));
    QCOMPARE(p.model.type, std::string("mlp"));
    QCOMPARE(p.model.integers("hidden"), (std::vector<int64_t>{512, 256, 64}));
    QCOMPARE(p.model.number("dropout"), 0.25);
    QCOMPARE(p.data.train.type, std::string("idx"));
    QCOMPARE(p.data.train.string("images"), std::string("/data/train-images.gz"));
    QCOMPARE(p.data.train.string("labels"), std::string("/data/train-labels.gz"));
    QCOMPARE(p.data.train.integer("limit"), int64_t{5000});
    QVERIFY(p.data.hasValidation);
    QCOMPARE(p.data.validation.type, std::string("synthetic"));
    QCOMPARE(p.data.validation.integer("num_samples"), int64_t{300});
    QCOMPARE(p.data.validation.integer("image_size"), int64_t{12});
    QCOMPARE(p.data.validation.integer("num_classes"), int64_t{3});
    QCOMPARE(p.data.validation.number("noise"), 0.75);
    QCOMPARE(p.data.validation.seed("seed"), uint64_t{7});
    QCOMPARE(p.data.validation.integer("limit"), int64_t{200});
    QCOMPARE(p.data.batchSize, int64_t{64});
    QCOMPARE(p.data.shuffle, false);
    QCOMPARE(p.data.remainder, true);
    QCOMPARE(p.optimizer.type, std::string("sgd"));
    QCOMPARE(p.optimizer.number("learning_rate"), 0.1);
    QCOMPARE(p.optimizer.number("momentum"), 0.9);
    QCOMPARE(p.optimizer.boolean("nesterov"), true);
    QCOMPARE(p.optimizer.number("weight_decay"), 0.0005);
    QVERIFY(p.schedule.enabled);
    QCOMPARE(p.schedule.unit, std::string("step"));
    QCOMPARE(p.schedule.interpolation, std::string("linear"));
    const std::vector<std::pair<int64_t, double>> points = {{0, 0.1}, {1000, 0.01}, {5000, 0.001}};
    QVERIFY(p.schedule.points == points);
    QCOMPARE(p.stepsPerEpoch, int64_t{250});
    QCOMPARE(p.maxEpoch, int64_t{12});
    QCOMPARE(p.startingEpoch, int64_t{3});
    QCOMPARE(p.callbacks.size(), size_t{2});
    QCOMPARE(p.callbacks[0].type, std::string("throughput"));
    QCOMPARE(p.callbacks[1].type, std::string("progress_bar"));
    QCOMPARE(p.callbacks[1].strings("scalars"), (std::vector<std::string>{"cost", "accuracy"}));
    QCOMPARE(p.monitorOn("json"), false);
    QCOMPARE(p.monitorOn("scalar_printer"), false);
    QCOMPARE(p.trainer.type, std::string("simple"));
    QCOMPARE(p.trainer.strings("devices"), (std::vector<std::string>{"cpu"}));
    QCOMPARE(p.seed, uint64_t{1234});
    QCOMPARE(p.numThreads, int64_t{2});
    QCOMPARE(p.runRoot, std::string("/tmp/runs"));
    // A component holds the keys of its type only; those not in the file take their defaults.
    QVERIFY(!p.model.settings.has("kernel_size"));
    QVERIFY(!p.optimizer.settings.has("beta1"));
    QVERIFY(!p.trainer.settings.has("queue_size"));
    QCOMPARE(p.optimizer.boolean("report_grad_norm"), true);
  }

  void convnetDocumentParses() {
    const Project p = projectFromJson(json::parse(kConvnetProject));
    QCOMPARE(p.model.type, std::string("convnet"));
    QCOMPARE(p.model.integer("conv1_channels"), int64_t{8});
    QCOMPARE(p.model.integer("conv2_channels"), int64_t{16});
    QCOMPARE(p.model.integer("kernel_size"), int64_t{3});
    QCOMPARE(p.model.integer("fc_width"), int64_t{100});
    QCOMPARE(p.model.boolean("batch_norm"), true);
    QCOMPARE(p.model.number("dropout"), 0.5);
    QCOMPARE(p.optimizer.number("clip_global_norm"), 5.0);
    QCOMPARE(p.optimizer.number("clip_value"), 0.5);
    QCOMPARE(p.optimizer.boolean("report_grad_norm"), false);
    QCOMPARE(p.data.train.type, std::string("fashion-mnist"));
    QCOMPARE(p.data.train.string("split"), std::string("test"));
    QCOMPARE(p.data.train.string("dir"), std::string("/srv/fm"));
    QVERIFY(p.data.hasValidation);
    // A validation source without a split validates on the held-out test split.
    QCOMPARE(p.data.validation.string("split"), std::string("test"));
    QCOMPARE(p.optimizer.type, std::string("adamw"));
    QCOMPARE(p.optimizer.number("learning_rate"), 0.002);
    QCOMPARE(p.optimizer.number("weight_decay"), 0.01);
    QCOMPARE(p.optimizer.number("beta1"), 0.8);
    QCOMPARE(p.optimizer.number("beta2"), 0.99);
    QCOMPARE(p.optimizer.number("eps"), 1e-6);
    QCOMPARE(p.trainer.type, std::string("queue_input"));
    QCOMPARE(p.trainer.integer("queue_size"), int64_t{7});
  }

  void omittedKeysTakeTheDefaults() {
    const Project p = projectFromJson(json::parse(kMinimalProject));
    Project expected;
    expected.name = "minimal";
    TB_COMPARE_PROJECTS(p, expected);
    QVERIFY(!p.data.hasValidation);
    QVERIFY(!p.schedule.enabled);
    QCOMPARE(p.callbacks.size(), size_t{3});
  }

  void devicesAreCanonical() {
    json doc = json::parse(kMinimalProject);
    doc["trainer"] = {{"strategy", "simple"}, {"devices", {"cpu"}}};
    QCOMPARE(projectFromJson(doc).trainer.strings("devices"), (std::vector<std::string>{"cpu"}));
  }

  void batchNormAndClippingAreChecked() {
    json doc = json::parse(kMinimalProject);
    doc["model"] = json{{"type", "mlp"}, {"batch_norm", true}};
    doc["optimizer"] = json{{"clip_global_norm", -1}};
    const std::vector<ProjectIssue> issues = validateProjectJson(doc);
    QVERIFY(hasIssueAt(issues, "$.model.batch_norm"));  // not a setting of an mlp
    QVERIFY(hasIssueAt(issues, "$.optimizer.clip_global_norm"));
    QCOMPARE(issues.size(), size_t{2});
  }

  void gpuTrackerTakesNoSettings() {
    json doc = json::parse(kMinimalProject);
    doc["callbacks"] = json::array({json{{"type", "gpu_tracker"}}});
    const Project p = projectFromJson(doc);
    QCOMPARE(p.callbacks.size(), size_t{1});
    QCOMPARE(p.callbacks[0].type, std::string("gpu_tracker"));
    QCOMPARE(dump(projectToJson(p)["callbacks"][0]), dump(json{{"type", "gpu_tracker"}}));

    doc["callbacks"][0]["every_k_steps"] = 1;
    const std::vector<ProjectIssue> issues = validateProjectJson(doc);
    QCOMPARE(issues.size(), size_t{1});
    QCOMPARE(issues[0].toString(), std::string("$.callbacks[0].every_k_steps: not a setting of "
                                               "callback type \"gpu_tracker\""));
  }

  void roundTripKeepsEveryField_data() {
    QTest::addColumn<QString>("variant");
    for (const char* v : {"default", "full", "convnet", "rmsprop", "adam", "synthetic-train",
                          "no-callbacks", "large-seed"}) {
      QTest::newRow(v) << QString(v);
    }
  }
  void roundTripKeepsEveryField() {
    QFETCH(QString, variant);
    Project p;
    if (variant == "full") p = projectFromJson(json::parse(kFullProject));
    if (variant == "convnet") p = projectFromJson(json::parse(kConvnetProject));
    if (variant == "rmsprop") {
      p.optimizer = ComponentSpec::of("optimizer", "rmsprop");
      p.optimizer.set("momentum", 0.5);
      p.optimizer.set("eps", 1e-3);
      p.optimizer.set("weight_decay", 1e-4);
    }
    if (variant == "adam") {
      p.optimizer.set("beta1", 0.5);
      p.optimizer.set("beta2", 0.25);
      p.optimizer.set("learning_rate", 1.0 / 3.0);  // not representable in few digits
    }
    if (variant == "synthetic-train") {
      p.data.train.type = "synthetic";
      p.data.train.set("num_samples", 99);
      p.data.train.set("noise", 0);
      p.data.train.set("seed", 0);
      p.schedule.enabled = true;
      p.schedule.points = {{5, 2.5}};
    }
    if (variant == "no-callbacks") p.callbacks.clear();
    if (variant == "large-seed") p.seed = 18446744073709551615ull;

    const json written = projectToJson(p);
    QVERIFY2(validateProjectJson(written).empty(), qPrintable(dump(written)));
    const Project back = projectFromJson(written);
    TB_COMPARE_PROJECTS(back, p);
    QCOMPARE(dump(projectToJson(back)), dump(written));
  }

  void writerWritesOnlyTheKeysOfTheType() {
    const json full = projectToJson(projectFromJson(json::parse(kFullProject)));
    QVERIFY(full["model"].contains("hidden"));
    QVERIFY(!full["model"].contains("kernel_size"));
    QVERIFY(!full["data"]["train"].contains("num_samples"));
    QVERIFY(full["data"]["validation"].contains("num_samples"));
    QVERIFY(!full["optimizer"].contains("beta1"));
    QVERIFY(!full["optimizer"].contains("eps"));
    QVERIFY(!full["trainer"].contains("queue_size"));
    QVERIFY(!full["callbacks"][0].contains("scalars"));
    QCOMPARE(full["schedule"]["learning_rate"]["points"].size(), size_t{3});

    const json defaults = projectToJson(Project{});
    QVERIFY(!defaults.contains("schedule"));
    QVERIFY(!defaults["data"].contains("validation"));
    QVERIFY(defaults["trainer"].contains("queue_size"));
    QCOMPARE(defaults["format"].get<int>(), 1);
    QCOMPARE(defaults["precision"].get<std::string>(), std::string("32"));
    // Every field of Project written: its 17 top-level fields minus the disabled schedule.
    QCOMPARE(defaults.size(), size_t{16});
  }

  void malformedFixturesAreAllListed() {
    const QStringList files = QDir(fixtureDir()).entryList({"*.json"}, QDir::Files);
    QVERIFY(files.size() >= 15);
    for (const QString& file : files) {
      QVERIFY2(malformedExpectations().count(file) == 1, qPrintable("no expectation: " + file));
    }
    for (const auto& entry : malformedExpectations()) {
      QVERIFY2(files.contains(entry.first), qPrintable("no fixture: " + entry.first));
    }
  }

  // Issue 25: a distributed rank's gpu_tracker watches the rank's own GPU (cuda:<LOCAL_RANK>,
  // where DistributedTrainer puts it), not cuda:0 on every rank; other strategies watch their
  // CUDA devices.
  void gpuTrackerWatchesTheRanksDevice() {
    auto distributed = ComponentSpec::of("strategy", "distributed");
    distributed.set("devices", nlohmann::json::array({"cuda"}));
    QCOMPARE(trackedCudaDevices(distributed, -1), std::vector<int>{0});
    QCOMPARE(trackedCudaDevices(distributed, 3), std::vector<int>{3});
    auto cpuRank = ComponentSpec::of("strategy", "distributed");
    cpuRank.set("devices", nlohmann::json::array({"cpu"}));
    QVERIFY(trackedCudaDevices(cpuRank, 1).empty());
    auto replicated = ComponentSpec::of("strategy", "sync_replicated");
    replicated.set("devices", nlohmann::json::array({"cuda:1", "cuda:0", "cuda:1"}));
    QCOMPARE(trackedCudaDevices(replicated, 2), (std::vector<int>{0, 1}));
  }

  // Issue 25 (F10): GanTrainer's replicas always average and are not checked, so sync_replicated
  // refuses a GAN project that asks otherwise, naming the key.
  void ganUnderSyncReplicatedRefusesWhatItCannotDo() {
    json doc = readProjectJson(TB_SOURCE_DIR "/projects/fashion-mnist-dcgan.json");
    doc["trainer"] = {{"strategy", "sync_replicated"},
                      {"devices", {"cpu", "cpu"}},
                      {"average", false},
                      {"check_replicas", true}};
    const auto issues = validateProjectJson(doc);
    QVERIFY(hasIssueAt(issues, "$.trainer.average"));
    QVERIFY(hasIssueAt(issues, "$.trainer.check_replicas"));
    doc["trainer"].erase("average");
    doc["trainer"].erase("check_replicas");
    const auto fine = validateProjectJson(doc);
    QVERIFY(!hasIssueAt(fine, "$.trainer.average") &&
            !hasIssueAt(fine, "$.trainer.check_replicas"));
  }

  void malformedFileIsRejected_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected");
    const QStringList files = QDir(fixtureDir()).entryList({"*.json"}, QDir::Files);
    for (const QString& file : files) {
      const auto it = malformedExpectations().find(file);
      QTest::newRow(qPrintable(file))
          << file << (it == malformedExpectations().end() ? QStringList() : it->second);
    }
  }
  void malformedFileIsRejected() {
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    QVERIFY(!expected.isEmpty());
    const std::string path = (fixtureDir() + "/" + file).toStdString();
    std::string message;
    size_t issueCount = 0;
    try {
      loadProjectFile(path);
      QFAIL("loadProjectFile accepted a malformed file");
    } catch (const ProjectError& e) {
      message = e.what();
      issueCount = e.issues().size();
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("threw something other than ProjectError: ") + e.what()));
    }
    QVERIFY(issueCount > 0);
    QVERIFY2(message.rfind(path + ": invalid project:\n  $", 0) == 0, message.c_str());
    for (const QString& item : expected) {
      const bool absent = item.startsWith('!');
      const std::string text = (absent ? item.mid(1) : item).toStdString();
      QVERIFY2((message.find(text) == std::string::npos) == absent,
               qPrintable(QString("%1 \"%2\" in:\n%3")
                              .arg(absent ? "unexpected" : "missing", QString::fromStdString(text),
                                   QString::fromStdString(message))));
    }
    // Every issue gets one line.
    QCOMPARE(size_t(std::count(message.begin(), message.end(), '\n')), issueCount);
  }

  void validationCollectsEveryIssue() {
    const json doc =
        readProjectJson(TB_SOURCE_DIR "/tests/engine/project/malformed/several_errors.json");
    const std::vector<ProjectIssue> issues = validateProjectJson(doc);
    QCOMPARE(issues.size(), size_t{12});
    try {
      projectFromJson(doc, "several");
      QFAIL("accepted");
    } catch (const ProjectError& e) {
      QCOMPARE(e.issues().size(), issues.size());
      QVERIFY(std::string(e.what()).rfind("several: invalid project:\n  $.", 0) == 0);
    }
  }

  void validationNeverThrows() {
    for (const json& doc : {json(), json(42), json("x"), json::array(), json::object(),
                            json{{"format", nullptr}, {"model", {{"type", {1, 2}}}}}}) {
      std::vector<ProjectIssue> issues;
      try {
        issues = validateProjectJson(doc);
      } catch (...) {
        QFAIL(qPrintable("threw on " + dump(doc)));
      }
      QVERIFY(!issues.empty());
    }
  }

  // Every value of a valid document, replaced by something of the wrong kind, is reported at
  // its own path; anything at all is either accepted (and then round-trips) or rejected with a
  // ProjectError.
  void everyValueIsCheckedAtItsPath() {
    const json full = json::parse(kFullProject);
    const json flat = full.flatten();
    const std::vector<json> anything = {
        json(),         json::object(), json::array(), json("x"),  json(-1),
        json(0),        json(1.5),      json(1e300),   json(true), json(18446744073709551615ull),
        json(INT64_MIN)};
    int checked = 0;
    for (const auto& leaf : flat.items()) {
      const json::json_pointer pointer(leaf.key());
      const std::string path = pointerToPath(leaf.key());
      for (const json& wrong : {json(), json::object()}) {
        json doc = full;
        doc[pointer] = wrong;
        QVERIFY2(hasIssueAt(validateProjectJson(doc), path),
                 qPrintable(QString::fromStdString(path + " = " + wrong.dump())));
      }
      for (const json& value : anything) {
        json doc = full;
        doc[pointer] = value;
        try {
          const Project p = projectFromJson(doc);
          TB_COMPARE_PROJECTS(projectFromJson(projectToJson(p)), p);
        } catch (const ProjectError&) {
        } catch (const std::exception& e) {
          QFAIL(qPrintable(QString::fromStdString(path + " = " + value.dump() + ": " + e.what())));
        }
      }
      ++checked;
    }
    QVERIFY(checked > 40);
  }

  void syntaxErrorsCarryLineAndColumn() {
    QTemporaryDir dir;
    const std::string path =
        writeTempFile(dir, "p.json", "{\n  \"format\": 1,\n  \"name\": tru\n}\n");
    try {
      readProjectJson(path);
      QFAIL("accepted");
    } catch (const ProjectError& e) {
      QCOMPARE(e.issues().size(), size_t{1});
      QCOMPARE(QString::fromStdString(e.issues()[0].path), QString("$"));
      QVERIFY2(e.issues()[0].message.find("line 3, column 14") != std::string::npos, e.what());
    }
    const std::string truncated = writeTempFile(dir, "t.json", "{\"format\": 1,\n\"name\"");
    QVERIFY_THROWS_EXCEPTION(ProjectError, readProjectJson(truncated));
    try {
      readProjectJson(truncated);
    } catch (const ProjectError& e) {
      QVERIFY2(e.issues()[0].message.find("line 2, column 7") != std::string::npos, e.what());
    }
  }

  void fileThatCannotBeReadIsAnInputError() {
    QTemporaryDir dir;
    for (const std::string& path :
         {dir.filePath("missing.json").toStdString(), dir.path().toStdString()}) {
      try {
        loadProjectFile(path);
        QFAIL("no error");
      } catch (const ProjectError&) {
        QFAIL("a missing file is not a validation error");
      } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find(path) != std::string::npos, e.what());
      }
    }
  }

  void loadProjectFileReadsAValidFile() {
    QTemporaryDir dir;
    const std::string path = writeTempFile(dir, "full.json", kFullProject);
    TB_COMPARE_PROJECTS(loadProjectFile(path), projectFromJson(json::parse(kFullProject)));
  }
};

}  // namespace test_ProjectJson

TB_TEST_APPLESS_MAIN(test_ProjectJson::TestProjectJson)
#include "test_ProjectJson.moc"
