// TorchScript models: modules scripted by PyTorch (scripts/make-torchscript-model.py, run with
// /usr/bin/python3) train under every strategy through the project layer, refuse what would
// train wrongly (traced BatchNorm, mismatched inputs and outputs), keep the module's names in
// checkpoints, and export as TorchScript that PyTorch runs with the engine's outputs. Issue 37:
// such a model starts from the weights PyTorch users have (a state_dict, DDP's and Lightning's
// wrappings, safetensors, a TorchScript file, Towerbench's own export); a new head of another
// shape keeps its initial values (strict refuses it); a module saved frozen trains.

#include <QTemporaryDir>
#include <QtTest>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/checkpoint/SessionInit.h"
#include "engine/checkpoint/WeightsFile.h"
#include "engine/core/Check.h"
#include "engine/models/ScriptModel.h"
#include "engine/monitors/ScalarHistory.h"
#include "engine/predict/ModelExport.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/ExpectError.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ScriptModel {

using namespace tbench;
using nlohmann::json;

namespace {

/// The standard output of /usr/bin/python3 `args`; empty (with stderr logged) when it failed.
QString runPython(const QStringList& args) {
  const testing::PythonRun run = testing::runPython(args);
  if (!run.ok) qWarning("%s", run.err.constData());
  return run.ok ? QString::fromUtf8(run.out) : QString();
}

// The input both sides evaluate: 2 images of 1x8x8, a fixed ramp.
const char* kRunExported = R"(
import sys, json, torch
m = torch.jit.load(sys.argv[1])
x = torch.linspace(-1, 1, 2 * 64).reshape(2, 1, 8, 8)
with torch.no_grad():
    y = m(x)
print(json.dumps({"training": m.training, "out": y.flatten().tolist()}))
)";

/// `run` with its towers built (as a run starts), its init taken out and returned, not applied.
InitOptions setUp(BuiltRun& run) {
  InitOptions init = run.config.init;
  run.config.init = {};
  setupTrainWithConfig(run.config, *run.trainer);
  return init;
}

const char* kStateDictNames = R"(
import sys, json, torch
m = torch.jit.load(sys.argv[1])
ck = torch.load(sys.argv[2], weights_only=True)
m.load_state_dict(ck["model"], strict=True)
print(json.dumps(sorted(m.state_dict().keys())))
)";

}  // namespace

