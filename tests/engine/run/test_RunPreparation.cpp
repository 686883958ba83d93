// One run preparation for every front end, and run.json: the status of a run as data,
// through real runs of a small synthetic project.

#include <QTemporaryDir>
#include <QtTest>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/callbacks/CallbackFactory.h"
#include "engine/core/AtomicFile.h"
#include "engine/project/ProjectAnalysis.h"
#include "engine/project/ProjectJson.h"
#include "engine/run/RunDirectory.h"
#include "engine/run/RunPreparation.h"
#include "tests/support/StepCallbacks.h"
#include "tests/support/TestMain.h"
#include "tests/support/TinyProject.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_RunPreparation {

using namespace tbench;
using tbench::testing::atStep;
namespace fs = std::filesystem;

namespace {

Project smallProject(const std::string& runRoot) { return testing::tinyProject(runRoot); }

RunRequest requestFor(const Project& project, const std::string& runDir = "") {
  RunRequest request;
  request.project = project;
  request.runDir = runDir;
  request.origin = "test_RunPreparation";
  return request;
}

}  // namespace

class TestRunPreparation : public QObject {
  Q_OBJECT
 private slots:
  // Note [One analysis of a project]: what the window shows before a run is what the trainer
  // then counts, for one tower, two towers, a GAN with d_steps 2 and a distributed project.
  void theAnalysisCountsAsThePreparedRun() {
    QTemporaryDir root;
    struct Case {
      const char* what;
      nlohmann::json doc;
      int64_t samplesPerStep;
      int64_t stepsPerEpoch;
    };
    nlohmann::json mlp = projectToJson(smallProject(root.path().toStdString()));
    mlp["steps_per_epoch"] = 0;  // one pass: 64 samples / batch 8
    mlp["callbacks"] = nlohmann::json::array();
    nlohmann::json replicated = mlp;
    replicated["trainer"] = {{"strategy", "sync_replicated"}, {"devices", {"cpu", "cpu"}}};
    nlohmann::json gan = {{"format", 1},
                          {"name", "gan"},
                          {"run_root", root.path().toStdString()},
                          {"model", {{"type", "dcgan"}, {"d_steps", 2}}},
                          {"data",
                           {{"train", {{"type", "fashion-mnist"}, {"limit", 96}}},
                            {"batch_size", 16},
                            {"remainder", true}}},
                          {"optimizer", {{"type", "adam"}, {"learning_rate", 2e-4}}},
                          {"callbacks", nlohmann::json::array()}};
    std::vector<Case> cases = {{"one tower", mlp, 8, 8},
                               {"two towers", replicated, 16, 8},
                               {"a GAN, d_steps 2", gan, 32, 6}};
    for (const Case& c : cases) {
      const ProjectAnalysis a = analyzeProject(c.doc);
      QVERIFY2(a.valid(), a.valid() ? "" : a.issues.front().toString().c_str());
      QCOMPARE(a.samplesPerStep, c.samplesPerStep);
      QCOMPARE(a.stepsPerEpoch, c.stepsPerEpoch);
      auto run = prepareRun(requestFor(projectFromJson(c.doc)));
      QVERIFY2(run->samplesPerStep() == a.samplesPerStep, c.what);
      QVERIFY2(run->loop.stepsPerEpoch == a.stepsPerEpoch, c.what);
    }
    // A strategy of many processes: local_processes of them, each taking its batch.
    nlohmann::json distributed = mlp;
    distributed["trainer"] = {{"strategy", "distributed"}, {"local_processes", 3}};
    const ProjectAnalysis d = analyzeProject(distributed);
    QVERIFY(d.valid());
    QVERIFY(d.manyProcesses);
    QCOMPARE(d.processes, int64_t(3));
    QCOMPARE(d.samplesPerStep, int64_t(24));
    QCOMPARE(d.stepsPerEpoch, int64_t(2));  // each rank's shard: 8 batches / 3 ranks
    // A number JSON can write but a double cannot hold is an issue, not an exception.
    const ProjectAnalysis huge = analyzeProjectText("{\"format\": 1, \"seed\": 1e999}");
    QVERIFY(!huge.valid());
    // The starting rate is the schedule's when it sets one at the start, else the optimizer's.
    nlohmann::json scheduled = mlp;
    scheduled["optimizer"] = {{"type", "sgd"}, {"learning_rate", 0.1}};
    QCOMPARE(analyzeProject(scheduled).startingLearningRate, 0.1);
    scheduled["schedule"] = {{"learning_rate", {{"unit", "epoch"}, {"points", {{0, 0.5}}}}}};
    QCOMPARE(analyzeProject(scheduled).startingLearningRate, 0.5);
    // An invalid document still names its run root and batch; text that does not parse says so.
    nlohmann::json broken = mlp;
    broken["data"]["batch_size"] = 0;
    const ProjectAnalysis b = analyzeProject(broken);
    QVERIFY(!b.valid());
    QCOMPARE(b.runRoot, root.path().toStdString());
    QCOMPARE(b.samplesPerStep, int64_t(0));
    const ProjectAnalysis text = analyzeProjectText("{\"format\": 1,");
    QCOMPARE(text.issues.size(), size_t(1));
    QCOMPARE(text.issues.front().path, std::string("$"));
  }

