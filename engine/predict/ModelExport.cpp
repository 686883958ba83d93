#include "engine/predict/ModelExport.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/torch.h>

#include <sstream>

#include "engine/checkpoint/WeightsExport.h"
#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/models/ScriptModel.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"

namespace tbench {

namespace {

using nlohmann::json;

json dataEntry(const TrainingState& state) {
  if (state.data.empty() || state.project.empty()) {
    throw InputError(str(state.path,
                         ": the checkpoint has no \"data\" entry (written by a Towerbench "
                         "before it kept one); the network cannot be rebuilt without the data "
                         "files. Export its weights (pt or safetensors) instead"));
  }
  try {
    return json::parse(state.data);
  } catch (const json::exception& e) {
    throw InputError(str(state.path, ": its \"data\" entry is not JSON: ", e.what()));
  }
}

/// A jit module holding copies of `net`'s parameters and buffers under the same names, one
/// jit submodule per child, each of its own class ("<prefix>.<child>").
torch::jit::Module mirrorToScript(const torch::nn::Module& net, const std::string& className) {
  torch::jit::Module out(className);
  out.register_attribute("training", c10::BoolType::get(), false);  // Python's nn.Module has it
  for (const auto& p : net.named_parameters(/*recurse=*/false)) {
    out.register_parameter(p.key(), p.value().detach().clone(), /*is_buffer=*/false);
  }
  for (const auto& b : net.named_buffers(/*recurse=*/false)) {
    out.register_buffer(b.key(), b.value().detach().clone());
  }
  for (const auto& child : net.named_children()) {
    out.register_module(child.key(), mirrorToScript(*child.value(), className + "_" + child.key()));
  }
  return out;
}

/// forward(x) of `inner` behind the source's standardisation, when it has one.
torch::jit::Module withStandardisation(torch::jit::Module inner, const DataFacts& facts) {
  const auto mean = facts.statistics.find("feature_mean");
  const auto stddev = facts.statistics.find("feature_std");
  if (mean == facts.statistics.end() || stddev == facts.statistics.end()) return inner;
  torch::jit::Module outer("__torch__.towerbench.Standardised");
  outer.register_attribute("training", c10::BoolType::get(), false);
  const auto tensorOf = [](const std::vector<double>& values) {
    return torch::tensor(values, torch::kFloat64).to(torch::kFloat32);
  };
  outer.register_buffer("feature_mean", tensorOf(mean->second));
  outer.register_buffer("feature_std", tensorOf(stddev->second));
  outer.register_module("model", inner);
  // Row features [N, D]; the built-in networks flatten what they get.
  outer.define(str("def forward(self, x: Tensor) -> Tensor:\n",
                   "    x = (x.flatten(1) - self.feature_mean) / self.feature_std\n",
                   "    return self.model.forward(x)\n"));
  return outer;
}

}  // namespace

RestoredNetwork restoreNetwork(const TrainingState& state) {
  const json data = dataEntry(state);
  RestoredNetwork out;
  json projectDoc;
  try {
    projectDoc = json::parse(state.project);
  } catch (const json::exception& e) {
    throw InputError(str(state.path, ": its \"project\" entry is not JSON: ", e.what()));
  }
  out.project = projectFromJson(projectDoc, state.path + " (its project)");
  out.project.baseDir = data.value("base_dir", std::string());
  try {
    const auto shape = data.at("input_shape").get<std::vector<int64_t>>();
    TB_CHECK(shape.size() == 3, "input_shape has ", shape.size(), " entries");
    out.context.input = ImageShape{shape[0], shape[1], shape[2]};
    out.context.numClasses = data.at("num_classes").get<int64_t>();
    out.context.numTargets = data.at("num_targets").get<int64_t>();
    out.facts.classNames = data.value("class_names", std::vector<std::string>{});
    out.facts.statistics = data.value("statistics", std::map<std::string, std::vector<double>>{});
  } catch (const std::exception& e) {
    throw InputError(str(state.path, ": its \"data\" entry is malformed: ", e.what()));
  }
  out.context.dataName = "the checkpoint's data";
  out.model =
      buildModel(out.project.model, out.context, out.project.optimizer, out.project.baseDir);
  out.net = out.model->buildTower(TowerContext(0, Device::parse("cpu"), false));
  const RestoreReport report = restoreModel(*out.net, state);
  if (!report.missing.empty() || !report.unexpected.empty() || !report.shapeMismatch.empty()) {
    throw InputError(str(state.path, ": its tensors do not fit the network its project builds\n",
                         report.toString()));
  }
  out.net->eval();
  return out;
}

torch::jit::Module scriptModuleOf(const RestoredNetwork& network) {
  torch::jit::Module inner;
  if (const auto* script = dynamic_cast<const ScriptNet*>(network.net.get())) {
    torch::NoGradGuard noGrad;
    inner = script->script().deepcopy();
  } else {
    const auto* classifier = dynamic_cast<const ClassifierNet*>(network.net.get());
    const std::string source = classifier ? classifier->scriptForward() : std::string();
    if (source.empty()) {
      throw InputError(str("model type \"", network.project.model.type,
                           "\" has no TorchScript form; export its weights instead"));
    }
    inner = mirrorToScript(*network.net, "__torch__.towerbench." + network.project.model.type);
    inner.define(source);
  }
  inner.eval();
  torch::jit::Module out = withStandardisation(inner, network.facts);
  out.eval();
  return out;
}

void exportTorchScript(const std::string& checkpointPath, const std::string& outPath,
                       bool weightAverage) {
  TrainingState state = readCheckpointFile(checkpointPath);
  if (weightAverage) state = withWeightAverage(std::move(state));
  const RestoredNetwork network = restoreNetwork(state);
  std::ostringstream bytes;
  scriptModuleOf(network).save(bytes);
  writeFileAtomically(outPath, bytes.str());
}

void exportCheckpoint(const std::string& checkpointPath, const std::string& format,
                      const std::string& outPath, bool weightAverage) {
  if (format == "torchscript") {
    exportTorchScript(checkpointPath, outPath, weightAverage);
  } else if (format == "pt" || format == "safetensors") {
    exportWeights(checkpointPath, format, outPath, weightAverage);
  } else {
    throw InputError(str("unknown export format \"", format,
                         "\" (expected \"pt\", \"safetensors\" or \"torchscript\")"));
  }
}

}  // namespace tbench
