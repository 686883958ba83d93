// Sweeps (engine/sweep): W&B's sweep keys, grid = the exact product in order, random = the same
// trials from the same seed, inside each distribution's support; a trial's project is the base
// with its values applied and is validated before anything runs; a bad key path or range is
// refused with its path. The hyperband rule stops exactly the trials its thresholds say.
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/SlurmArray.h"
#include "engine/sweep/Sweep.h"
#include "engine/sweep/SweepQueue.h"
#include "engine/sweep/SweepSearch.h"

using namespace tbench;
using nlohmann::json;

namespace {

json baseProject() {
  return readProjectJson(std::string(TB_SOURCE_DIR) + "/projects/synthetic-mlp.json");
}

json sweepDoc(json parameters, const std::string& method = "grid") {
  return {{"format", 1},
          {"name", "t"},
          {"project", "synthetic-mlp.json"},
          {"method", method},
          {"metric", {{"name", "validation_error"}, {"goal", "minimize"}}},
          {"parameters", std::move(parameters)}};
}

QStringList paths(const std::vector<ProjectIssue>& issues) {
  QStringList out;
  for (const auto& i : issues) out << QString::fromStdString(i.path);
  return out;
}

}  // namespace

class TestSweep : public QObject {
  Q_OBJECT
 private slots:
  void gridIsTheProductInOrder() {
    const SweepSpec s = sweepFromJson(
        sweepDoc({{"optimizer.learning_rate", {{"values", {0.1, 0.01, 0.001}}}},
                  {"model.hidden", {{"values", {json::array({16}), json::array({32, 16})}}}},
                  {"data.batch_size", {{"min", 8}, {"max", 9}}}}));  // integer bounds: int_uniform
    QCOMPARE(s.parameters[0].distribution, std::string("int_uniform"));  // data.batch_size
    QCOMPARE(gridSize(s), int64_t{12});
    const json base = baseProject();
    const std::vector<SweepTrial> trials = sweepTrials(s, base);
    QCOMPARE(trials.size(), size_t{12});
    std::set<std::string> distinct;
    for (const auto& t : trials) distinct.insert(t.values.dump());
    QCOMPARE(distinct.size(), size_t{12});
    // Parameters in key order (a JSON object has no other): the first varies slowest.
    QCOMPARE(trials[0].values["data.batch_size"].get<int64_t>(), int64_t{8});
    QCOMPARE(trials[0].values["optimizer.learning_rate"].get<double>(), 0.1);
    QCOMPARE(trials[1].values["optimizer.learning_rate"].get<double>(), 0.01);
    QCOMPARE(trials[3].values["model.hidden"], json::array({32, 16}));
    QCOMPARE(trials[6].values["data.batch_size"].get<int64_t>(), int64_t{9});
    QCOMPARE(trials[11].values["optimizer.learning_rate"].get<double>(), 0.001);
    // A trial's project is the base with its values applied, nothing else changed.
    json expected = base;
    expected["optimizer"]["learning_rate"] = 0.01;
    expected["model"]["hidden"] = json::array({32, 16});
    expected["data"]["batch_size"] = 8;
    QCOMPARE(trials[4].project, expected);
    // run_cap cuts the product.
    json capped = sweepDoc({{"optimizer.learning_rate", {{"values", {0.1, 0.01, 0.001}}}}});
    capped["run_cap"] = 2;
    QCOMPARE(sweepTrials(sweepFromJson(capped), base).size(), size_t{2});
  }

  // Issue 35: the time estimate had ignored a swept batch size. The plan says how much work an
  // epoch of each trial is next to the base project's: samples per epoch (steps x batch x
  // towers); one pass over the same data is the same work; not known otherwise.
  void aPlanWeighsEachTrialsEpochBySamples() {
    json base = baseProject();
    base["steps_per_epoch"] = 10;
    base["data"]["batch_size"] = 32;
    const SweepPlan plan =
        planSweep(sweepFromJson(sweepDoc({{"data.batch_size", {{"values", {32, 64}}}},
                                          {"steps_per_epoch", {{"values", {10, 5, 0}}}}})),
                  base);
    QCOMPARE(plan.epochWork.size(), size_t{6});
    QCOMPARE(plan.epochWork[0], 1.0);        // 32 x 10
    QCOMPARE(plan.epochWork[1], 0.5);        // 32 x 5
    QVERIFY(std::isnan(plan.epochWork[2]));  // one pass: samples not known ahead
    QCOMPARE(plan.epochWork[3], 2.0);        // 64 x 10
    QCOMPARE(plan.epochWork[4], 1.0);        // 64 x 5
    base["steps_per_epoch"] = 0;             // one pass over the data, whatever the batch
    const SweepPlan passes =
        planSweep(sweepFromJson(sweepDoc({{"data.batch_size", {{"values", {32, 64}}}}})), base);
    QCOMPARE(passes.epochWork, (std::vector<double>{1.0, 1.0}));
  }

