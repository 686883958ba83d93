// The optimizers a project file builds follow PyTorch: the same tiny MLP, batches and
// hyper-parameters, trained for 20 steps by /usr/bin/python3's torch.optim and by
// optimizerFactory, end with parameters that agree to 1e-6; gradient clipping (the project's
// clip_global_norm and clip_value) follows torch.nn.utils.clip_grad_norm_ / clip_grad_value_.

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/project/ProjectBuilder.h"
#include "engine/train/GradientProcessing.h"
#include "tests/support/Python.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Optimizers {

using nlohmann::json;
using namespace tbench;

namespace {

constexpr double kTolerance = 1e-6;
/// How far every case must move the parameters, and sibling cases must end apart, in Python:
/// both far above kTolerance, so a factory that drops a setting fails the comparison.
constexpr double kMinMove = 1e-3;
constexpr double kMinSiblingGap = 1e-4;

const std::vector<std::string> kParamNames = {"W1", "b1", "W2", "b2"};

/// One optimizer configuration, trained on both sides.
struct Case {
  std::string name;
  ComponentSpec spec;
};

ComponentSpec makeSpec(const std::string& type, double learningRate, double momentum = 0.0,
                       bool nesterov = false, double weightDecay = 0.0) {
  ComponentSpec spec = ComponentSpec::of("optimizer", type);
  spec.set("learning_rate", learningRate);
  spec.set("momentum", momentum);
  spec.set("nesterov", nesterov);
  spec.set("weight_decay", weightDecay);
  // Spelled out rather than taken from the registry's defaults: Python gets these values.
  spec.set("beta1", 0.9);
  spec.set("beta2", 0.999);
  spec.set("eps", 1e-8);
  return spec;
}

ComponentSpec clipped(ComponentSpec spec, double globalNorm, double value) {
  spec.set("clip_global_norm", globalNorm);
  spec.set("clip_value", value);
  return spec;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"sgd", makeSpec("sgd", 0.1)},
      {"sgd_momentum", makeSpec("sgd", 0.1, 0.9)},
      {"sgd_momentum_weight_decay", makeSpec("sgd", 0.1, 0.9, false, 1e-2)},
      {"sgd_nesterov", makeSpec("sgd", 0.1, 0.9, true)},
      {"adam", makeSpec("adam", 1e-2)},
      {"adam_weight_decay", makeSpec("adam", 1e-2, 0.0, false, 1e-2)},
      {"adamw", makeSpec("adamw", 1e-2, 0.0, false, 1e-2)},
      {"rmsprop", makeSpec("rmsprop", 1e-2)},
      {"rmsprop_momentum", makeSpec("rmsprop", 1e-2, 0.9)},
      {"sgd_clip_norm", clipped(makeSpec("sgd", 0.1), 0.2, 0.0)},
      {"adam_clip_value", clipped(makeSpec("adam", 1e-2), 0.0, 0.02)},
      {"sgd_momentum_clip_both", clipped(makeSpec("sgd", 0.1, 0.9), 0.3, 0.05)},
  };
  return all;
}

/// Pairs of cases that differ in one behaviour (momentum, weight decay, nesterov, coupled vs
/// decoupled decay): PyTorch must end them apart, or the comparison could not tell them apart.
const std::vector<std::pair<std::string, std::string>> kSiblings = {
    {"sgd", "sgd_momentum"},          {"sgd_momentum", "sgd_momentum_weight_decay"},
    {"sgd_momentum", "sgd_nesterov"}, {"adam", "adam_weight_decay"},
    {"adam_weight_decay", "adamw"},   {"adam", "adamw"},
    {"rmsprop", "rmsprop_momentum"},  {"sgd", "sgd_clip_norm"},
    {"adam", "adam_clip_value"},      {"sgd_momentum", "sgd_momentum_clip_both"},
};

// Run by /usr/bin/python3 with the cases' JSON file as argv[1]. Every hyper-parameter the
// LibTorch options have is passed explicitly, set to what optimizerFactory leaves at LibTorch's
// default (SGD dampening 0; Adam/AdamW amsgrad false; RMSprop alpha 0.99, centered false).
const char* kPythonScript = R"PY(
import json, sys
import torch
import torch.nn.functional as F

cases = json.load(open(sys.argv[1]))
torch.manual_seed(1234)
torch.set_num_threads(1)
init = {
    "W1": torch.randn(5, 6) * 0.5, "b1": torch.randn(5) * 0.1,
    "W2": torch.randn(3, 5) * 0.5, "b2": torch.randn(3) * 0.1,
}
batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(20)]
names = ["W1", "b1", "W2", "b2"]

