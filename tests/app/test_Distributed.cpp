// The `distributed` strategy as users run it: real worker processes of towerbench-cli started by
// `launch`, by the environment-variable contract (set here), and by /usr/bin/torchrun.

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/checkpoint/Checkpoint.h"
#include "engine/comm/WorkerEnvironment.h"
#include "tests/support/CliRun.h"
#include "tests/support/ExpectError.h"
#include "tests/support/Python.h"
#include "tests/support/Ranks.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Distributed {

namespace fs = std::filesystem;

namespace {

const QString kProject = QString(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json";
using tbench::testing::checkpointedRun;
using tbench::testing::freePort;

using Result = tbench::testing::CliResult;  // out: standard output and error, merged

Result run(const QStringList& args, const QProcessEnvironment& env = {}, int timeoutMs = 60000) {
  QProcessEnvironment e = env.isEmpty() ? QProcessEnvironment::systemEnvironment() : env;
  e.remove("TB_QUIET");
  return tbench::testing::runProgram(TB_CLI_PATH, args, e, timeoutMs, /*mergeOutput=*/true);
}

/// The environment of rank `rank` of `world` under the torchrun contract.
QProcessEnvironment rankEnvironment(int rank, int world, int port) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("TB_QUIET");
  return tbench::testing::rankEnvironment(env, rank, world, port);
}

std::unique_ptr<QProcess> startRank(const QProcessEnvironment& env, const QStringList& args) {
  auto process = std::make_unique<QProcess>();
  process->setProcessEnvironment(env);
  process->setProcessChannelMode(QProcess::MergedChannels);
  process->start(TB_CLI_PATH, args);
  return process;
}

/// The largest absolute difference between the weights of two checkpoints.
double maxDifference(const std::string& a, const std::string& b) {
  const auto x = tbench::readCheckpointFile(a).model;
  const auto y = tbench::readCheckpointFile(b).model;
  if (x.size() != y.size()) return 1e9;
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].first != y[i].first) return 1e9;
    worst = std::max(worst, (x[i].second - y[i].second).abs().max().item<double>());
  }
  return worst;
}

QString readText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

/// Runs `program args` and returns "" on success, else the command and what it printed.
QString runTool(const QString& program, const QStringList& args) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(program, args);
  if (!p.waitForFinished(15000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    p.kill();
    return QString("%1 %2: %3")
        .arg(program, args.join(' '), QString::fromUtf8(p.readAll()).trimmed());
  }
  return {};
}

/// Two network namespaces joined by a veth pair (10.99.0.1/24 in the first, 10.99.0.2/24 in
/// the second): two hosts on one link. The destructor deletes them (and so the pair), whatever
/// happened.
class TwoHosts {
 public:
  explicit TwoHosts(QString ip) : ip_(std::move(ip)) {
    const QString tag = QString::number(::getpid());
    ns_ = {"tb" + tag + "a", "tb" + tag + "b"};
    const QString vethA = "tbv" + tag + "a", vethB = "tbv" + tag + "b";  // at most 15 bytes
    const QList<QStringList> steps{{"netns", "add", ns_[0]},
                                   {"netns", "add", ns_[1]},
                                   {"link", "add", vethA, "netns", ns_[0], "type", "veth", "peer",
                                    "name", vethB, "netns", ns_[1]},
                                   {"-n", ns_[0], "addr", "add", "10.99.0.1/24", "dev", vethA},
                                   {"-n", ns_[1], "addr", "add", "10.99.0.2/24", "dev", vethB},
                                   {"-n", ns_[0], "link", "set", vethA, "up"},
                                   {"-n", ns_[1], "link", "set", vethB, "up"},
                                   {"-n", ns_[0], "link", "set", "lo", "up"},
                                   {"-n", ns_[1], "link", "set", "lo", "up"}};
    for (const QStringList& step : steps) {
      error_ = runTool(ip_, step);
      if (!error_.isEmpty()) return;
    }
  }
  ~TwoHosts() {
    for (const QString& ns : ns_) runTool(ip_, {"netns", "del", ns});
  }
  QString error() const { return error_; }
  QString name(int host) const { return ns_[host]; }
  /// A process that runs `args` of the CLI inside host `host`'s namespace.
  std::unique_ptr<QProcess> start(int host, const QProcessEnvironment& env,
                                  const QStringList& args) const {
    auto process = std::make_unique<QProcess>();
    process->setProcessEnvironment(env);
    process->setProcessChannelMode(QProcess::MergedChannels);
    process->start(ip_, QStringList{"netns", "exec", ns_[host], TB_CLI_PATH} + args);
    return process;
  }

