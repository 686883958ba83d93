// towerbench-cli as a user runs it: exit codes, messages, the run directory it writes.

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "tests/support/CliRun.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Cli {

namespace fs = std::filesystem;

namespace {

using Result = tbench::testing::CliResult;

Result runCli(const QStringList& args, int timeoutMs = 120000,
              const std::function<void(QProcessEnvironment&)>& editEnvironment = {}) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("TB_QUIET");  // the CLI's own output is under test
  if (editEnvironment) editEnvironment(env);
  return tbench::testing::runProgram(TB_CLI_PATH, args, env, timeoutMs);
}

QString project(const char* name) { return QString(TB_SOURCE_DIR) + "/projects/" + name; }

/// The line of `runDir`'s log.log that reports the BLAS library.
QString blasLine(const QString& runDir) {
  QFile log(runDir + "/log.log");
  if (!log.open(QIODevice::ReadOnly)) return {};
  for (const QString& line : QString::fromUtf8(log.readAll()).split('\n')) {
    if (line.contains("intra-op threads")) return line;
  }
  return {};
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT
 private slots:
  // towerbench-cli sweep --dry-run: the example sweep's 9 trials listed; a sweep whose key path
  // the project does not have is refused before anything runs, naming the path.
  void sweepDryRunListsTheTrialsOrNamesTheProblem() {
    const QString example =
        QString(TB_SOURCE_DIR) + "/projects/sweeps/fashion-mnist-mlp-lr-width.json";
    Result r = runCli({"sweep", example, "--dry-run"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(
        r.out.contains("grid search, 9 trial(s), metric validation_error (minimize), 5 epoch(s)"),
        qPrintable(r.out));
    QVERIFY2(r.out.contains("judged at value(s) number 1 3 of validation_error"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("[512,256]"), qPrintable(r.out));
    QVERIFY2(r.out.contains("0.0003"), qPrintable(r.out));
    QTemporaryDir dir;
    QFile::copy(project("synthetic-mlp.json"), dir.filePath("base.json"));
    QFile sweep(dir.filePath("s.json"));
    QVERIFY(sweep.open(QIODevice::WriteOnly));
    sweep.write(R"({"project": "base.json", "method": "random", "run_cap": 3, "seed": 1,
      "metric": {"name": "validation_error"},
      "parameters": {"optimizer.learnig_rate": {"min": 0.001, "max": 0.1,
                                                "distribution": "log_uniform_values"}}})");
    sweep.close();
    r = runCli({"sweep", dir.filePath("s.json"), "--dry-run"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("all 3 trials: $.optimizer.learnig_rate"), qPrintable(r.err));
    QVERIFY2(r.err.contains("(from $.parameters.optimizer.learnig_rate)"), qPrintable(r.err));
    // Without --dry-run too: nothing runs, no sweep directory is made.
    r = runCli({"sweep", dir.filePath("s.json"), "--sweep-dir", dir.filePath("sd")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("$.optimizer.learnig_rate"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(dir.filePath("sd")));
    // Issue 34 (N2): a metric no part of the project puts (W&B's "score") is refused by the dry
    // run, with the scalars the project does put.
    QFile score(dir.filePath("score.json"));
    QVERIFY(score.open(QIODevice::WriteOnly));
    score.write(R"({"project": "base.json", "method": "grid", "metric": {"name": "score"},
      "parameters": {"optimizer.learning_rate": {"values": [0.01, 0.02]}}})");
    score.close();
    r = runCli({"sweep", dir.filePath("score.json"), "--dry-run"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("$.metric.name: no part of the project puts \"score\"") &&
                 r.err.contains("cost, ") && r.err.contains("validation_error"),
             qPrintable(r.err));
    // W&B's grid without a metric runs its trials unranked; its report has no metric columns.
    std::ifstream in(project("synthetic-mlp.json").toStdString());
    nlohmann::json base = nlohmann::json::parse(in);
    base["run_root"] = dir.filePath("runs").toStdString();
    std::ofstream(dir.filePath("unranked-base.json").toStdString()) << base.dump();
    QFile unranked(dir.filePath("unranked.json"));
    QVERIFY(unranked.open(QIODevice::WriteOnly));
    unranked.write(R"({"project": "unranked-base.json", "method": "grid", "parameters":
      {"optimizer.learning_rate": {"values": [0.01, 0.02]}, "max_epoch": {"value": 1}}})");
    unranked.close();
    r = runCli({"sweep", dir.filePath("unranked.json"), "--dry-run"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("grid search, 2 trial(s), no metric, 1 epoch(s)"),
             qPrintable(r.out + r.err));
    r = runCli({"sweep", dir.filePath("unranked.json"), "--sweep-dir", dir.filePath("ud")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("no metric: the trials are not ranked") && !r.out.contains("best:") &&
                 r.out.contains("trial state    max_epoch optimizer.learning_rate\n"),
             qPrintable(r.out));
  }

  // sweep --slurm without --submit: the state and the job array's script, nothing submitted;
  // the options that go with it are refused alone; --trial out of range names the range.
  void sweepSlurmWritesTheJobArray() {
    QTemporaryDir dir;
    QFile::copy(project("synthetic-mlp.json"), dir.filePath("base.json"));
    QFile sweep(dir.filePath("s.json"));
    QVERIFY(sweep.open(QIODevice::WriteOnly));
    sweep.write(R"({"project": "base.json", "method": "grid",
      "metric": {"name": "validation_error"},
      "parameters": {"optimizer.learning_rate": {"values": [0.01, 0.02, 0.03]}}})");
    sweep.close();
    Result r = runCli({"sweep", dir.filePath("s.json"), "--submit"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--submit goes with --slurm"), qPrintable(r.err));
    r = runCli({"sweep", dir.filePath("s.json"), "--sbatch=--partition=gpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("go with --slurm"), qPrintable(r.err));
    // Issue 34: --slurm with --dry-run had run the dry run and ignored --slurm.
    r = runCli({"sweep", dir.filePath("s.json"), "--slurm", "--dry-run"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--dry-run and --slurm exclude each other"), qPrintable(r.err));
    r = runCli({"sweep", dir.filePath("s.json"), "--dry-run", "--slots", "2"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--dry-run and --slots exclude each other"), qPrintable(r.err));
    r = runCli({"sweep", dir.filePath("s.json"), "--trial", "1", "--retry-failed"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--trial and --retry-failed exclude each other"), qPrintable(r.err));
    r = runCli({"sweep", dir.filePath("s.json"), "--trial", "3"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--trial 3") && r.err.contains("0 to 2"), qPrintable(r.err));
    r = runCli({"sweep", dir.filePath("s.json"), "--slurm", "--slots", "2", "--cpus-per-trial", "4",
                "--sbatch", "--time=1:00:00"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString script = dir.filePath("sweeps/s/slurm-array.sh");
    QVERIFY2(r.out.contains("submit it with: sbatch " + script), qPrintable(r.out));
    QFile file(script);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    QVERIFY2(text.contains("#SBATCH --array=0-2%2\n#SBATCH --ntasks=1\n"), qPrintable(text));
    QVERIFY2(text.contains("#SBATCH --cpus-per-task=4\n#SBATCH --time=1:00:00\n"),
             qPrintable(text));
    QVERIFY(QFileInfo(script).isExecutable());
    QVERIFY(QFileInfo::exists(dir.filePath("sweeps/s/sweep-state.json")));
    QVERIFY(!QFileInfo::exists(dir.filePath("sweeps/s/slurm-jobs")));  // nothing submitted
  }

  void validateEveryProject() {
    // Every example, the TorchScript one with the model scripts/setup.sh wrote beside it.
    QString convnet;
    for (const QString& name : QDir(QString(TB_SOURCE_DIR) + "/projects").entryList({"*.json"})) {
      const Result r = runCli({"validate", project(qPrintable(name))});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err));
      QVERIFY2(r.out.contains("valid"), qPrintable(r.out));
      // Issue 37: valid means it can train: one step ran, forward and backward.
      QVERIFY2(r.out.contains("one training step: "), qPrintable(r.out));
      if (name == "fashion-mnist-convnet.json") convnet = r.out;
    }
    QVERIFY2(convnet.contains("60000 samples of 1x28x28, 10 classes"), qPrintable(convnet));
    // Samples per step as the trainer counts them (issue 26): a GAN with d_steps 2 takes two
    // batches a step.
    const Result gan =
        runCli({"validate", project("fashion-mnist-dcgan.json"), "--set", "model.d_steps=2"});
    QVERIFY2(gan.out.contains("batch 64 x 2 batch(es) a step = 128 samples per step"),
             qPrintable(gan.out + gan.err));
  }

  // Issue 37: the model's parameters, as a user checks them before fine-tuning.
  void summaryListsTheModelsParameters() {
    const Result r = runCli({"summary", project("fashion-mnist-mlp.json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("layers.0.weight") && r.out.contains("trainable"), qPrintable(r.out));
    QVERIFY2(r.out.contains(" parameters in "), qPrintable(r.out));
    // The totals are the sum of the rows.
    const auto rows = [](const QString& out, const QString& kind) {
      qint64 sum = 0;
      for (const QString& line : out.split('\n')) {
        const QStringList cells = line.simplified().split(' ');
        const int at = static_cast<int>(cells.indexOf(kind));
        if (at >= 2) sum += cells[at - 1].toLongLong();
      }
      return sum;
    };
    const qint64 sum = rows(r.out, "trainable");
    QVERIFY2(r.out.contains(QString("  %1 parameters in ").arg(sum)), qPrintable(r.out));
    QVERIFY2(r.out.contains("1 optimizer group(s)"), qPrintable(r.out));
    // optimizer.param_groups: the frozen rows, each group's rate.
    const Result grouped =
        runCli({"summary", project("fashion-mnist-mlp.json"), "--set",
                R"(optimizer.param_groups=[{"match": "^layers\\.0\\.", "freeze": true},
                                    {"match": "^layers\\.2\\.", "lr_multiplier": 0.1}])"});
    QVERIFY2(grouped.exitCode == 0, qPrintable(grouped.err));
    QCOMPARE(rows(grouped.out, "frozen"), qint64{784 * 256 + 256});
    QVERIFY2(
        grouped.out.contains(QRegularExpression(R"(layers\.2\.weight .* trainable +0: 0\.0001)")),
        qPrintable(grouped.out));
    QVERIFY2(grouped.out.contains("2 optimizer group(s)"), qPrintable(grouped.out));
    const Result typo =
        runCli({"summary", project("fashion-mnist-mlp.json"), "--set",
                R"(optimizer.param_groups=[{"match": "^backbone\\.", "freeze": true}])"});
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("optimizer.param_groups[0].match") &&
                 typo.err.contains("matches none of the model's"),
             qPrintable(typo.err));
  }

  // Issue 37: the learning-rate range test, as Lightning's lr_find.
  void findLrSuggestsARateFromTheRangeTest() {
    QTemporaryDir dir;
    const QString out = dir.filePath("lr.json");
    const Result r =
        runCli({"find-lr", project("fashion-mnist-mlp.json"), "--steps", "60", "--start", "1e-5",
                "--end", "10", "--out", out, "--set", "data.train.limit=4096"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("step 0  rate 1e-05  cost "), qPrintable(r.out));
    QVERIFY2(r.out.contains("suggested learning rate: "), qPrintable(r.out));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json j = nlohmann::json::parse(file.readAll().toStdString());
    const auto rates = j.at("rates").get<std::vector<double>>();
    QVERIFY(rates.size() >= 12 && rates.size() <= 60);
    QCOMPARE(rates.front(), 1e-5);
    for (size_t i = 1; i < rates.size(); ++i) {
      // start x (end/start)^(i/steps): a constant ratio of 10^(6/60) a step
      QVERIFY(std::abs(rates[i] / rates[i - 1] - std::pow(10.0, 0.1)) < 1e-9);
    }
    QVERIFY(j.at("suggestion").is_number_integer());
    const double suggested = j.at("suggested_rate").get<double>();
    // Adam on this MLP learns between about 1e-4 and 1e-2; the steepest descent is there.
    QVERIFY2(suggested > 3e-5 && suggested < 0.1, qPrintable(QString::number(suggested)));
    // A run that diverges stops and says so (the rate reaches 10).
    QVERIFY2(rates.size() < 60 || !j.at("stopped").get<std::string>().empty() ||
                 r.out.contains("stopped"),
             qPrintable(r.out));
    // Bad ranges are refused by name.
    const Result bad = runCli({"find-lr", project("fashion-mnist-mlp.json"), "--start", "0"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--start expects a positive number"), qPrintable(bad.err));
  }

  // Issue 37's goal: a network pretrained in PyTorch (its state_dict, its safetensors) starts
  // a run with PyTorch's validation error at step 0; fine-tuned with a frozen backbone, the
  // backbone stays bitwise what PyTorch saved and the new head trains.
  void fineTuningExampleMeetsItsGoals() {
    QTemporaryDir dir;
    const QString example = QString(TB_SOURCE_DIR) + "/examples/fine-tuning/";
    for (const char* name : {"pretrained-check.json", "fine-tune.json"}) {
      QVERIFY(QFile::copy(example + name, dir.filePath(name)));
    }
    QProcess python;
    python.start("/usr/bin/python3",
                 {QString(TB_SOURCE_DIR) + "/scripts/make-pretrained-model.py",
                  dir.filePath("assets"), "--steps", "40", "--test-limit", "2000"});
    QVERIFY(python.waitForFinished(300000));
    if (python.exitCode() != 0) {
      const QByteArray err = python.readAllStandardError();
      if (err.contains("No module named 'torch'")) {
        TB_SKIP_WITHOUT_INTEROP("python3-torch is not installed");
      }
      QFAIL(err.constData());
    }
    QFile facts(dir.filePath("assets/pretrained.json"));
    QVERIFY(facts.open(QIODevice::ReadOnly));
    const double pytorchError =
        nlohmann::json::parse(facts.readAll().toStdString()).at("test_error").get<double>();
    const auto validationError = [](const QString& out) {
      const QRegularExpressionMatch m =
          QRegularExpression(R"(validation_error: ([0-9.eE+-]+))").match(out);
      return m.hasMatch() ? m.captured(1).toDouble() : -1.0;
    };
    for (const char* weights : {"assets/pretrained.pt", "assets/pretrained.safetensors"}) {
      // Both sides on the first 2000 test images (the script's --test-limit).
      const Result r = runCli({"eval", dir.filePath("pretrained-check.json"), "--set",
                               QString("init.checkpoint=%1").arg(weights), "--set",
                               "data.validation.limit=2000"});
      QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
      QVERIFY2(r.out.contains("(step 0 of a run)"), qPrintable(r.out));
      const double error = validationError(r.out);
      QVERIFY2(
          std::abs(error - pytorchError) <= 0.005,
          qPrintable(
              QString("%1: Towerbench %2, PyTorch %3").arg(weights).arg(error).arg(pytorchError)));
    }
    const QString runDir = dir.filePath("run");
    const Result trained =
        runCli({"train", dir.filePath("fine-tune.json"), "--run-dir", runDir, "--max-epoch", "1",
                "--steps-per-epoch", "20", "--set", "data.validation.limit=1000"});
    QVERIFY2(trained.exitCode == 0, qPrintable(trained.out + trained.err));
    QFile log(runDir + "/log.log");
    QVERIFY(log.open(QIODevice::ReadOnly));
    const QString logText = log.readAll();
    QVERIFY2(logText.contains("param_groups: 6 parameter(s) frozen"), qPrintable(logText));
    QVERIFY2(logText.contains("fc.weight"), qPrintable(logText));  // the head's new shape, reported
    const Result exported = runCli(
        {"export", runDir + "/model-20.pt", "--format", "pt", "--out", dir.filePath("tuned.pt")});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    // The weight average (trainer.ema_decay) is kept beside the raw weights; --ema exports it.
    const Result average = runCli({"export", runDir + "/model-20.pt", "--format", "pt", "--out",
                                   dir.filePath("average.pt"), "--ema"});
    QVERIFY2(average.exitCode == 0, qPrintable(average.err));
    QVERIFY2(average.out.contains("the weight average"), qPrintable(average.out));
    // eval of that checkpoint validates with the average, as the run did: the cost the run
    // recorded; --raw, the trained weights.
    const auto evalCost = [&](const QStringList& extra) {
      const Result r =
          runCli(QStringList{"eval", dir.filePath("fine-tune.json"), "--checkpoint",
                             runDir + "/model-20.pt", "--set", "data.validation.limit=1000"} +
                 extra);
      const QRegularExpressionMatch m =
          QRegularExpression("\\n  validation_cost: ([0-9.e-]+)").match(r.out);
      return std::make_pair(m.hasMatch() ? m.captured(1).toDouble() : -1.0, r.out + r.err);
    };
    const auto [averaged, averagedOut] = evalCost({});
    const auto [raw, rawOut] = evalCost({"--raw"});
    QVERIFY2(averagedOut.contains("its weight average (trainer.ema_decay)"),
             qPrintable(averagedOut));
    QVERIFY2(!rawOut.contains("weight average"), qPrintable(rawOut));
    QFile stats(runDir + "/stats.json");
    QVERIFY(stats.open(QIODevice::ReadOnly));
    const double recorded = nlohmann::json::parse(stats.readAll().toStdString())
                                .back()["validation_cost"]
                                .get<double>();
    QVERIFY2(std::abs(averaged - recorded) < 1e-5 * std::max(1.0, recorded),
             qPrintable(QString("eval %1, the run %2").arg(averaged).arg(recorded)));
    QVERIFY2(raw >= 0 && raw != averaged, qPrintable(rawOut));
    const Result alone = runCli({"eval", dir.filePath("fine-tune.json"), "--raw"});
    QVERIFY2(alone.exitCode == 2 && alone.err.contains("--raw goes with --checkpoint"),
             qPrintable(alone.err));
    const char* compare = R"(
import sys, torch
before = torch.load(sys.argv[1], weights_only=True)
after = torch.load(sys.argv[2], weights_only=True)
for name in ["conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var",
             "conv2.weight", "bn2.weight", "bn2.bias", "bn2.running_mean", "bn2.running_var"]:
    assert torch.equal(before[name], after[name]), name + " changed"
assert after["fc.weight"].shape == (3, 32 * 7 * 7), after["fc.weight"].shape
initial = torch.jit.load(sys.argv[3]).state_dict()["fc.weight"]
assert (after["fc.weight"] - initial).abs().max() > 1e-4, "the head did not train"
average = torch.load(sys.argv[4], weights_only=True)
assert torch.equal(average["conv1.weight"], before["conv1.weight"]), "a frozen average moved"
assert (average["fc.weight"] - after["fc.weight"]).abs().max() > 1e-6, "the average is the raw"
print("backbone bitwise equal; head trained", tuple(after["fc.weight"].shape))
)";
    QProcess check;
    check.start("/usr/bin/python3",
                {"-c", compare, dir.filePath("assets/pretrained.pt"), dir.filePath("tuned.pt"),
                 dir.filePath("assets/smallcnn-3.pt"), dir.filePath("average.pt")});
    QVERIFY(check.waitForFinished(120000));
    QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());
  }

  void yourOwnModelAndTableTrainAndExportAsTorchScript() {
    // The TorchScript example as a user has it: the project file and, beside it, a module
    // scripted in Python; it trains from the CLI and its export runs in PyTorch alone.
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("assets"));
    QVERIFY(QFile::copy(project("fashion-mnist-torchscript.json"), dir.filePath("ts.json")));
    QProcess python;
    python.start("/usr/bin/python3", {QString(TB_SOURCE_DIR) + "/scripts/make-torchscript-model.py",
                                      dir.filePath("assets/fashion_cnn.pt")});
    QVERIFY(python.waitForFinished(120000) && python.exitCode() == 0);
    const QString tsRun = dir.filePath("ts-run");
    Result r = runCli({"train", dir.filePath("ts.json"), "--run-dir", tsRun, "--max-epoch", "1",
                       "--steps-per-epoch", "5", "--set", "data.validation.limit=256"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli({"export", tsRun + "/model-5.pt", "--format", "torchscript", "--out",
                dir.filePath("ts-export.pt")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    python.start("/usr/bin/python3", {"-c",
                                      "import sys, torch\n"
                                      "m = torch.jit.load(sys.argv[1])\n"
                                      "print(m.training, tuple(m(torch.rand(2, 1, 28, 28)).shape))",
                                      dir.filePath("ts-export.pt")});
    QVERIFY(python.waitForFinished(60000));
    QCOMPARE(QString::fromUtf8(python.readAllStandardOutput()).trimmed(), QString("False (2, 10)"));

    // The iris example: its export takes raw measurements (the standardisation is inside).
    const QString irisRun = dir.filePath("iris-run");
    r = runCli({"train", project("iris-csv.json"), "--run-dir", irisRun});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString checkpoint =
        QDir(irisRun).entryList({"model-*.pt"}, QDir::Files, QDir::Time).value(0);
    QVERIFY(!checkpoint.isEmpty());
    r = runCli({"export", irisRun + "/" + checkpoint, "--format", "torchscript", "--out",
                dir.filePath("iris.pt")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    python.start("/usr/bin/python3",
                 {"-c",
                  "import sys, numpy as np, torch\n"
                  "d = np.loadtxt('/usr/lib/python3/dist-packages/sklearn/datasets/data/iris.csv',"
                  " delimiter=',', skiprows=1)\n"
                  "m = torch.jit.load(sys.argv[1])\n"
                  "p = m(torch.tensor(d[:, :4], dtype=torch.float32)).argmax(1).numpy()\n"
                  "print((p == d[:, 4]).mean())",
                  dir.filePath("iris.pt")});
    QVERIFY(python.waitForFinished(60000));
    const double accuracy = python.readAllStandardOutput().trimmed().toDouble();
    QVERIFY2(accuracy > 0.9, qPrintable(QString::number(accuracy)));
  }

  // A worker of several ranks trains the distributed strategy: `launch` runs any project so,
  // one run in one directory, recorded as such.
  void launchRunsAnyProjectAsDistributedRanks() {
    QTemporaryDir dir;
    const QString runDir = dir.filePath("run");
    const Result r = runCli({"launch", "--nproc-per-node", "2", project("synthetic-mlp.json"),
                             "--run-dir", runDir, "--max-epoch", "1", "--steps-per-epoch", "6"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QFile frozen(runDir + "/project.json");
    QVERIFY(frozen.open(QIODevice::ReadOnly));
    QVERIFY(frozen.readAll().contains("\"distributed\""));  // what ran, recorded as such
    QVERIFY(!QDir(dir.filePath("run-1")).exists());         // one run, not two
    QVERIFY(QFile::exists(runDir + "/log-rank1.log"));
  }

  void devicesListsWhatAProjectMayUse() {
    const Result r = runCli({"devices"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // Every device line starts with the string trainer.devices accepts; cpu always exists.
    QVERIFY2(r.out.contains("\n  cpu\tCPU, "), qPrintable(r.out));
    for (const char* part : {"BLAS: ", "all-reduce for CUDA towers: ", "GPU trackers"}) {
      QVERIFY2(r.out.contains(part), qPrintable(r.out));
    }
    QCOMPARE(runCli({"devices", "cpu"}).exitCode, 2);
  }

  void badInputExitsWithTwo() {
    QTemporaryDir dir;
    const QString bad = dir.path() + "/bad.json";
    std::ofstream(bad.toStdString()) << R"({"format": 1, "name": "x", "model": {"type": "resnet"},
      "data": {"train": {"type": "synthetic"}, "batch_size": -3}})";
    Result r = runCli({"validate", bad});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("$.model.type") && r.err.contains("$.data.batch_size"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(bad), qPrintable(r.err));

    r = runCli({"train", dir.path() + "/missing.json"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("missing.json"), qPrintable(r.err));

    r = runCli({"train", project("synthetic-mlp.json"), "--max-epoch", "zero"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--max-epoch expects a positive integer"), qPrintable(r.err));

    r = runCli({"train", project("synthetic-mlp.json"), "--set", "trainer.devices=[\"cuda:9\"]"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("cuda:9"), qPrintable(r.err));

    r = runCli({"frobnicate"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("usage:"), qPrintable(r.err));
  }

  void trainWritesTheRunDirectoryAndNeverOverwrites() {
    QTemporaryDir dir;
    const QString runDir = dir.path() + "/run";
    Result r = runCli({"train", project("synthetic-mlp.json"), "--run-dir", runDir, "--max-epoch",
                       "2", "--steps-per-epoch", "8", "--set", "data.batch_size=32"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const fs::path run = runDir.toStdString();
    QVERIFY(fs::exists(run / "log.log"));
    QVERIFY(fs::exists(run / "project.json"));
    std::ifstream log(run / "log.log");
    std::string firstLine;
    std::getline(log, firstLine);
    QVERIFY2(firstLine.find("command: towerbench-cli train") != std::string::npos,
             firstLine.c_str());
    const auto stats = nlohmann::json::parse(std::ifstream(run / "stats.json"));
    QCOMPARE(stats.size(), size_t{2});
    QCOMPARE(stats[1]["global_step"].get<int>(), 16);
    QVERIFY(stats[1].contains("cost") && stats[1].contains("train_error"));
    // The frozen project has the overrides applied.
    const auto frozen = nlohmann::json::parse(std::ifstream(run / "project.json"));
    QCOMPARE(frozen["data"]["batch_size"].get<int>(), 32);
    QCOMPARE(frozen["max_epoch"].get<int>(), 2);

    // The same directory again: refused, nothing touched.
    const auto before = fs::last_write_time(run / "stats.json");
    r = runCli({"train", project("synthetic-mlp.json"), "--run-dir", runDir});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("already exists") && r.err.contains("--new-run"), qPrintable(r.err));
    QCOMPARE(fs::last_write_time(run / "stats.json"), before);

    // --new-run starts beside it.
    r = runCli({"train", project("synthetic-mlp.json"), "--run-dir", runDir, "--new-run",
                "--max-epoch", "1", "--steps-per-epoch", "2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(fs::exists(fs::path(runDir.toStdString() + "-1") / "stats.json"));
  }

  void fasterOpenBlasKernelsAreChosenUnlessTheUserChose() {
    // Note [OpenBLAS core restart]. Whatever this CPU is, a run started without
    // OPENBLAS_CORETYPE must not leave faster kernels unused; one started with it, or with
    // TB_NO_BLAS_RESTART, must keep what it was given.
    QTemporaryDir dir;
    const auto train = [&](const QString& name,
                           const std::function<void(QProcessEnvironment&)>& edit) {
      const QString runDir = dir.path() + "/" + name;
      const Result r = runCli({"train", project("synthetic-mlp.json"), "--run-dir", runDir,
                               "--max-epoch", "1", "--steps-per-epoch", "2"},
                              120000, edit);
      return r.exitCode == 0 ? blasLine(runDir) : QString("exit %1: %2").arg(r.exitCode).arg(r.err);
    };
    const auto clean = [](QProcessEnvironment& env) {
      env.remove("OPENBLAS_CORETYPE");
      env.remove("TB_NO_BLAS_RESTART");
      env.remove("TB_OPENBLAS_CORE_BEFORE_RESTART");
    };
    const QString automatic = train("auto", clean);
    QVERIFY2(automatic.contains("OpenBLAS, core "), qPrintable(automatic));
    QVERIFY2(!automatic.contains("could use"), qPrintable(automatic));

    const QString chosen = train("chosen", [&](QProcessEnvironment& env) {
      clean(env);
      env.insert("OPENBLAS_CORETYPE", "Prescott");
    });
    QVERIFY2(chosen.contains("core Prescott") && !chosen.contains("chosen by Towerbench"),
             qPrintable(chosen));

    const QString optedOut = train("opted-out", [&](QProcessEnvironment& env) {
      clean(env);
      env.insert("TB_NO_BLAS_RESTART", "1");
    });
    QVERIFY2(optedOut.contains("OpenBLAS, core ") && !optedOut.contains("chosen by Towerbench"),
             qPrintable(optedOut));
    // Without the restart the log says what was left unused, if anything; with it, nothing is.
    if (automatic.contains("chosen by Towerbench")) {
      QVERIFY2(optedOut.contains("could use"), qPrintable(optedOut));
    }
  }

  void progressIsShownAsPlainLinesWithoutATerminal() {
    QTemporaryDir dir;
    const Result r = runCli({"train", project("synthetic-mlp.json"), "--run-dir",
                             dir.path() + "/run", "--max-epoch", "1", "--steps-per-epoch", "20"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("epoch 1/1 100% 20/20"), qPrintable(r.err));
    QVERIFY2(r.err.contains("it/s, cost="), qPrintable(r.err));
    QVERIFY2(!r.err.contains("\r"), "no carriage returns when stderr is not a terminal");
  }

  void sigintStopsCleanly() {
    QTemporaryDir dir;
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("TB_QUIET");
    process.setProcessEnvironment(env);
    process.start(TB_CLI_PATH, {"train", project("synthetic-mlp.json"), "--run-dir",
                                dir.path() + "/run", "--max-epoch", "1000"});
    QVERIFY(process.waitForStarted());
    const fs::path stats = dir.path().toStdString() + "/run/stats.json";
    QTRY_VERIFY_WITH_TIMEOUT(fs::exists(stats), 60000);  // a few epochs ran
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 130);
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QVERIFY2(err.contains("stop requested"), qPrintable(err));
  }
};

}  // namespace test_Cli

TB_TEST_GUILESS_MAIN(test_Cli::TestCli)
#include "test_Cli.moc"