class TestScriptModel : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const QString script = QStringLiteral(TB_SOURCE_DIR "/scripts/make-torchscript-model.py");
    const QStringList common{"--size", "8", "--classes", "3"};
    // "Pretrained" weights (seed 1), saved the ways PyTorch users save them; a pretrained model
    // with 5 classes (its head of another shape); a module saved frozen.
    const QStringList weights = {"--seed",    "1",
                                 "--weights", "state_dict:" + dir_.filePath("sd.pt"),
                                 "--weights", "ddp:" + dir_.filePath("ddp.pth"),
                                 "--weights", "lightning:" + dir_.filePath("lightning.ckpt"),
                                 "--weights", "safetensors:" + dir_.filePath("w.safetensors")};
    QList<QStringList> runs;
    for (const auto& [name, extra] :
         std::vector<std::pair<QString, QStringList>>{{"cnn.pt", {}},
                                                      {"plain.pt", {"--plain"}},
                                                      {"traced.pt", {"--traced"}},
                                                      {"scalar.pt", {"--scalar-cost"}},
                                                      {"pretrained.pt", weights},
                                                      {"frozen.pt", {"--frozen"}}}) {
      runs.append(QStringList{dir_.filePath(name)} + common + extra);
    }
    runs.append({dir_.filePath("five.pt"), "--size", "8", "--classes", "5", "--seed", "1",
                 "--weights", "state_dict:" + dir_.filePath("five-sd.pt")});
    // One interpreter for the seven modules (torch imported once).
    const testing::PythonRun made = testing::runPythonScriptEach(script, runs);
    QVERIFY2(made.ok, made.err.constData());
    for (const QStringList& run : runs)
      QVERIFY2(QFile::exists(run.first()), qPrintable(run.first()));
  }

  // Issue 37: the project's init took only Towerbench checkpoints ("not a Towerbench checkpoint
  // (no "format" key)" for a state_dict, "not a zip archive" for safetensors).
  void initTakesTheWeightsPyTorchUsersSave_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("note");
    QTest::newRow("state_dict") << "sd.pt"
                                << "PyTorch state_dict"
                                << "";
    QTest::newRow("ddp") << "ddp.pth"
                         << "under \"model\""
                         << "after removing \"module.\"";
    QTest::newRow("lightning") << "lightning.ckpt"
                               << "under \"state_dict\""
                               << "after removing \"model.\"";
    QTest::newRow("safetensors") << "w.safetensors"
                                 << "safetensors"
                                 << "";
    QTest::newRow("torchscript") << "pretrained.pt"
                                 << "TorchScript module"
                                 << "";
  }
  void initTakesTheWeightsPyTorchUsersSave() {
    QFETCH(QString, file);
    QFETCH(QString, source);
    QFETCH(QString, note);
    json doc = project("cnn.pt", "simple", 1, 16);
    doc["init"] = {{"checkpoint", path(file)}};
    BuiltRun run = buildRun(projectFromJson(doc), "");
    const InitOptions init = setUp(run);
    torch::nn::Module& module = run.trainer->mainModule();
    const RestoreReport report = initFromWeights(module, init);
    // Every parameter and buffer is the pretrained module's (read by torch::jit::load).
    const torch::jit::Module pretrained = loadScriptModule(path("pretrained.pt"));
    size_t compared = 0;
    for (const auto& p : pretrained.named_parameters()) {
      QVERIFY2(torch::equal(module.named_parameters()[p.name], p.value), p.name.c_str());
      ++compared;
    }
    for (const auto& b : pretrained.named_buffers()) {
      QVERIFY2(torch::equal(module.named_buffers()[b.name], b.value), b.name.c_str());
      ++compared;
    }
    QCOMPARE(report.loaded.size(), compared);
    QVERIFY(report.missing.empty() && report.unexpected.empty() && report.shapeMismatch.empty());
    Q_UNUSED(source);
    Q_UNUSED(note);
  }

  void whatWasReadAndHowItMatchedIsSaid_data() { initTakesTheWeightsPyTorchUsersSave_data(); }
  void whatWasReadAndHowItMatchedIsSaid() {
    QFETCH(QString, file);
    QFETCH(QString, source);
    QFETCH(QString, note);
    std::vector<std::string> names;
    for (const auto& p : loadScriptModule(path("cnn.pt")).named_parameters())
      names.push_back(p.name);
    const NamedWeights weights = readWeightsFile(path(file));
    QVERIFY2(QString::fromStdString(weights.source).contains(source), weights.source.c_str());
    std::vector<std::string> fileNames;
    for (const auto& [name, t] : weights.tensors) fileNames.push_back(name);
    const NameMatch match = matchWeightNames(names, fileNames, {});
    QCOMPARE(match.pairs.size(), names.size());
    QString notes;
    for (const std::string& n : match.notes) notes += QString::fromStdString(n) + "; ";
    if (note.isEmpty()) {
      QVERIFY2(notes.isEmpty(), qPrintable(notes));
    } else {
      QVERIFY2(notes.contains(note), qPrintable(notes));
    }
  }

  // A pretrained model with another number of classes: its head keeps the new model's initial
  // values, the rest is loaded, and the run trains the head; init.strict refuses it instead.
  void aNewHeadKeepsItsInitialValuesUnlessStrict() {
    json doc = project("cnn.pt", "simple", 1, 16);
    doc["init"] = {{"checkpoint", path("five-sd.pt")}};
    doc["max_epoch"] = 1;
    BuiltRun run = buildRun(projectFromJson(doc), "");
    const InitOptions init = setUp(run);
    torch::nn::Module& module = run.trainer->mainModule();
    const torch::Tensor initialHead = module.named_parameters()["fc.weight"].clone();
    const RestoreReport report = initFromWeights(module, init);
    QCOMPARE(report.shapeMismatch.size(), size_t{2});  // fc.weight and fc.bias
    QVERIFY2(QString::fromStdString(report.shapeMismatch[0]).contains("[5, 128] vs model [3, 128]"),
             report.shapeMismatch[0].c_str());
    QVERIFY(torch::equal(module.named_parameters()["fc.weight"], initialHead));
    const torch::jit::Module five = loadScriptModule(path("five.pt"));
    for (const auto& p : five.named_parameters()) {
      if (p.name.rfind("fc.", 0) == 0) continue;
      QVERIFY2(torch::equal(module.named_parameters()[p.name], p.value), p.name.c_str());
    }
    doc["init"]["strict"] = true;
    BuiltRun strict = buildRun(projectFromJson(doc), "");
    const InitOptions strictInit = setUp(strict);
    testing::expectError([&] { initFromWeights(strict.trainer->mainModule(), strictInit); },
                         dir_.filePath("five-sd.pt"), "init.strict");
    // init.rename: a rule that moves the pretrained head aside leaves it unexpected instead.
    doc["init"] = {{"checkpoint", path("five-sd.pt")}, {"rename", {"^fc\\.=>old_head."}}};
    BuiltRun renamed = buildRun(projectFromJson(doc), "");
    const InitOptions renamedInit = setUp(renamed);
    const RestoreReport moved = initFromWeights(renamed.trainer->mainModule(), renamedInit);
    QCOMPARE(moved.shapeMismatch.size(), size_t{0});
    QCOMPARE(moved.unexpected, (std::vector<std::string>{"fc.weight", "fc.bias"}));
    QCOMPARE(moved.missing, (std::vector<std::string>{"fc.weight", "fc.bias"}));
  }

  // Issue 37: a module saved with requires_grad off (an export) validated, then failed at step
  // 1 with "element 0 of tensors does not require grad".
  void aModuleSavedFrozenTrains() {
    json doc = project("frozen.pt", "simple", 1, 16);
    doc["max_epoch"] = 1;
    BuiltRun run = buildRun(projectFromJson(doc), "");
    launchTrainWithConfig(run.config, *run.trainer);
    const torch::jit::Module saved = loadScriptModule(path("frozen.pt"));
    for (const auto& p : saved.named_parameters()) QVERIFY(!p.value.requires_grad());
    for (const auto& p : saved.named_parameters()) {
      if (p.name != "conv1.weight") continue;
      QVERIFY(!torch::equal(run.trainer->mainModule().named_parameters()["conv1.weight"], p.value));
    }
  }

  void trainsUnderEveryStrategy_data() {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("towers");
    QTest::newRow("simple") << "simple" << 1;
    QTest::newRow("queue_input") << "queue_input" << 1;
    QTest::newRow("sync_parameter_server") << "sync_parameter_server" << 2;
    QTest::newRow("sync_replicated") << "sync_replicated" << 2;
    QTest::newRow("async") << "async" << 2;
  }

  void trainsUnderEveryStrategy() {
    QFETCH(QString, strategy);
    QFETCH(int, towers);
    json doc = project("cnn.pt", strategy.toStdString(), towers, 16);
    doc["callbacks"] = {{{"type", "inference"}}};
    BuiltRun run = buildRun(projectFromJson(doc), "");
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    // An epoch is one pass's worth of steps (96 / 16), whatever the towers (as tensorpack).
    QCOMPARE(run.trainer->globalStep(), int64_t{2 * 96 / 16});
    const auto costs = history->get("cost");
    QVERIFY(!costs.empty() && std::isfinite(costs.back().value));
    QVERIFY(!history->get("validation_error").empty());  // cross-entropy validates both
    // The module's own tensors trained: weights moved, BatchNorm statistics followed.
    torch::jit::Module fresh = loadScriptModule(path("cnn.pt"));
    torch::nn::Module& trained = run.trainer->mainModule();
    const auto params = trained.named_parameters();
    const auto buffers = trained.named_buffers();
    torch::Tensor initial;
    for (const auto& p : fresh.named_parameters()) {
      if (p.name == "conv1.weight") initial = p.value;
    }
    QVERIFY(initial.defined());
    QVERIFY(!torch::allclose(params["conv1.weight"], initial));
    QVERIFY(buffers.contains("bn1.running_mean"));
    QVERIFY(buffers["bn1.running_mean"].abs().sum().item<double>() > 0);
  }

  void oneTowerOn2bIsTwoTowersOnB() {
    // Without BatchNorm and Dropout, two towers on b samples each average to the gradient of
    // one tower on 2b: the same weights after the same steps (SGD).
    auto train = [&](const std::string& strategy, int towers, int batch) {
      json doc = project("plain.pt", strategy, towers, batch);
      doc["optimizer"] = {{"type", "sgd"}, {"learning_rate", 0.05}};
      doc["data"]["shuffle"] = false;
      doc["steps_per_epoch"] = 3;  // 3 x 32 samples: one pass, split into towers or not
      BuiltRun run = buildRun(projectFromJson(doc), "");
      launchTrainWithConfig(run.config, *run.trainer);
      std::map<std::string, torch::Tensor> out;
      for (const auto& p : run.trainer->mainModule().named_parameters()) {
        out[p.key()] = p.value().detach().clone();
      }
      return out;
    };
    const auto one = train("simple", 1, 32);
    const auto two = train("sync_replicated", 2, 16);
    QCOMPARE(one.size(), two.size());
    double worst = 0;
    for (const auto& [name, value] : one) {
      worst = std::max(worst, (value - two.at(name)).abs().max().item<double>());
    }
    QVERIFY2(worst < 1e-5, qPrintable(QString("max difference %1").arg(worst)));
  }

  void checkpointsKeepTheModulesNames() {
    BuiltRun run = buildRun(projectFromJson(project("cnn.pt", "simple", 1, 32)), "");
    launchTrainWithConfig(run.config, *run.trainer);
    const std::string checkpoint = path("cnn-checkpoint.pt");
    run.trainer->saveCheckpoint(checkpoint);
    // PyTorch loads the checkpoint with weights_only=True into the original module, strictly.
    const QString names = runPython(
        {"-c", kStateDictNames, dir_.filePath("cnn.pt"), QString::fromStdString(checkpoint)});
    QVERIFY(!names.isEmpty());
    std::vector<std::string> ours;
    for (const auto& entry : readCheckpointFile(checkpoint).model) ours.push_back(entry.first);
    std::sort(ours.begin(), ours.end());
    QCOMPARE(json::parse(names.toStdString()).get<std::vector<std::string>>(), ours);

    // `init` fine-tuning starts a new run of the module from those tensors (a step of a
    // vanishing learning rate later they are still the checkpoint's).
    json tune = project("cnn.pt", "simple", 1, 32);
    tune["init"] = {{"checkpoint", checkpoint}};
    tune["optimizer"] = {{"type", "sgd"}, {"learning_rate", 1e-12}};
    tune["max_epoch"] = 1;
    tune["steps_per_epoch"] = 1;
    BuiltRun tuned = buildRun(projectFromJson(tune), "");
    launchTrainWithConfig(tuned.config, *tuned.trainer);
    const auto restored = tuned.trainer->mainModule().named_parameters();
    for (const auto& [name, value] : readCheckpointFile(checkpoint).model) {
      if (!restored.contains(name)) continue;  // buffers
      QVERIFY2(torch::allclose(restored[name], value, 0, 1e-6), name.c_str());
    }
  }

  void exportRunsInPython_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("torchscript") << R"({"type": "torchscript", "path": "cnn.pt"})";
    QTest::newRow("convnet+bn") << R"({"type": "convnet", "conv1_channels": 4,
        "conv2_channels": 4, "fc_width": 8, "batch_norm": true, "dropout": 0.5})";
    QTest::newRow("mlp+dropout") << R"({"type": "mlp", "hidden": [16, 8], "dropout": 0.5})";
  }

  void exportRunsInPython() {
    QFETCH(QString, model);
    json doc = project("cnn.pt", "simple", 1, 32);
    doc["model"] = json::parse(model.toStdString());
    if (doc["model"]["type"] == "torchscript") doc["model"]["path"] = path("cnn.pt");
    BuiltRun run = buildRun(projectFromJson(doc), "");
    launchTrainWithConfig(run.config, *run.trainer);
    const std::string checkpoint = path("export-checkpoint.pt");
    const std::string exported = path("exported.pt");
    run.trainer->saveCheckpoint(checkpoint);
    exportTorchScript(checkpoint, exported);

    const QString printed = runPython({"-c", kRunExported, QString::fromStdString(exported)});
    QVERIFY(!printed.isEmpty());
    const json python = json::parse(printed.toStdString());
    QCOMPARE(python["training"].get<bool>(), false);
    const auto theirs = python["out"].get<std::vector<float>>();
    // The engine's own network, rebuilt from the checkpoint, in eval mode.
    RestoredNetwork network = restoreNetwork(readCheckpointFile(checkpoint));
    torch::NoGradGuard noGrad;
    const torch::Tensor x = torch::linspace(-1, 1, 2 * 64).reshape({2, 1, 8, 8});
    const torch::Tensor ours = SupervisedModel::logits(*network.net, x).flatten().contiguous();
    QCOMPARE(int64_t(theirs.size()), ours.numel());
    QCOMPARE(int64_t(theirs.size()), int64_t{6});
    for (size_t i = 0; i < theirs.size(); ++i) {
      QVERIFY2(
          std::abs(theirs[i] - ours[i].item<float>()) < 1e-5,
          qPrintable(
              QString("output %1: %2 vs %3").arg(i).arg(theirs[i]).arg(ours[i].item<float>())));
    }
  }

  void scalarCostTrains() {
    json doc = project("scalar.pt", "simple", 1, 32);
    doc["model"]["cost"] = "scalar";
    doc["callbacks"] = {{{"type", "inference"}}};
    BuiltRun run = buildRun(projectFromJson(doc), "");
    auto history = std::make_shared<ScalarHistory>();
    run.config.monitors->push_back(history);
    launchTrainWithConfig(run.config, *run.trainer);
    QVERIFY(std::isfinite(history->get("cost").back().value));
    QVERIFY(!history->get("validation_cost").empty());
    QVERIFY(history->get("validation_error").empty());  // the module's cost only
  }

  void refusesWhatWouldTrainWrongly_data() {
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    QTest::newRow("traced") << R"({"model": {"path": "traced.pt"}})"
                            << "traced.pt"
                            << "torch.jit.script(model)";
    QTest::newRow("arguments") << R"({"model": {"path": "scalar.pt"}})"
                               << "scalar.pt"
                               << "calls it with 1 (input) from data.train";
    QTest::newRow("classes") << R"({"data": {"train": {"num_classes": 4}}})"
                             << "cnn.pt"
                             << "needs logits [2, 4] (data.train (synthetic) has 4";
    QTest::newRow("input") << R"({"data": {"train": {"image_size": 12}}})"
                           << "cnn.pt"
                           << "forward fails on the input of data.train (synthetic)";
    QTest::newRow("mse on classes") << R"({"model": {"cost": "mse"}})"
                                    << "$.model.cost"
                                    << "has class labels";
    QTest::newRow("missing") << R"({"model": {"path": "nothere.pt"}})"
                             << "nothere.pt"
                             << "no such file";
  }

  void refusesWhatWouldTrainWrongly() {
    QFETCH(QString, change);
    QFETCH(QString, file);
    QFETCH(QString, expected);
    json doc = project("cnn.pt", "simple", 1, 16);
    json patch = json::parse(change.toStdString());
    if (patch.contains("model") && patch["model"].contains("path")) {
      patch["model"]["path"] = path(QString::fromStdString(patch["model"]["path"]));
    }
    doc.merge_patch(patch);
    testing::expectError([&] { buildRun(projectFromJson(doc), ""); }, file, expected);
  }

  void relativePathsFollowTheProjectFile() {
    json doc = project("cnn.pt", "simple", 1, 16);
    doc["model"]["path"] = "cnn.pt";  // beside the project file
    const QString file = dir_.filePath("relative.json");
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(doc.dump()));
    out.close();
    const Project project = loadProjectFile(file.toStdString());
    QCOMPARE(QString::fromStdString(project.baseDir), QFileInfo(dir_.path()).absoluteFilePath());
    BuiltRun run = buildRun(project, "");  // found, though the working directory differs
    QVERIFY(run.config.model != nullptr);
  }

 private:
  std::string path(const QString& name) const { return dir_.filePath(name).toStdString(); }

  json project(const QString& module, const std::string& strategy, int towers, int batch) const {
    json devices = json::array();
    for (int i = 0; i < towers; ++i) devices.push_back("cpu");
    return {{"format", 1},
            {"name", "script"},
            {"model", {{"type", "torchscript"}, {"path", path(module)}}},
            {"data",
             {{"train",
               {{"type", "synthetic"},
                {"num_samples", 96},
                {"image_size", 8},
                {"num_classes", 3},
                {"noise", 0.3}}},
              {"validation",
               {{"type", "synthetic"},
                {"num_samples", 32},
                {"image_size", 8},
                {"num_classes", 3},
                {"noise", 0.3},
                {"sample_seed", 2}}},
              {"batch_size", batch}}},
            {"optimizer", {{"type", "adam"}, {"learning_rate", 0.01}}},
            {"max_epoch", 2},
            {"callbacks", json::array()},
            {"trainer", {{"strategy", strategy}, {"devices", devices}}}};
  }

  QTemporaryDir dir_;
};

}  // namespace test_ScriptModel

TB_TEST_MAIN(test_ScriptModel::TestScriptModel)
#include "test_ScriptModel.moc"