 private:
  QString ip_;
  QStringList ns_;
  QString error_;
};

}  // namespace

class TestDistributed : public QObject {
  Q_OBJECT
 private:
  /// Two ranks of batch 32 against one process of batch 64 from the same seed and samples.
  void compareWithOneProcess(const QString& optimizer, double tolerance) {
    QTemporaryDir dir;
    const QString two = dir.filePath("two"), one = dir.filePath("one");
    QStringList common{"--set", "optimizer=" + optimizer};
    // The project's strategy is "simple": launch makes its workers distributed ranks.
    Result r =
        run(QStringList{"launch", "--nproc-per-node", "2", kProject} + checkpointedRun(two, 8, 1) +
            common + QStringList{"--set", "data.batch_size=32"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QVERIFY2(r.out.contains("[rank 1]") && r.out.contains("total batch 32 x 2 ranks = 64"),
             qPrintable(r.out));
    r = run(QStringList{"train", kProject} + checkpointedRun(one, 8, 1) + common +
            QStringList{"--set", "data.batch_size=64"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    const double diff =
        maxDifference((two + "/model-8.pt").toStdString(), (one + "/model-8.pt").toStdString());
    qInfo("%s: max |two ranks - one process| after 8 steps = %g", qPrintable(optimizer), diff);
    QVERIFY2(diff < tolerance, qPrintable(QString::number(diff)));
  }

 private slots:
  void workerEnvironmentContract() {
    using tbench::WorkerEnvironment;
    auto lookup = [](std::map<std::string, std::string> vars) {
      return [vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
      };
    };
    WorkerEnvironment alone = WorkerEnvironment::fromLookup(lookup({}));
    QVERIFY(!alone.launched());
    WorkerEnvironment t =
        WorkerEnvironment::fromLookup(lookup({{"RANK", "3"},
                                              {"WORLD_SIZE", "4"},
                                              {"LOCAL_RANK", "1"},
                                              {"LOCAL_WORLD_SIZE", "2"},
                                              {"MASTER_ADDR", "10.0.0.1"},
                                              {"MASTER_PORT", "1234"},
                                              {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                              {"TORCHELASTIC_RESTART_COUNT", "2"}}));
    QCOMPARE(t.launcher, std::string("torchrun"));
    QCOMPARE(t.rank, 3);
    QCOMPARE(t.localRank, 1);
    QCOMPARE(t.localWorldSize, 2);
    QVERIFY(t.agentStore);
    QCOMPARE(t.keyPrefix, std::string("/worker/attempt_2"));
    QCOMPARE(t.masterPort, 1234);
    WorkerEnvironment s = WorkerEnvironment::fromLookup(lookup({{"SLURM_PROCID", "1"},
                                                                {"SLURM_NTASKS", "2"},
                                                                {"SLURM_LOCALID", "0"},
                                                                {"SLURM_TASKS_PER_NODE", "1(x2)"},
                                                                {"MASTER_ADDR", "node1"},
                                                                {"MASTER_PORT", "29500"}}));
    QCOMPARE(s.launcher, std::string("slurm"));
    QCOMPARE(s.rank, 1);
    QCOMPARE(s.worldSize, 2);
    QCOMPARE(s.localWorldSize, 1);
    QVERIFY(!s.agentStore);
    tbench::testing::expectError(
        [&] {
          WorkerEnvironment::fromLookup(lookup(
              {{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}));
        },
        "RANK/WORLD_SIZE", "rank 2 is outside world size 2");
    tbench::testing::expectError(
        [&] {
          WorkerEnvironment::fromLookup(lookup({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}));
        },
        "MASTER_ADDR", "is not set");
  }

  void twoRanksEqualOneProcessWithSgd() {
    compareWithOneProcess(R"({"type": "sgd", "learning_rate": 0.05, "momentum": 0.9})", 1e-5);
  }

  void twoRanksEqualOneProcessWithAdam() {
    compareWithOneProcess(R"({"type": "adam", "learning_rate": 0.01})", 1e-5);
  }

  void bucketsEqualOneAllReducePerParameter() {
    QTemporaryDir dir;
    const QString buckets = dir.filePath("buckets"), single = dir.filePath("single");
    // Each of the MLP's four parameters in a bucket of its own, overlapping backward.
    Result r = run(
        QStringList{"launch", "--nproc-per-node", "2", kProject} + checkpointedRun(buckets, 8, 1) +
        QStringList{"--set", R"(trainer={"strategy": "distributed", "bucket_mb": 1e-6})"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QVERIFY2(r.out.contains("in 4 bucket(s)"), qPrintable(r.out));
    r = run(
        QStringList{"launch", "--nproc-per-node", "2", kProject} + checkpointedRun(single, 8, 1) +
        QStringList{"--set", R"(trainer={"strategy": "distributed", "reduce": "per_parameter"})"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    const double diff = maxDifference((buckets + "/model-8.pt").toStdString(),
                                      (single + "/model-8.pt").toStdString());
    qInfo("max |buckets - per parameter| after 8 steps = %g", diff);
    QVERIFY2(diff < 1e-6, qPrintable(QString::number(diff)));
  }

  // Issue 25 (F3, F13): each rank validates its share of the batches and the sums are
  // all-reduced, so both ranks report the one-process figures and their plateau rules take the
  // same decision; `cost` is the mean over the ranks, as one process of twice the batch has it.
  void validationIsSharedOutAndEqualsOneProcess() {
    QTemporaryDir dir;
    const QString two = dir.filePath("two"), one = dir.filePath("one");
    const QStringList common{
        "--steps-per-epoch",
        "8",
        "--max-epoch",
        "3",
        "--set",
        R"(callbacks=[{"type": "inference"}, {"type": "lr_on_plateau", "stat": "validation_error", "patience": 0, "threshold": 1.0}, {"type": "model_saver"}])"};
    Result r = run(QStringList{"launch", "--nproc-per-node", "2", kProject, "--run-dir", two} +
                   common + QStringList{"--set", "data.batch_size=32"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QVERIFY2(r.out.contains("[rank 0]") && r.out.contains("validation: 8 of the 16 batches on "
                                                          "this process (shard 0 of 2)"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("validation: 8 of the 16 batches on this process (shard 1 of 2)"),
             qPrintable(r.out));
    // Both ranks print the same figures (the all-reduced sums).
    QStringList lines[2];
    for (const QString& line : r.out.split('\n')) {
      for (int k = 0; k < 2; ++k) {
        if (line.startsWith(QString("[rank %1]").arg(k)) && line.contains("validation_")) {
          lines[k].push_back(line.mid(line.indexOf("validation_")));
        }
      }
    }
    QVERIFY2(lines[0].size() >= 3 * 6, qPrintable(r.out));
    QCOMPARE(lines[1], lines[0]);
    r = run(QStringList{"train", kProject, "--run-dir", one} + common +
            QStringList{"--set", "data.batch_size=64"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    const auto stats = [](const QString& runDir) {
      return nlohmann::json::parse(readText(runDir + "/stats.json").toStdString());
    };
    const nlohmann::json a = stats(two), b = stats(one);
    // Issue 34 (N5): the counts are the whole pass's, the misclassified list rank 0's share,
    // and the file says so (one process: the whole pass, no such entry).
    const auto confusion = [](const QString& runDir) {
      return nlohmann::json::parse(readText(runDir + "/confusion/epoch-1.json").toStdString());
    };
    const nlohmann::json c2 = confusion(two), c1 = confusion(one);
    QCOMPARE(c2["samples"].get<int64_t>(), c1["samples"].get<int64_t>());
    QVERIFY2(c2.value("misclassified_from", "").find("(shard 0 of 2)") != std::string::npos,
             c2.dump().c_str());
    QVERIFY(!c1.contains("misclassified_from"));
    QCOMPARE(a.size(), size_t{3});
    QCOMPARE(b.size(), size_t{3});
    for (size_t e = 0; e < 3; ++e) {
      // Counts are exact; the costs are float32 means of batches of 32 against 64.
      QCOMPARE(a[e]["validation_error"].get<double>(), b[e]["validation_error"].get<double>());
      QVERIFY(std::abs(a[e]["validation_cost"].get<double>() -
                       b[e]["validation_cost"].get<double>()) < 1e-6);
      QVERIFY(std::abs(a[e]["cost"].get<double>() - b[e]["cost"].get<double>()) < 1e-6);
      QCOMPARE(a[e]["learning_rate"].get<double>(), b[e]["learning_rate"].get<double>());
    }
    QCOMPARE(a[2]["learning_rate"].get<double>(), 0.0125);  // halved after epochs 1 and 2
  }

  // Issue 25 (F3): a rank whose parameters left rank 0's is found at the epoch's end and the
  // run stops on every rank, naming it (fault injected: TB_FAULT_DIVERGE_RANK).
  void ranksThatTrainApartStopTheRun() {
    QTemporaryDir dir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TB_FAULT_DIVERGE_RANK", "1");
    const Result r = run(QStringList{"launch", "--nproc-per-node", "2", kProject} +
                             checkpointedRun(dir.filePath("run"), 4, 2),
                         env);
    QVERIFY2(r.exitCode != 0, qPrintable(r.out));
    QVERIFY2(r.out.contains("epoch 1: the parameters of rank 1 (") &&
                 r.out.contains("differ from rank 0's"),
             qPrintable(r.out.right(3000)));
    QVERIFY(!fs::exists(dir.filePath("run/model-8.pt").toStdString()));
  }

  // Early stopping on a stat of each rank's own batches (train_error) stops one rank before
  // the other; the stop is voted after the epoch's callbacks, so every rank stops at that
  // epoch (rank 1 had waited in the next step's all-reduce until timeout_s).
  void earlyStoppingOnOneRankStopsEveryRank() {
    QTemporaryDir dir;
    const Result r =
        run({"launch", "--nproc-per-node", "2", kProject, "--run-dir", dir.filePath("run"),
             "--steps-per-epoch", "2", "--max-epoch", "30", "--set",
             R"(callbacks=[{"type": "early_stopping", "stat": "train_error",
                                         "patience": 1}])"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out.right(3000)));
    const QRegularExpression voted(R"(\[rank (\d)\] .*rank\(s\) stop after epoch (\d+); every)");
    const QRegularExpressionMatch m = voted.match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(r.out.right(3000)));
    const QString epoch = m.captured(2);
    for (int rank : {0, 1}) {
      QVERIFY2(
          r.out.contains(QString("[rank %1] ").arg(rank)) &&
              r.out.contains(QRegularExpression(
                  QString(R"(\[rank %1\] .*training stopped at epoch %2, )").arg(rank).arg(epoch))),
          qPrintable(r.out.right(3000)));
    }
    QVERIFY2(epoch.toInt() < 30, qPrintable(epoch));
    // Rank 0 records the run (run.json): finished early, whichever rank's stat stopped it.
    const auto status = nlohmann::json::parse(readText(dir.filePath("run/run.json")).toStdString());
    QCOMPARE(QString::fromStdString(status.value("state", "")), QString("finished"));
  }

  // Issue 34 (N10, F3): a model with BatchNorm (the TorchScript CNN): every rank's running
  // statistics come from its own batches, and the end-of-epoch broadcast of rank 0's buffers is
  // what makes each rank validate, unsharded, the same model as rank 0. Without it rank 1
  // printed other validation figures than rank 0.
  void batchNormBuffersAreRankZerosAfterEachEpoch() {
    QTemporaryDir dir;
    const QString project = QString(TB_SOURCE_DIR) + "/projects/fashion-mnist-torchscript.json";
    const Result r =
        run(QStringList{"launch", "--nproc-per-node", "2", project, "--run-dir",
                        dir.filePath("run"), "--steps-per-epoch", "3", "--max-epoch", "2", "--set",
                        "data.batch_size=32", "--set", "data.validation.limit=96", "--set",
                        R"(callbacks=[{"type": "inference", "sharded": false}])"},
            {}, 120000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out.right(3000)));
    QStringList lines[2];
    for (const QString& line : r.out.split('\n')) {
      for (int k = 0; k < 2; ++k) {
        if (line.startsWith(QString("[rank %1]").arg(k)) && line.contains("validation_cost")) {
          lines[k].push_back(line.mid(line.indexOf("validation_")));
        }
      }
    }
    QVERIFY2(lines[0].size() >= 2, qPrintable(r.out.right(3000)));
    QCOMPARE(lines[1], lines[0]);
  }

  // Issue 34 (N1): a run that diverged has NaN parameters on every rank; NaN != NaN had made
  // the end-of-epoch check call that "ranks that trained apart" and stop the run, where one
  // process finishes. Both now finish, with a warning that names the divergence.
  void aDivergedRunIsNotRanksTrainingApart() {
    QTemporaryDir dir;
    const Result r = run(QStringList{"launch", "--nproc-per-node", "2", kProject} +
                         checkpointedRun(dir.filePath("run"), 4, 2) +
                         QStringList{"--set", "optimizer.learning_rate=1e30"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out.right(3000)));
    QVERIFY2(!r.out.contains("trained apart"), qPrintable(r.out.right(3000)));
    QVERIFY2(r.out.contains("not finite (NaN or infinite) on every rank"),
             qPrintable(r.out.right(3000)));
    QVERIFY(fs::exists(dir.filePath("run/model-8.pt").toStdString()));
  }

  // Issue 25 (F8): each rank draws its own random numbers (dropout), from (seed, rank, step),
  // so a resumed 2-rank run continues exactly where the uninterrupted one went.
  void dropoutRanksResumeExactly() {
    QTemporaryDir dir;
    const QString whole = dir.filePath("whole"), split = dir.filePath("split");
    const QStringList dropout{"--set", "model.dropout=0.5"};
    Result r = run(QStringList{"launch", "--nproc-per-node", "2", kProject} +
                   checkpointedRun(whole, 4, 2) + dropout);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QVERIFY2(r.out.contains("rank 1 draws its random numbers from (seed 7, rank 1, step)"),
             qPrintable(r.out));
    r = run(QStringList{"launch", "--nproc-per-node", "2", kProject} +
            checkpointedRun(split, 4, 1) + dropout);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    r = run(QStringList{"launch", "--nproc-per-node", "2", kProject, "--resume"} +
            checkpointedRun(split, 4, 2) + dropout);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    const double diff =
        maxDifference((whole + "/model-8.pt").toStdString(), (split + "/model-8.pt").toStdString());
    QCOMPARE(diff, 0.0);
  }

  // Issue 34 (N10, F8): the ranks draw different dropout masks. With the streams every rank
  // had before F8 (one seed, replayed by TB_FAULT_SHARED_RNG) the same 2-rank run trains
  // another model: this fails if the per-step reseed is removed (the resume test above does
  // not: a shared stream resumes exactly too).
  void ranksDrawTheirOwnDropoutMasks() {
    QTemporaryDir dir;
    const QStringList dropout{"--set", "model.dropout=0.5"};
    Result r = run(QStringList{"launch", "--nproc-per-node", "2", kProject} +
                   checkpointedRun(dir.filePath("own"), 4, 2) + dropout);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    QProcessEnvironment shared = QProcessEnvironment::systemEnvironment();
    shared.insert("TB_FAULT_SHARED_RNG", "1");
    r = run(QStringList{"launch", "--nproc-per-node", "2", kProject} +
                checkpointedRun(dir.filePath("shared"), 4, 2) + dropout,
            shared);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out));
    const double diff = maxDifference(dir.filePath("own/model-8.pt").toStdString(),
                                      dir.filePath("shared/model-8.pt").toStdString());
    QVERIFY2(diff > 1e-4, qPrintable(QString::number(diff)));
  }

  void environmentContractAndOneRunDirectory() {
    // torchrun's variables (set here), then SLURM's: each makes `train` a rank.
    for (const bool slurm : {false, true}) {
      QTemporaryDir dir;
      const QString runDir = dir.filePath("run");
      const int port = freePort();
      std::vector<std::unique_ptr<QProcess>> ranks;
      for (int r = 0; r < 2; ++r) {
        QProcessEnvironment env = rankEnvironment(r, 2, port);
        if (slurm) {
          for (const char* v : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"}) {
            env.remove(v);
          }
          env.insert("SLURM_PROCID", QString::number(r));
          env.insert("SLURM_NTASKS", "2");
          env.insert("SLURM_LOCALID", QString::number(r));
        }
        ranks.push_back(startRank(env, QStringList{"train", kProject} +
                                           checkpointedRun(runDir, 4, 2) +
                                           QStringList{"--set", "trainer.strategy=distributed"}));
      }
      for (auto& p : ranks) {
        QVERIFY(p->waitForFinished(60000));
        QVERIFY2(p->exitCode() == 0, p->readAll().constData());
      }
      const QString log = readText(runDir + "/log.log");
      QVERIFY2(log.contains(slurm ? "rank 0 of 2 (slurm" : "rank 0 of 2 (torchrun"),
               qPrintable(log));
      QVERIFY(readText(runDir + "/log-rank1.log").contains("rank 1 of 2"));
      for (const char* file : {"stats.json", "run.json", "project.json", "model-8.pt"}) {
        QVERIFY2(fs::exists((runDir + "/" + file).toStdString()), file);
      }
    }
  }

  void aRankWithAnotherProjectOrWorldSizeIsRefused() {
    for (const bool worldSize : {false, true}) {
      QTemporaryDir dir;
      const int port = freePort();
      const QStringList args = QStringList{"train", kProject} +
                               checkpointedRun(dir.filePath("r"), 4, 1) +
                               QStringList{"--set", "trainer.strategy=distributed"};
      auto zero = startRank(rankEnvironment(0, 2, port), args);
      auto one = worldSize ? startRank(rankEnvironment(1, 3, port), args)
                           : startRank(rankEnvironment(1, 2, port),
                                       args + QStringList{"--set", "optimizer.learning_rate=0.5"});
      QVERIFY(zero->waitForFinished(60000) && one->waitForFinished(60000));
      const QString out0 = zero->readAll(), out1 = one->readAll();
      QCOMPARE(zero->exitCode(), 2);
      QCOMPARE(one->exitCode(), 2);
      QVERIFY2(out1.contains("rank 1") && out1.contains("is refused"), qPrintable(out1));
      QVERIFY2(out0.contains("rank 1") && out0.contains("refused"), qPrintable(out0));
      if (worldSize) QVERIFY2(out1.contains("world size 3"), qPrintable(out1));
    }
  }

  void aRankWithAOneProcessStrategyIsRefused() {
    // torchrun's variables and the project's own "simple" strategy: every rank would train the
    // whole run alone in the same directory.
    QTemporaryDir dir;
    auto rank =
        startRank(rankEnvironment(1, 2, freePort()),
                  QStringList{"train", kProject} + checkpointedRun(dir.filePath("r"), 4, 1));
    QVERIFY(rank->waitForFinished(30000));
    const QString out = rank->readAll();
    QCOMPARE(rank->exitCode(), 2);
    QVERIFY2(out.contains("rank 1 of 2 (torchrun") && out.contains("trainer.strategy \"simple\"") &&
                 out.contains("--set trainer.strategy=distributed"),
             qPrintable(out));
    QVERIFY(!fs::exists(dir.filePath("r").toStdString()));
  }

  void killedRankStopsTheOtherAndResumeFinishes() {
    QTemporaryDir dir;
    const QString runDir = dir.filePath("run");
    const int port = freePort();
    const int timeoutS = 10;
    const QStringList args = QStringList{"train", kProject} + checkpointedRun(runDir, 16, 32) +
                             QStringList{"--set", "trainer.strategy=distributed"};
    std::vector<std::unique_ptr<QProcess>> ranks;
    for (int r = 0; r < 2; ++r) {
      QProcessEnvironment env = rankEnvironment(r, 2, port);
      env.insert("TB_DIST_TIMEOUT_S", QString::number(timeoutS));
      ranks.push_back(startRank(env, args));
      QVERIFY(ranks.back()->waitForStarted());
    }
    // Kill rank 1 once the first checkpoints exist: somewhere inside a later epoch.
    const auto start = std::chrono::steady_clock::now();
    while (!fs::exists((runDir + "/model-32.pt").toStdString())) {
      QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(60));
      QVERIFY(ranks[0]->state() == QProcess::Running);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(static_cast<pid_t>(ranks[1]->processId()), SIGKILL);
    const auto killed = std::chrono::steady_clock::now();
    QVERIFY(ranks[0]->waitForFinished(60000));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
    const QString out = ranks[0]->readAll();
    qInfo("rank 0 ended %.2f s after rank 1 was killed (timeout %d s)", seconds, timeoutS);
    QVERIFY2(ranks[0]->exitCode() == 1, qPrintable(out));
    QVERIFY2(out.contains("rank 1 died or hangs"), qPrintable(out.right(2000)));
    QVERIFY(seconds < timeoutS);
    QVERIFY(readText(runDir + "/run.json").contains("failed"));
    ranks[1]->waitForFinished();

    // The latest checkpoint loads, and --resume continues the same run to its last step.
    const Result r =
        run(QStringList{"launch", "--nproc-per-node", "2", kProject, "--resume"} +
            checkpointedRun(runDir, 16, 32) + QStringList{"--set", "trainer.strategy=distributed"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out.right(3000)));
    QVERIFY2(r.out.contains("resuming from"), qPrintable(r.out.right(3000)));
    QVERIFY(fs::exists((runDir + "/model-512.pt").toStdString()));
    QCOMPARE(tbench::readCheckpointFile((runDir + "/model-512.pt").toStdString()).globalStep,
             int64_t{512});
  }

  void twoHostsOverNetworkNamespaces() {
    // The multi-host path: one rank per "host" (a network namespace), `launch --nnodes 2` on
    // each, rank 0's store and Gloo reached over the veth link, not loopback.
    if (::geteuid() != 0) QSKIP("creating network namespaces needs root (ip netns add)");
    const QString ip =
        QStandardPaths::findExecutable("ip", {"/usr/sbin", "/sbin", "/usr/bin", "/bin"});
    if (ip.isEmpty()) QSKIP("the ip tool (iproute2) is missing");
    TwoHosts hosts(ip);
    if (!hosts.error().isEmpty()) {
      QSKIP(qPrintable("cannot make two network namespaces joined by a veth pair here: " +
                       hosts.error()));
    }
    QTemporaryDir dir;
    const QString runDir = dir.filePath("run");
    const QString port = QString::number(freePort());
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("TB_QUIET");
    env.insert("TB_DIST_TIMEOUT_S", "20");
    std::vector<std::unique_ptr<QProcess>> nodes;
    for (int node = 0; node < 2; ++node) {
      nodes.push_back(hosts.start(node, env,
                                  QStringList{"launch", "--nproc-per-node", "1", "--nnodes", "2",
                                              "--node-rank", QString::number(node), "--master-addr",
                                              "10.99.0.1", "--master-port", port, kProject} +
                                      checkpointedRun(runDir, 4, 1)));
    }
    QStringList outs;
    for (auto& p : nodes) {
      QVERIFY(p->waitForFinished(90000));
      outs.push_back(QString::fromUtf8(p->readAll()));
    }
    for (int node = 0; node < 2; ++node) {
      QVERIFY2(nodes[node]->exitCode() == 0, qPrintable(outs[node].right(3000)));
    }
    QVERIFY2(outs[1].contains("[rank 1]") && outs[1].contains("total batch 64 x 2 ranks = 128"),
             qPrintable(outs[1].right(3000)));
    QVERIFY2(readText(runDir + "/log.log")
                 .contains("rank 0 of 2 (torchrun, local rank 0 of 1, "
                           "master 10.99.0.1:" +
                           port),
             qPrintable(readText(runDir + "/log.log")));
    QVERIFY(readText(runDir + "/log-rank1.log").contains("rank 1 of 2"));
    // Gloo listens on the veth address, not on the loopback address the host name resolves to.
    QVERIFY2(outs[1].contains("Gloo uses 10.99.0.2"), qPrintable(outs[1].left(3000)));
    QVERIFY(fs::exists((runDir + "/model-4.pt").toStdString()));
    // One run: the gradients are averaged over both hosts, so both ranks log the same norm.
    auto gradNorm = [](const QString& log) {
      const int at = log.lastIndexOf("grad_norm: ");
      return at < 0 ? QString() : log.mid(at).section('\n', 0, 0);
    };
    const QString norm0 = gradNorm(readText(runDir + "/log.log"));
    QVERIFY2(!norm0.isEmpty(), qPrintable(readText(runDir + "/log.log").right(2000)));
    QCOMPARE(gradNorm(readText(runDir + "/log-rank1.log")), norm0);
  }

  void torchrunStartsTheWorkers() {
    if (!QFile::exists("/usr/bin/torchrun")) {
      TB_SKIP_WITHOUT_INTEROP("/usr/bin/torchrun is missing (python3-torch)");
    }
    QTemporaryDir dir;
    const QString runDir = dir.filePath("run");
    QProcess torchrun;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("TB_QUIET");
    torchrun.setProcessEnvironment(env);
    torchrun.setProcessChannelMode(QProcess::MergedChannels);
    // Debian's torchrun 1.13 runs on Python 3.11, whose IntFlag iteration skips Std.NONE: the
    // default --redirects 0 / --tee 0 crash it ('NoneType' object has no attribute 'get').
    // Redirecting stdout and teeing it back avoids the zero value.
    torchrun.start(
        "/usr/bin/torchrun",
        QStringList{"--no_python", "--nproc_per_node", "2", "--redirects", "1", "--tee", "1",
                    "--master_port", QString::number(freePort()), TB_CLI_PATH, "train", kProject} +
            checkpointedRun(runDir, 4, 1) + QStringList{"--set", "trainer.strategy=distributed"});
    QVERIFY(torchrun.waitForFinished(120000));
    const QString out = torchrun.readAll();
    QVERIFY2(torchrun.exitCode() == 0, qPrintable(out.right(3000)));
    const QString log = readText(runDir + "/log.log");
    QVERIFY2(log.contains("agent store /worker/attempt_0"), qPrintable(log));
    QVERIFY(fs::exists((runDir + "/model-4.pt").toStdString()));
    QVERIFY(readText(runDir + "/log-rank1.log").contains("rank 1 of 2 (torchrun"));
  }
};

}  // namespace test_Distributed

TB_TEST_GUILESS_MAIN(test_Distributed::TestDistributed)
#include "test_Distributed.moc"