  void aFinishedRunSaysSoInRunJson() {
    QTemporaryDir root;
    auto run = prepareRun(requestFor(smallProject(root.path().toStdString())));
    QVERIFY(fs::exists(fs::path(run->runDir) / "project.json"));
    // run.json exists from the start, before any step.
    QCOMPARE(readRunStatus(run->runDir)->state, RecordedState::Running);
    QCOMPARE(trainPreparedRun(*run), RecordedState::Finished);
    const auto status = readRunStatus(run->runDir);
    QVERIFY(status.has_value());
    QCOMPARE(status->state, RecordedState::Finished);
    QCOMPARE(status->origin, std::string("test_RunPreparation"));
    QCOMPARE(status->project, std::string("tiny"));
    QCOMPARE(status->epoch, int64_t{2});
    QCOMPARE(status->globalStep, int64_t{6});
    QCOMPARE(status->maxEpoch, int64_t{2});
    QCOMPARE(status->stepsPerEpoch, int64_t{3});
    QCOMPARE(status->pid, int64_t{::getpid()});
    QVERIFY(status->lastScalars.count("cost"));
    QVERIFY(status->lastScalars.count("learning_rate"));
    QVERIFY(!status->ended.empty());
    QVERIFY(status->processAlive());
    const std::string log = readFile(run->runDir + "/log.log");
    QVERIFY(log.find("command: test_RunPreparation") != std::string::npos);
  }

  // Issue 37: early_stopping ends a run as finished (a success), early, saying why; a stop
  // asked for (Stop, Ctrl-C) stays "stopped".
  void anEarlyStoppedRunIsFinished() {
    QTemporaryDir root;
    Project project = smallProject(root.path().toStdString());
    project.maxEpoch = 6;
    // After the first value, no change of the cost counts as an improvement (min_delta 1e9):
    // patience 2 ends the run at epoch 3.
    project.callbacks.push_back(ComponentSpec::of("callback", "early_stopping")
                                    .set("stat", "cost")
                                    .set("patience", 2)
                                    .set("min_delta", 1e9));
    auto run = prepareRun(requestFor(project));
    QCOMPARE(trainPreparedRun(*run), RecordedState::Finished);
    const auto status = readRunStatus(run->runDir);
    QCOMPARE(status->state, RecordedState::Finished);
    QCOMPARE(status->epoch, int64_t{3});
    const std::string log = readFile(run->runDir + "/log.log");
    QVERIFY2(log.find("training finished early at epoch 3") != std::string::npos, log.c_str());
    QVERIFY(log.find("did not improve on") != std::string::npos);
  }

  void stoppedAndFailedRunsSaySoWithTheError() {
    QTemporaryDir root;
    auto stopped = prepareRun(requestFor(smallProject(root.path().toStdString())));
    stopped->built.trainer->registerCallback(atStep(2, [](TrainerContext& c) { c.requestStop(); }));
    QCOMPARE(trainPreparedRun(*stopped), RecordedState::Stopped);
    QCOMPARE(readRunStatus(stopped->runDir)->state, RecordedState::Stopped);
    QCOMPARE(readRunStatus(stopped->runDir)->globalStep, int64_t{2});

    auto failing = prepareRun(requestFor(smallProject(root.path().toStdString()),
                                         root.path().toStdString() + "/failing"));
    failing->built.trainer->registerCallback(
        atStep(4, [](TrainerContext&) { throw std::runtime_error("the disk caught fire"); }));
    std::string error;
    QCOMPARE(trainPreparedRun(*failing, &error), RecordedState::Failed);
    QCOMPARE(error, std::string("the disk caught fire"));
    const auto status = readRunStatus(failing->runDir);
    QCOMPARE(status->state, RecordedState::Failed);
    QCOMPARE(status->error, std::string("the disk caught fire"));
  }

  void aRunThatCannotStartIsRecordedAsFailed() {
    QTemporaryDir root;
    Project project = smallProject(root.path().toStdString());
    project.data.train.type = "idx";
    project.data.train.set("images", root.path().toStdString() + "/missing-images.gz");
    project.data.train.set("labels", root.path().toStdString() + "/missing-labels.gz");
    const std::string dir = root.path().toStdString() + "/broken";
    QVERIFY_THROWS_EXCEPTION(InputError, prepareRun(requestFor(project, dir)));
    const auto status = readRunStatus(dir);
    QVERIFY(status.has_value());
    QCOMPARE(status->state, RecordedState::Failed);
    QVERIFY2(status->error.find("missing-images.gz") != std::string::npos, status->error.c_str());
  }