  void randomIsReproducibleAndInsideEachDistribution() {
    json doc = sweepDoc(
        {{"optimizer.learning_rate",
          {{"min", 1e-4}, {"max", 1e-1}, {"distribution", "log_uniform_values"}}},
         {"data.batch_size", {{"min", 16}, {"max", 128}, {"q", 16}, {"distribution", "q_uniform"}}},
         {"seed", {{"min", 1}, {"max", 5}}},
         {"model.hidden", {{"values", {json::array({8}), json::array({16})}}}}},
        "random");
    doc["run_cap"] = 40;
    doc["seed"] = 7;
    const SweepSpec s = sweepFromJson(doc);
    const json base = baseProject();
    std::vector<SweepTrial> a;
    try {
      a = sweepTrials(s, base);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    const auto b = sweepTrials(s, base);
    QCOMPARE(a.size(), size_t{40});
    std::set<int64_t> seeds;
    double smallest = 1, largest = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(a[i].values, b[i].values);  // the same seed, the same trials
      const double lr = a[i].values["optimizer.learning_rate"].get<double>();
      QVERIFY(lr >= 1e-4 && lr <= 1e-1);
      smallest = std::min(smallest, lr);
      largest = std::max(largest, lr);
      const json batch = a[i].values["data.batch_size"];
      QVERIFY2(batch.is_number_integer(), batch.dump().c_str());  // an integer q gives integers
      QVERIFY(batch.get<int64_t>() % 16 == 0 && batch.get<int64_t>() >= 16 &&
              batch.get<int64_t>() <= 128);
      seeds.insert(a[i].values["seed"].get<int64_t>());
    }
    // Log-uniform: about as many draws in each decade; 40 draws reach both ends' decades.
    QVERIFY2(smallest < 1e-3 && largest > 1e-2,
             qPrintable(QString("%1 .. %2").arg(smallest).arg(largest)));
    QCOMPARE(seeds, (std::set<int64_t>{1, 2, 3, 4, 5}));  // int_uniform reaches both bounds
    doc["seed"] = 8;
    QVERIFY(sweepTrials(sweepFromJson(doc), base)[0].values != a[0].values);
  }

  void everyProblemOfTheSweepIsNamedByItsPath() {
    json doc = sweepDoc(
        {{"optimizer.learning_rate", {{"min", 0.1}, {"max", 0.01}}},
         {"model.hidden", {{"values", json::array()}}},
         {"data.batch_size", {{"min", 0}, {"max", 4}, {"distribution", "log_uniform_values"}}},
         {"seed", {{"values", {1}}, {"distrib", "x"}}}});
    doc["early_terminate"] = {{"type", "hyperband"}, {"max_iter", 27}, {"eta", 1}};
    doc["job"] = "wandb/job:latest";  // W&B Launch's: refused with its reason
    doc["colour"] = "red";
    doc.erase("metric");
    const QStringList found = paths(validateSweepJson(doc));
    for (const char* expected :
         {"$.parameters.optimizer.learning_rate.min", "$.parameters.model.hidden.values",
          "$.parameters.data.batch_size.min", "$.parameters.seed.distrib", "$.early_terminate.s",
          "$.early_terminate.eta", "$.job", "$.colour", "$.metric.name",
          "$.parameters.optimizer.learning_rate.min"}) {
      QVERIFY2(found.contains(expected),
               qPrintable(expected + QString(" not in ") + found.join(", ")));
    }
    try {
      sweepFromJson(doc, "my-sweep.json");
      QFAIL("expected a SweepError");
    } catch (const SweepError& e) {
      QVERIFY(std::string(e.what()).find("my-sweep.json: invalid sweep") == 0);
    }
    // Keys of the wrong type are problems too, never exceptions; a grid too large is refused
    // without enumerating it.
    json typed = sweepDoc({{"seed", {{"min", 0}, {"max", 1000000000}}},
                           {"data.batch_size", {{"values", {8}}, {"mu", "x"}}}});
    typed["name"] = 5;
    const QStringList typedPaths = paths(validateSweepJson(typed));
    for (const char* expected : {"$.name", "$.parameters.data.batch_size.mu", "$.parameters"}) {
      QVERIFY2(typedPaths.contains(expected),
               qPrintable(expected + QString(" not in ") + typedPaths.join(", ")));
    }
    QVERIFY_THROWS_EXCEPTION(SweepError, sweepFromJson(typed));
    // Random search without run_cap runs until stopped (W&B's), made one trial at a time.
    json random = sweepDoc({{"optimizer.learning_rate", {{"min", 0.01}, {"max", 0.1}}}}, "random");
    QVERIFY(validateSweepJson(random).empty());
    QVERIFY(sweepFromJson(random).sequential());
    // What W&B's schema refuses is refused, not ignored: q without a q_ distribution, min == max,
    // mu with uniform, mu/sigma without a distribution, a method W&B's server alone runs.
    json refused =
        sweepDoc({{"data.batch_size", {{"min", 32}, {"max", 256}, {"q", 8}}},
                  {"seed", {{"min", 3}, {"max", 3}}},
                  {"optimizer.learning_rate",
                   {{"min", 0.1}, {"max", 0.2}, {"mu", 0.1}, {"distribution", "uniform"}}},
                  {"optimizer.momentum", {{"mu", 0.9}, {"sigma", 0.01}}}},
                 "custom");
    const QStringList refusedPaths = paths(validateSweepJson(refused));
    for (const char* expected : {"$.parameters.data.batch_size.q", "$.parameters.seed.min",
                                 "$.parameters.optimizer.learning_rate.mu",
                                 "$.parameters.optimizer.momentum.distribution", "$.method"}) {
      QVERIFY2(refusedPaths.contains(expected),
               qPrintable(expected + QString(" not in ") + refusedPaths.join(", ")));
    }
  }