def make(params, c):
    t = c["type"]
    if t == "sgd":
        return torch.optim.SGD(params, lr=c["lr"], momentum=c["momentum"], dampening=0.0,
                               weight_decay=c["weight_decay"], nesterov=c["nesterov"])
    if t == "adam":
        return torch.optim.Adam(params, lr=c["lr"], betas=(c["beta1"], c["beta2"]),
                                eps=c["eps"], weight_decay=c["weight_decay"], amsgrad=False)
    if t == "adamw":
        return torch.optim.AdamW(params, lr=c["lr"], betas=(c["beta1"], c["beta2"]),
                                 eps=c["eps"], weight_decay=c["weight_decay"], amsgrad=False)
    if t == "rmsprop":
        return torch.optim.RMSprop(params, lr=c["lr"], alpha=0.99, eps=c["eps"],
                                   weight_decay=c["weight_decay"], momentum=c["momentum"],
                                   centered=False)
    raise ValueError("unknown optimizer type " + t)

final = {}
for c in cases:
    p = {n: init[n].clone().requires_grad_(True) for n in names}
    opt = make([p[n] for n in names], c)
    for x, y in batches:
        opt.zero_grad()
        logits = torch.relu(x.matmul(p["W1"].t()) + p["b1"]).matmul(p["W2"].t()) + p["b2"]
        F.cross_entropy(logits, y).backward()
        if c["clip_global_norm"] > 0:
            torch.nn.utils.clip_grad_norm_([p[n] for n in names], c["clip_global_norm"])
        if c["clip_value"] > 0:
            torch.nn.utils.clip_grad_value_([p[n] for n in names], c["clip_value"])
        opt.step()
    final[c["name"]] = {n: p[n].detach().double().flatten().tolist() for n in names}

print(json.dumps({
    "init": {n: {"shape": list(init[n].shape), "values": init[n].double().flatten().tolist()}
             for n in names},
    "batches": [{"x": x.double().flatten().tolist(), "y": y.tolist()} for x, y in batches],
    "final": final,
}))
)PY";

/// A float32 tensor of `shape` from JSON numbers (float32 values printed as doubles: exact).
torch::Tensor floatTensor(const json& values, std::vector<int64_t> shape) {
  return torch::tensor(values.get<std::vector<double>>(), torch::kDouble)
      .to(torch::kFloat)
      .reshape(shape);
}

double maxAbsDiff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kDouble) - b.to(torch::kDouble)).abs().max().item<double>();
}

bool writeFile(const QString& path, const std::string& text) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) &&
         file.write(text.data(), static_cast<qint64>(text.size())) ==
             static_cast<qint64>(text.size());
}

using Params = std::map<std::string, torch::Tensor>;

/// The largest absolute difference over all parameters.
double maxAbsDiff(const Params& a, const Params& b) {
  double largest = 0.0;
  for (const auto& name : kParamNames) {
    largest = std::max(largest, maxAbsDiff(a.at(name), b.at(name)));
  }
  return largest;
}

}  // namespace