  void existingDirectoriesAndResumeFollowOneSetOfRules() {
    QTemporaryDir root;
    const Project project = smallProject(root.path().toStdString());
    const std::string dir = root.path().toStdString() + "/run";
    trainPreparedRun(*prepareRun(requestFor(project, dir)));
    // Never overwritten: an error, or a new directory beside it when asked.
    QVERIFY_THROWS_EXCEPTION(RunDirectoryExists, prepareRun(requestFor(project, dir)));
    RunRequest beside = requestFor(project, dir);
    beside.newRunBeside = true;
    QCOMPARE(prepareRun(beside)->runDir, dir + "-1");
    // Resume: more epochs of the same directory, from its latest checkpoint.
    Project longer = project;
    longer.maxEpoch = 3;
    RunRequest resume = requestFor(longer, dir);
    resume.resume = true;
    auto resumed = prepareRun(resume);
    QCOMPARE(resumed->runDir, dir);
    QCOMPARE(trainPreparedRun(*resumed), RecordedState::Finished);
    QCOMPARE(readRunStatus(dir)->globalStep, int64_t{9});
    // Nothing to resume in a directory without a checkpoint.
    RunRequest empty = requestFor(project, root.path().toStdString() + "/empty");
    fs::create_directories(empty.runDir);
    empty.resume = true;
    try {
      prepareRun(empty);
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("nothing to resume") != std::string::npos, e.what());
    }
  }

  void aKilledRunIsToldFromALiveOne() {
    QTemporaryDir root;
    auto run = prepareRun(requestFor(smallProject(root.path().toStdString())));
    RunStatusRecord record = *readRunStatus(run->runDir);
    QVERIFY(record.processAlive());
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);  // a pid that no longer exists
    record.pid = child;
    QVERIFY(!record.processAlive());
  }

  // The run id's format is written and read in one place (RunDirectory.cpp).
  void aRunIdReadsBackAsItsTime() {
    const std::time_t before = std::time(nullptr);
    const std::string id = fs::path(newRunDirectoryPath("/nowhere", "p")).filename().string();
    const std::optional<std::time_t> t = runIdTime(id);
    QVERIFY2(t.has_value(), id.c_str());
    QVERIFY(*t >= before - 1 && *t <= std::time(nullptr));
    QCOMPARE(runIdTime("20250314-101010-2"), runIdTime("20250314-101010"));
    QVERIFY(runIdTime("20250314-101010").has_value());
    for (const char* other :
         {"", "run-1", "20250314-1010", "20250314-101010x", "2025031a-101010"}) {
      QVERIFY2(!runIdTime(other).has_value(), other);
    }
  }

  void aDamagedRunJsonIsAClearError() {
    QTemporaryDir root;
    writeFileAtomically(root.path().toStdString() + "/run.json", "{\"state\": ");
    try {
      readRunStatus(root.path().toStdString());
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("run.json") != std::string::npos, e.what());
    }
    QVERIFY(!readRunStatus(root.path().toStdString() + "/nothing-here").has_value());
    // A state outside the vocabulary is refused by name, not taken for running.
    writeFileAtomically(root.path().toStdString() + "/run.json", "{\"state\": \"paused\"}");
    try {
      readRunStatus(root.path().toStdString());
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("run.json") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("\"paused\"") != std::string::npos, e.what());
    }
    for (RecordedState s : {RecordedState::Running, RecordedState::Finished, RecordedState::Stopped,
                            RecordedState::Failed}) {
      QCOMPARE(recordedStateFromString(toString(s)), std::optional<RecordedState>(s));
    }
    // Found by fuzz_run_status: an integer field written as a float beyond int64_t was cast
    // (undefined behaviour); it is refused by name, an integral float in range still reads.
    writeFileAtomically(root.path().toStdString() + "/run.json",
                        R"({"state": "finished", "pid": 1e300})");
    try {
      readRunStatus(root.path().toStdString());
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("run.json") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("\"pid\" is 1e+300") != std::string::npos, e.what());
    }
    writeFileAtomically(root.path().toStdString() + "/run.json",
                        R"({"state": "finished", "global_step": 12.0,
                            "best": {"cost": {"value": 0.5, "global_step": -4e19}}})");
    try {
      readRunStatus(root.path().toStdString());
      QFAIL("expected an InputError");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("\"global_step\" is -4e+19") != std::string::npos,
               e.what());
    }
    writeFileAtomically(root.path().toStdString() + "/run.json",
                        R"({"state": "running", "global_step": 12.0, "pid": 4294967297})");
    RunStatusRecord status = *readRunStatus(root.path().toStdString());
    QCOMPARE(status.globalStep, int64_t{12});
    QCOMPARE(status.pid, int64_t{4294967297});
    status.host = thisHost();
    QVERIFY(!status.processAlive());  // no pid_t, not pid 1 (4294967297 truncated)
  }
};

}  // namespace test_RunPreparation

TB_TEST_GUILESS_MAIN(test_RunPreparation::TestRunPreparation)
#include "test_RunPreparation.moc"