  // W&B's sweep files as W&B users write them: YAML, nested parameters, program/command/entity
  // and a W&B project name with the base project from the command line.
  void aWandbYamlFileReadsAsItsJson() {
    QTemporaryDir dir;
    std::ofstream(dir.filePath("synthetic-mlp.json").toStdString()) << baseProject().dump(2);
    const std::string yaml = dir.filePath("sweep.yaml").toStdString();
    std::ofstream(yaml) << R"(# W&B's form
program: train.py
method: random
entity: my-team
project: synthetic-mlp.json
metric:
  name: validation_error
  goal: minimize
  target: 0.05
run_cap: 6
seed: 3
command:
  - ${env}
  - python
  - ${program}
  - ${args}
parameters:
  optimizer:
    parameters:
      learning_rate:
        min: 1.0e-4
        max: 0.1
        distribution: log_uniform_values
      momentum: {values: [0.0, 0.9]}
  data.batch_size:
    values: [16, 32]
  seed: {value: 7}
early_terminate:
  type: hyperband
  max_iter: 27
  s: 2
  eta: 3
  strict: false
)";
    const std::string jsonPath = dir.filePath("sweep.json").toStdString();
    std::ofstream(jsonPath) << R"({"method": "random", "project": "synthetic-mlp.json",
      "metric": {"name": "validation_error", "goal": "minimize", "target": 0.05},
      "run_cap": 6, "seed": 3,
      "parameters": {"optimizer.learning_rate": {"min": 1e-4, "max": 0.1,
                                                 "distribution": "log_uniform_values"},
                     "optimizer.momentum": {"values": [0.0, 0.9]},
                     "data.batch_size": {"values": [16, 32]}, "seed": {"value": 7}},
      "early_terminate": {"type": "hyperband", "max_iter": 27, "s": 2, "eta": 3,
                          "strict": false}})";
    SweepSpec fromYaml, fromJson;
    try {
      fromYaml = loadSweepFile(yaml);
      fromJson = loadSweepFile(jsonPath);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    const json base = baseProject();
    const auto a = sweepTrials(fromYaml, base);
    const auto b = sweepTrials(fromJson, base);
    QCOMPARE(a.size(), size_t{6});
    for (size_t i = 0; i < a.size(); ++i) QCOMPARE(a[i].values, b[i].values);
    QCOMPARE(fromYaml.parameters.size(), size_t{4});
    QCOMPARE(fromYaml.parameters[1].path, std::string("optimizer.learning_rate"));
    QCOMPARE(*fromYaml.metric.target, 0.05);
    QCOMPARE(fromYaml.earlyTerminate->maxIter, int64_t{27});
    QVERIFY(!fromYaml.earlyTerminate->strict);
    QCOMPARE(hyperbandBands(*fromYaml.earlyTerminate, 100), (std::vector<int64_t>{3, 9}));
    // program, command and entity are noted, not refused.
    QCOMPARE(fromYaml.notes.size(), size_t{3});
    // A W&B project name: the base project comes from the command line, and without it the
    // message says so.
    std::ofstream(yaml) << "method: grid\nproject: sweeps-examples\n"
                           "metric: {name: validation_error}\n"
                           "parameters: {seed: {values: [1, 2]}}\n";
    try {
      loadSweepFile(yaml);
      QFAIL("a W&B project name was read as a file");
    } catch (const SweepError& e) {
      QVERIFY2(std::string(e.what()).find("--base-project") != std::string::npos, e.what());
    }
    const SweepSpec named = loadSweepFile(yaml, dir.filePath("synthetic-mlp.json").toStdString());
    QCOMPARE(sweepTrials(named, base).size(), size_t{2});
    // A file that is neither says which formats are read.
    const std::string bad = dir.filePath("sweep.txt").toStdString();
    std::ofstream(bad) << "method: [grid\n{";
    try {
      loadSweepFile(bad);
      QFAIL("expected a SweepError");
    } catch (const SweepError& e) {
      QVERIFY2(std::string(e.what()).find("neither JSON nor YAML") != std::string::npos, e.what());
    }
    std::ofstream(yaml) << "method: grid\nparameters: [1, 2\n";
    try {
      loadSweepFile(yaml);
      QFAIL("expected a SweepError");
    } catch (const SweepError& e) {
      QVERIFY2(std::string(e.what()).find("YAML syntax error at line") != std::string::npos,
               e.what());
    }
  }

  // W&B's old log_uniform takes exponents: the plan says the range it draws from, and a hint
  // where the bounds look like the values meant (1e-4 .. 0.1 gives 1.0001 .. 1.105).
  void logUniformSaysItTakesExponents() {
    const SweepSpec values =
        sweepFromJson(sweepDoc({{"optimizer.learning_rate",
                                 {{"distribution", "log_uniform"}, {"min", 0.0001}, {"max", 0.1}}},
                                {"data.batch_size",
                                 {{"distribution", "q_log_uniform"},
                                  {"q", 1},
                                  {"min", std::log(32.0)},
                                  {"max", std::log(256.0)}}}},
                               "random"));
    QCOMPARE(values.notes.size(), size_t{2});
    const QString batch = QString::fromStdString(values.notes[0]);
    const QString rate = QString::fromStdString(values.notes[1]);
    QVERIFY2(batch.startsWith("data.batch_size: q_log_uniform takes base-e exponents") &&
                 batch.contains("values 32 to 256") && !batch.contains("_values"),
             qPrintable(batch));
    QVERIFY2(rate.contains("values 1.0001 to 1.10517") && rate.contains("write log_uniform_values"),
             qPrintable(rate));
    // The *_values forms say nothing.
    QVERIFY(
        sweepFromJson(
            sweepDoc({{"optimizer.learning_rate",
                       {{"distribution", "log_uniform_values"}, {"min", 0.0001}, {"max", 0.1}}}},
                     "random"))
            .notes.empty());
  }

  // As W&B's: a grid or random sweep may have no metric (its trials run, none is ranked); a
  // search or a pruning rule needs one.
  void aMetricIsOptionalWhereNothingRanksByIt() {
    json doc = sweepDoc({{"seed", {{"values", {1, 2}}}}});
    doc.erase("metric");
    const SweepSpec grid = sweepFromJson(doc);
    QVERIFY(grid.metric.name.empty());
    QCOMPARE(grid.notes.size(), size_t{1});
    QVERIFY(grid.notes[0].find("no metric") == 0);
    QCOMPARE(planSweep(grid, baseProject()).trials.size(), size_t{2});
    doc["method"] = "bayes";
    QCOMPARE(paths(validateSweepJson(doc)), QStringList{"$.metric.name"});
    doc["method"] = "random";
    QVERIFY(validateSweepJson(doc).empty());
    doc["early_terminate"] = {{"type", "hyperband"}, {"min_iter", 1}};
    QCOMPARE(paths(validateSweepJson(doc)), QStringList{"$.metric.name"});
    doc.erase("early_terminate");
    doc["metric"] = {{"goal", "minimize"}};  // a metric without its name is still refused
    QCOMPARE(paths(validateSweepJson(doc)), QStringList{"$.metric.name"});
  }

  // Every W&B distribution, through its quantile function: inside its support, and W&B's grid
  // of a q_uniform (numpy.arange(min, max, q)) and an int_uniform.
  void everyWandbDistributionSamplesInsideItsSupport() {
    json doc =
        sweepDoc({{"a", {{"min", 2}, {"max", 5}, {"distribution", "inv_log_uniform"}}},
                  {"b", {{"min", 1.0}, {"max", 3.0}, {"q", 2}, {"distribution", "q_log_uniform"}}},
                  {"c", {{"a", 2.0}, {"b", 5.0}, {"distribution", "beta"}}},
                  {"d", {{"a", 2.0}, {"b", 2.0}, {"q", 0.25}, {"distribution", "q_beta"}}},
                  {"e", {{"values", {"x", "y"}}, {"probabilities", {0.9, 0.1}}}},
                  {"f", {{"mu", 1.0}, {"sigma", 0.5}, {"distribution", "log_normal"}}}},
                 "random");
    doc["run_cap"] = 400;
    const SweepSpec s = sweepFromJson(doc);
    QCOMPARE(s.parameters[4].distribution, std::string("categorical_w_probabilities"));
    int xs = 0;
    double betaSum = 0;
    for (int64_t i = 0; i < 400; ++i) {
      const json v = randomTrialValues(s, i);
      const double a = v["a"].get<double>();
      QVERIFY(a >= std::exp(-5.0) && a <= std::exp(-2.0));  // log(1/X) in [2, 5]
      QVERIFY(v["b"].is_number_integer() && v["b"].get<int64_t>() % 2 == 0);
      const double c = v["c"].get<double>();
      QVERIFY(c > 0 && c < 1);
      betaSum += c;
      const double d = v["d"].get<double>();
      QCOMPARE(std::fmod(d, 0.25), 0.0);
      xs += v["e"] == "x" ? 1 : 0;
      QVERIFY(v["f"].get<double>() > 0);
      // Quantile and coordinate are inverses on a continuous distribution.
      QVERIFY(std::abs(s.parameters[2].valueAt(s.parameters[2].coordinateOf(c)).get<double>() - c) <
              1e-9);
    }
    QVERIFY2(std::abs(betaSum / 400 - 2.0 / 7.0) < 0.03, qPrintable(QString::number(betaSum)));
    QVERIFY2(xs > 330 && xs < 390, qPrintable(QString::number(xs)));  // 0.9 of 400
    // Grid: q_uniform enumerates as numpy.arange (max excluded), int_uniform every integer.
    const SweepSpec grid = sweepFromJson(sweepDoc(
        {{"data.batch_size", {{"min", 16}, {"max", 64}, {"q", 16}, {"distribution", "q_uniform"}}},
         {"seed", {{"min", 1}, {"max", 3}}}}));
    const auto trials = sweepTrials(grid, baseProject());
    QCOMPARE(trials.size(), size_t{9});
    QCOMPARE(trials[0].values["data.batch_size"], json(16));
    QCOMPARE(trials[8].values["data.batch_size"], json(48));
    QCOMPARE(trials[8].values["seed"], json(3));
  }

  // random without run_cap, bayes and tpe make trial k as random search's trial k until their
  // models take over; each proposal is reproducible from the sweep's seed and the results.
  void sequentialProposalsAreReproducible() {
    json doc = sweepDoc({{"optimizer.learning_rate",
                          {{"min", 1e-4}, {"max", 1e-1}, {"distribution", "log_uniform_values"}}},
                         {"data.batch_size", {{"values", {16, 32, 64}}}}},
                        "random");
    doc["run_cap"] = 12;
    doc["seed"] = 5;
    const auto capped = sweepTrials(sweepFromJson(doc), baseProject());
    doc.erase("run_cap");
    const SweepSpec open = sweepFromJson(doc);
    for (int64_t i = 0; i < 12; ++i) {
      QCOMPARE(proposeTrialValues(open, i, {}), capped[static_cast<size_t>(i)].values);
    }
    for (const char* method : {"bayes", "tpe"}) {
      doc["method"] = method;
      const SweepSpec s = sweepFromJson(doc);
      std::vector<TrialOutcome> history;
      for (int64_t i = 0; i < 14; ++i) {
        const json v = proposeTrialValues(s, i, history);
        QCOMPARE(proposeTrialValues(s, i, history), v);  // the same inputs, the same trial
        // The metric: best near lr 0.01, batch 32.
        const double lr = v["optimizer.learning_rate"].get<double>();
        const double y = std::pow(std::log10(lr) + 2, 2) + (v["data.batch_size"] == 32 ? 0 : 0.5);
        history.push_back({v, {y}, TrialOutcome::Kind::Done});
        const double l = std::log10(lr);
        QVERIFY(l >= -4 - 1e-9 && l <= -1 + 1e-9);
      }
      doc["seed"] = 6;
      QVERIFY(proposeTrialValues(sweepFromJson(doc), 13, history) !=
              proposeTrialValues(s, 13, history));
      doc["seed"] = 5;
    }
  }

  // The one ranking: a trial that ran to its end outranks a pruned one whose last value (at a
  // band) looks better; failed and running trials have no result.
  void bestTrialIsAFinishedOneBeforeAPrunedOne() {
    SweepState state;
    state.trials.resize(4);
    for (int64_t i = 0; i < 4; ++i) state.trials[static_cast<size_t>(i)].index = i;
    state.trials[0].state = TrialState::Pruned;
    state.trials[0].metric = {0.05};
    state.trials[1].state = TrialState::Finished;
    state.trials[1].metric = {0.5, 0.2};
    state.trials[2].state = TrialState::Failed;
    state.trials[2].metric = {0.01};
    state.trials[3].state = TrialState::Finished;
    state.trials[3].metric = {0.5, 0.1};
    QCOMPARE(rankTrials(state, false), (std::vector<int64_t>{3, 1, 0, 2}));
    QCOMPARE(*bestTrial(state, false), int64_t{3});
    QCOMPARE(*bestTrial(state, true), int64_t{1});
    state.trials[1].state = state.trials[3].state = TrialState::Running;
    QCOMPARE(*bestTrial(state, false), int64_t{0});  // pruned, when nothing finished
    // The one trial that finished diverged (NaN): the best is the pruned one with a value.
    state.trials[3].state = TrialState::Finished;
    state.trials[3].metric = {0.5, std::nan("")};
    QCOMPARE(rankTrials(state, false).front(), int64_t{3});
    QCOMPARE(*bestTrial(state, false), int64_t{0});
    state.trials[0].metric = {std::nan("")};
    QVERIFY(!bestTrial(state, false).has_value());
  }

  // Importance: the parameter the metric depends on comes first, its correlation signed.
  void importanceFindsTheParameterThatMatters() {
    json doc = sweepDoc({{"optimizer.learning_rate", {{"min", 0.0}, {"max", 1.0}}},
                         {"seed", {{"min", 0}, {"max", 1000}}}},
                        "random");
    doc["run_cap"] = 40;
    doc["metric"]["goal"] = "maximize";
    const SweepSpec s = sweepFromJson(doc);
    std::vector<TrialOutcome> trials;
    for (int64_t i = 0; i < 40; ++i) {
      const json v = randomTrialValues(s, i);
      trials.push_back(
          {v, {3.0 * v["optimizer.learning_rate"].get<double>()}, TrialOutcome::Kind::Done});
    }
    const auto imp = sweepImportance(s, trials);
    QCOMPARE(imp.size(), size_t{2});
    QCOMPARE(imp[0].path, std::string("optimizer.learning_rate"));
    QVERIFY(imp[0].importance > 0.7);
    QVERIFY(imp[0].correlation > 0.95);  // the metric grows with it
    QVERIFY(std::abs(imp[1].correlation) < 0.4);
    trials.resize(2);
    QVERIFY(sweepImportance(s, trials).empty());
  }

  void trialsAreValidatedThroughTheRegistryBeforeAnyRuns() {
    const json base = baseProject();
    // A key the project does not have, and a value the registry refuses.
    const SweepSpec s = sweepFromJson(sweepDoc({{"optimizer.learning_rat", {{"values", {0.1}}}},
                                                {"data.batch_size", {{"values", {32, 0}}}}}));
    try {
      sweepTrials(s, base);
      QFAIL("expected a SweepError");
    } catch (const SweepError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("$.optimizer.learning_rat") != std::string::npos, e.what());
      QVERIFY2(what.find("(from $.parameters.optimizer.learning_rat)") != std::string::npos,
               e.what());
      // batch_size 0 fails in the second trial only, and says so.
      QVERIFY2(what.find("trial 1: $.data.batch_size") != std::string::npos, e.what());
      QVERIFY2(what.find("all 2 trials: $.optimizer.learning_rat") != std::string::npos, e.what());
    }
    // A path through a value that is not an object.
    const SweepSpec through = sweepFromJson(sweepDoc({{"seed.x", {{"value", 1}}}}));
    QVERIFY_THROWS_EXCEPTION(SweepError, sweepTrials(through, base));
  }

  void aSweepFileReadsItsProjectBesideIt() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("s.json").toStdString();
    std::ofstream(path) << sweepDoc({{"seed", {{"values", {1, 2}}}}}).dump();
    try {
      loadSweepFile(path);  // no synthetic-mlp.json beside it yet
      QFAIL("a missing base project was not said");
    } catch (const SweepError& e) {
      QVERIFY2(std::string(e.what()).find("cannot read the base project " +
                                          dir.filePath("synthetic-mlp.json").toStdString()) !=
                   std::string::npos,
               e.what());
    }
    std::ofstream(dir.filePath("synthetic-mlp.json").toStdString()) << baseProject().dump();
    const SweepSpec s = loadSweepFile(path);
    QCOMPARE(s.projectPath(), dir.filePath("synthetic-mlp.json").toStdString());
    std::ofstream(path) << "{\"format\": 1,";
    QVERIFY_THROWS_EXCEPTION(SweepError, loadSweepFile(path));
    QVERIFY_THROWS_EXCEPTION(InputError, loadSweepFile(dir.filePath("none.json").toStdString()));
  }

  // Bands 1, 3, 9 (min_iter 1, eta 3). The trials' errors are constructed so that the thresholds
  // are known: at band 1 the values 0.5 0.4 0.3 0.2 0.1 0.6 sorted are 0.1 .. 0.6 and the
  // threshold is the value at position floor(6 / 3) = 2: 0.3.
  void hyperbandStopsExactlyWhatItsRuleSays() {
    const HyperbandSpec spec{1, 3.0};
    QCOMPARE(hyperbandBands(spec, 10), (std::vector<int64_t>{1, 3, 9}));
    QCOMPARE(hyperbandBands({2, 2.0}, 10), (std::vector<int64_t>{2, 4, 8}));
    std::vector<TrialMetrics> trials = {
        {0, {0.5}, true}, {1, {0.4}, true},  {2, {0.3}, true},
        {3, {0.2}, true}, {4, {0.1}, false}, {5, {0.6}, true},
    };
    HyperbandDecision d = hyperbandStops(trials, spec, /*maximize=*/false);
    QCOMPARE(d.bands, (std::vector<int64_t>{1}));
    QCOMPARE(d.thresholds.front(), 0.3);
    QCOMPARE(d.stop, (std::vector<int64_t>{0, 1, 5}));  // worse than 0.3; trial 4 has ended
    QCOMPARE(d.stoppedAt, (std::vector<int64_t>{1, 1, 1}));
    // Maximizing the same numbers: 0.6 0.5 0.4 | 0.3 0.2 (0.1 finished): threshold 0.4.
    d = hyperbandStops(trials, spec, /*maximize=*/true);
    QCOMPARE(d.thresholds.front(), 0.4);
    QCOMPARE(d.stop, (std::vector<int64_t>{2, 3}));
    // A trial is judged at the latest band it passed (3 here, where it is the worst of two),
    // and a diverged value is the worst there is.
    trials = {{0, {0.5, 0.5, 0.1}, true}, {1, {0.4, 0.3, 0.2}, true}, {2, {NAN}, true}};
    d = hyperbandStops(trials, spec, false);
    QCOMPARE(d.bands, (std::vector<int64_t>{1, 3}));
    QCOMPARE(d.thresholds[1], 0.1);  // position floor(2 / 3) = 0 of {0.1, 0.2}
    QCOMPARE(d.stop, (std::vector<int64_t>{1, 2}));
    // Diverged trials are stopped even when they are the threshold themselves.
    d = hyperbandStops({{0, {0.1}, true}, {1, {NAN}, true}, {2, {NAN}, true}}, spec, false);
    QCOMPARE(d.stop, (std::vector<int64_t>{1, 2}));
    // One trial alone is never stopped.
    QVERIFY(hyperbandStops({{0, {9.0}, true}}, spec, false).stop.empty());
  }

  // Issue 34 (N4): bands are int(min_iter · eta^k) cut on the integer, as W&B's: with eta 2.5,
  // band int(6.25) = 6 exists for a 6-value history (it had been dropped until some trial
  // passed 6.25). The review's minimal case: W&B stops trial 0 at band 6 (0.9 > 0.1).
  void hyperbandKeepsTheBandANonIntegerEtaTruncatesTo() {
    const HyperbandSpec spec{1, 2.5};
    QCOMPARE(hyperbandBands(spec, 6), (std::vector<int64_t>{1, 2, 6}));
    QCOMPARE(hyperbandBands(spec, 5), (std::vector<int64_t>{1, 2}));
    const std::vector<TrialMetrics> trials = {{0, {0.5, 0.1, 0.5, 0.5, 0.5, 0.9}, true},
                                              {1, {0.5, 0.5, 0.5, 0.5, 0.5, 0.1}, false}};
    const HyperbandDecision d = hyperbandStops(trials, spec, /*maximize=*/false);
    QCOMPARE(d.bands, (std::vector<int64_t>{1, 2, 6}));
    QCOMPARE(d.stop, (std::vector<int64_t>{0}));
    QCOMPARE(d.stoppedAt, (std::vector<int64_t>{6}));
  }

  // W&B's max_iter form (bands int(max_iter / eta^i), i = 1..s, >= 1, as hyperband_stopping.py
  // computes them) and strict: false (the best value so far, W&B's min(history)). The cases
  // were computed with a transcription of W&B's code; the runs are its docstring's.
  void hyperbandMaxIterAndStrictAreWandBs() {
    const auto bands = [](int64_t maxIter, int64_t s, double eta) {
      HyperbandSpec h;
      h.maxIter = maxIter;
      h.s = s;
      h.eta = eta;
      return hyperbandBands(h, 1000);
    };
    QCOMPARE(bands(27, 3, 3), (std::vector<int64_t>{1, 3, 9}));
    QCOMPARE(bands(81, 3, 3), (std::vector<int64_t>{3, 9, 27}));
    QCOMPARE(bands(5, 2, 2), (std::vector<int64_t>{1, 2}));
    QCOMPARE(bands(100, 4, 2.5), (std::vector<int64_t>{2, 6, 16, 40}));
    QCOMPARE(bands(9, 5, 3), (std::vector<int64_t>{1, 3}));
    QCOMPARE(bands(20, 3, 1.5), (std::vector<int64_t>{5, 8, 13}));
    QCOMPARE(bands(10, 2, 4), (std::vector<int64_t>{2}));
    QCOMPARE(bands(7, 3, 1.3), (std::vector<int64_t>{3, 4, 5}));
    HyperbandSpec h;
    h.maxIter = 5;
    h.s = 2;
    h.eta = 2;
    // W&B's docstring: a and e finished, b stopped (10 > band 2's threshold 8), c and d go on.
    std::vector<TrialMetrics> runs = {{0, {10, 9}, false},
                                      {1, {10, 10}, true},
                                      {2, {10, 8, 8}, true},
                                      {3, {10, 7, 7}, true},
                                      {4, {10, 6, 6}, false}};
    HyperbandDecision d = hyperbandStops(runs, h, false);
    QCOMPARE(d.thresholds, (std::vector<double>{10, 8}));
    QCOMPARE(d.stop, (std::vector<int64_t>{1}));
    // A trial worse at the band but better since: strict stops it, strict: false does not.
    runs.push_back({5, {10, 12, 5}, true});  // band 2 now reads 6 7 8 9 10 12: threshold 9
    QCOMPARE(hyperbandStops(runs, h, false).stop, (std::vector<int64_t>{1, 5}));
    h.strict = false;
    QCOMPARE(hyperbandStops(runs, h, false).stop, (std::vector<int64_t>{1}));
  }

  // Issue 34 (N8): the threshold's position is W&B's int((1/eta) · n), which differs from
  // int(n / eta) for eta 1.1 at n = 33 (33 / 1.1 = 29.999..., (1/1.1) · 33 = 30.000...). With
  // 33 trials at band 1 valued 0, 1, ..., 32 the threshold is the value at that position.
  void hyperbandThresholdIndexIsWandBs() {
    const double eta = 1.1;
    QCOMPARE(static_cast<int>((1.0 / eta) * 33), 30);  // what W&B's Python computes
    QCOMPARE(static_cast<int>(33 / eta), 29);
    std::vector<TrialMetrics> trials;
    for (int i = 0; i < 33; ++i) trials.push_back({i, {static_cast<double>(i)}, true});
    const HyperbandDecision d = hyperbandStops(trials, {1, eta}, /*maximize=*/false);
    QCOMPARE(d.thresholds.front(), 30.0);
    QCOMPARE(d.stop, (std::vector<int64_t>{31, 32}));  // worse than 30
  }

  // control.json: Run Next puts the latest asked first, once; Cancel Trial lists a trial once;
  // a damaged file is refused naming it.
  void requestsToTheQueue() {
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    QVERIFY(readSweepControl(d).runFirst.empty());
    requestTrialNext(d, 3);
    requestTrialNext(d, 5);
    requestTrialNext(d, 3);
    requestTrialCancel(d, 2);
    requestTrialCancel(d, 2);
    const SweepControl c = readSweepControl(d);
    QCOMPARE(c.runFirst, (std::vector<int64_t>{3, 5}));
    QCOMPARE(c.cancel, (std::vector<int64_t>{2}));
    std::ofstream(d + "/control.json") << "{\"run_first\": [1,";
    try {
      readSweepControl(d);
      QFAIL("a damaged control.json was read");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find(d + "/control.json") != std::string::npos, e.what());
    }
  }

  // The sweep queue's GPUs per slot: groups of the project's CUDA towers.
  void gpusPerSlot() {
    const std::vector<std::string> four = {"0", "1", "2", "3"};
    QCOMPARE(gpuSlots(four, 1, 4), (std::vector<std::string>{"0", "1", "2", "3"}));
    QCOMPARE(gpuSlots(four, 1, 2), (std::vector<std::string>{"0", "1"}));
    QCOMPARE(gpuSlots(four, 2, 4), (std::vector<std::string>{"0,1", "2,3"}));
    QCOMPARE(gpuSlots({"3", "5", "6"}, 2, 4), (std::vector<std::string>{"3,5"}));
    QVERIFY(gpuSlots({"0"}, 2, 1).empty());  // fewer GPUs than towers
  }

  void slurmArrayScriptRunsOneTrialPerTask() {
    QCOMPARE(slurmArrayIndices({0, 1, 2, 5, 7, 8}), std::string("0-2,5,7-8"));
    QCOMPARE(slurmArrayIndices({3}), std::string("3"));
    QCOMPARE(shellQuoted("it's here"), std::string("'it'\\''s here'"));
    SlurmArrayOptions o;
    o.cli = "/opt/tb/towerbench-cli";
    o.sweepFile = "/home/u/my sweep.json";
    o.sweepDir = "/shared/sweeps/s";
    o.trials = {1, 2, 4};
    o.maxAtOnce = 2;
    o.cpusPerTask = 8;
    o.gpusPerTask = 1;
    o.jobName = "tb-s";
    o.sbatchArgs = {"--partition=gpu", "--time=2:00:00"};
    o.workDir = "/home/u/project";
    o.jobName = "tb-my sweep";
    const std::string script = slurmArrayScript(o);
    for (const char* line :
         {"#!/bin/bash\n", "\n#SBATCH --job-name=tb-my_sweep\n",
          "\n#SBATCH --chdir=/home/u/project\n", "\n#SBATCH --array=1-2,4%2\n",
          "\n#SBATCH --output=/shared/sweeps/s/slurm-%A_%a.out\n", "\n#SBATCH --cpus-per-task=8\n",
          "\n#SBATCH --gres=gpu:1\n", "\n#SBATCH --partition=gpu\n#SBATCH --time=2:00:00\n",
          "\nexec '/opt/tb/towerbench-cli' sweep '/home/u/my sweep.json' --sweep-dir "
          "'/shared/sweeps/s' --trial \"$SLURM_ARRAY_TASK_ID\"\n"}) {
      QVERIFY2(script.find(line) != std::string::npos, line);
    }
    // Every #SBATCH line comes before the first command (sbatch stops reading them there).
    QVERIFY(script.rfind("#SBATCH") < script.find("\nexec "));
    o.gpusPerTask = 0;
    o.maxAtOnce = 0;
    const std::string cpu = slurmArrayScript(o);
    QVERIFY(cpu.find("--gres") == std::string::npos);
    QVERIFY(cpu.find("#SBATCH --array=1-2,4\n") != std::string::npos);
    // A directory #SBATCH cannot carry is refused, naming it.
    o.sweepDir = "/shared/my sweeps/s";
    try {
      slurmArrayScript(o);
      QFAIL("a sweep directory with a space was written into #SBATCH");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("/shared/my sweeps/s") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_Sweep.moc"