class TestOptimizers : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  Params init_;
  std::vector<std::pair<torch::Tensor, torch::Tensor>> batches_;  ///< x [8,6] float, y [8] long
  std::map<std::string, Params> pythonFinal_;                     ///< by case name

  /// Python's final parameters, reshaped like the initial ones.
  Params pythonFinal(const json& final) const {
    Params params;
    for (const auto& name : kParamNames) {
      params[name] = floatTensor(final.at(name), init_.at(name).sizes().vec());
    }
    return params;
  }

  /// The parameters after 20 steps of optimizerFactory(spec) on the reference batches.
  Params trainInCpp(const ComponentSpec& spec) const {
    Params p;
    std::vector<torch::Tensor> ordered;
    for (const auto& name : kParamNames) {
      p[name] = init_.at(name).clone().set_requires_grad(true);
      ordered.push_back(p[name]);
    }
    auto optimizer = optimizerFactory(spec)(ordered);
    const auto clipping = GradientProcessing()
                              .clipGlobalNorm(spec.number("clip_global_norm"))
                              .clipValue(spec.number("clip_value"))
                              .reportNorm(false);
    for (const auto& [x, y] : batches_) {
      optimizer->zero_grad();
      // The same operations as the Python side (matmul + add, not the fused linear).
      auto logits = torch::relu(x.matmul(p["W1"].t()) + p["b1"]).matmul(p["W2"].t()) + p["b2"];
      torch::nn::functional::cross_entropy(logits, y).backward();
      processGradients(ordered, clipping);
      optimizer->step();
    }
    for (auto& [name, tensor] : p) tensor = tensor.detach();
    return p;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QProcess probe;
    probe.start("/usr/bin/python3", {"-c", "import torch"});
    if (!probe.waitForFinished(60000) || probe.exitStatus() != QProcess::NormalExit ||
        probe.exitCode() != 0) {
      TB_SKIP_WITHOUT_INTEROP("/usr/bin/python3 cannot import torch (package python3-torch)");
    }

    json specs = json::array();
    for (const Case& c : cases()) {
      specs.push_back({{"name", c.name},
                       {"type", c.spec.type},
                       {"lr", c.spec.number("learning_rate")},
                       {"momentum", c.spec.number("momentum")},
                       {"nesterov", c.spec.boolean("nesterov")},
                       {"weight_decay", c.spec.number("weight_decay")},
                       {"beta1", c.spec.number("beta1")},
                       {"beta2", c.spec.number("beta2")},
                       {"eps", c.spec.number("eps")},
                       {"clip_global_norm", c.spec.number("clip_global_norm")},
                       {"clip_value", c.spec.number("clip_value")}});
    }
    const QString scriptPath = dir_.filePath("reference.py");
    const QString casesPath = dir_.filePath("cases.json");
    QVERIFY(writeFile(scriptPath, kPythonScript));
    QVERIFY(writeFile(casesPath, specs.dump()));

    QProcess python;
    python.start("/usr/bin/python3", {scriptPath, casesPath});
    QVERIFY2(python.waitForFinished(120000), "the reference script did not finish in 120 s");
    const QByteArray stderrText = python.readAllStandardError();
    QVERIFY2(python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0,
             qPrintable("the reference script failed:\n" + QString::fromUtf8(stderrText)));

    const json reference = json::parse(python.readAllStandardOutput().toStdString());
    for (const auto& name : kParamNames) {
      const json& entry = reference.at("init").at(name);
      init_[name] = floatTensor(entry.at("values"), entry.at("shape").get<std::vector<int64_t>>());
    }
    for (const json& batch : reference.at("batches")) {
      batches_.emplace_back(floatTensor(batch.at("x"), {-1, 6}),
                            torch::tensor(batch.at("y").get<std::vector<int64_t>>(), torch::kLong));
    }
    QCOMPARE(batches_.size(), size_t{20});
    for (const Case& c : cases()) {
      pythonFinal_[c.name] = pythonFinal(reference.at("final").at(c.name));
    }
  }

  // The reference trajectories are worth comparing against: every case trains, and cases
  // that differ in one setting end apart.
  void pythonCasesMoveAndDiffer() {
    for (const Case& c : cases()) {
      const double moved = maxAbsDiff(pythonFinal_.at(c.name), init_);
      QVERIFY2(moved > kMinMove, qPrintable(QString("%1 moved the parameters by only %2")
                                                .arg(QString::fromStdString(c.name))
                                                .arg(moved)));
    }
    for (const auto& [a, b] : kSiblings) {
      const double gap = maxAbsDiff(pythonFinal_.at(a), pythonFinal_.at(b));
      qInfo("%s vs %s: end %.3g apart", a.c_str(), b.c_str(), gap);
      QVERIFY2(gap > kMinSiblingGap, qPrintable(QString("%1 and %2 end only %3 apart")
                                                    .arg(QString::fromStdString(a))
                                                    .arg(QString::fromStdString(b))
                                                    .arg(gap)));
    }
  }

  void matchesPyTorch_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases().size(); ++i) {
      QTest::newRow(cases()[i].name.c_str()) << static_cast<int>(i);
    }
  }

  void matchesPyTorch() {
    QFETCH(int, index);
    const Case& c = cases()[static_cast<size_t>(index)];
    const Params cpp = trainInCpp(c.spec);
    const Params& python = pythonFinal_.at(c.name);

    // Both sides run the same LibTorch kernels in the same order: here they agree bitwise.
    qInfo("%s: largest deviation from PyTorch %.3g", c.name.c_str(), maxAbsDiff(cpp, python));
    for (const auto& name : kParamNames) {
      const double deviation = maxAbsDiff(cpp.at(name), python.at(name));
      QVERIFY2(deviation <= kTolerance,
               qPrintable(QString("%1: %2 deviates from PyTorch by %3 (tolerance %4)")
                              .arg(QString::fromStdString(c.name))
                              .arg(QString::fromStdString(name))
                              .arg(deviation)
                              .arg(kTolerance)));
    }
  }
};

}  // namespace test_Optimizers

TB_TEST_GUILESS_MAIN(test_Optimizers::TestOptimizers)
#include "test_Optimizers.moc"
