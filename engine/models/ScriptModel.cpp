#include "engine/models/ScriptModel.h"

#include <torch/csrc/jit/serialization/import.h>
#include <torch/torch.h>

#include <filesystem>
#include <sstream>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"

namespace tbench {

// Note [TorchScript replicas]
// A TorchScript module keeps its parameters as attributes of its object; torch::nn::Module
// keeps them in its own table. ScriptNet registers the module's own tensors (not copies) in a
// tree of plain torch::nn::Modules that mirrors the module's submodules, so "conv1.weight" is
// the same tensor on both sides: the optimizer's in-place updates, `to(device)`
// (Tensor::set_data keeps the TensorImpl) and restoreModel's copies reach the module, and the
// module's forward sees them. Buffers (BatchNorm's running statistics) are registered the same
// way, so the strategies' buffer rules apply. Each tower gets module.deepcopy() (copy() would
// share tensors between towers). train()/eval() are forwarded to the module, whose scripted
// BatchNorm and Dropout read `self.training`; a traced module has that flag folded into its
// graph, which is why loadScriptModule refuses traced modules with such layers.

namespace {

std::string typeName(const torch::jit::Module& m) {
  const auto name = m.type()->name();
  std::string text = name ? name->qualifiedName() : std::string("?");
  if (text.rfind("__torch__.", 0) == 0) text.erase(0, 10);
  return text;
}

/// The mirror of one submodule: named by its TorchScript type (e.g.
/// "torch.nn.modules.batchnorm.BatchNorm2d", which frozenNormLayers recognises), and forwarding
/// train()/eval() to it, so that one layer can be put in eval mode on its own.
class ScriptChild : public torch::nn::Module {
 public:
  explicit ScriptChild(torch::jit::Module module)
      : torch::nn::Module(typeName(module)), module_(std::move(module)) {}
  void train(bool on = true) override {
    torch::nn::Module::train(on);
    module_.train(on);
  }

 private:
  torch::jit::Module module_;
};

/// Registers the direct parameters and buffers of `script` in `holder`, then mirrors each child.
void mirror(torch::nn::Module& holder, const torch::jit::Module& script) {
  for (const auto& p : script.named_parameters(/*recurse=*/false)) {
    holder.register_parameter(p.name, p.value, p.value.requires_grad());
  }
  for (const auto& b : script.named_buffers(/*recurse=*/false)) {
    holder.register_buffer(b.name, b.value);
  }
  for (const auto& child : script.named_children()) {
    auto sub = std::make_shared<ScriptChild>(child.value);
    mirror(*sub, child.value);
    holder.register_module(child.name, sub);
  }
}

/// A deep copy of `prototype` whose parameters are leaves that require gradients as the
/// prototype's do (deepcopy() under autograd would make them clones with a grad_fn).
torch::jit::Module replicaOf(const torch::jit::Module& prototype) {
  torch::jit::Module copy;
  {
    torch::NoGradGuard noGrad;
    copy = prototype.deepcopy();
  }
  std::map<std::string, bool> wantsGrad;
  for (const auto& p : prototype.named_parameters()) wantsGrad[p.name] = p.value.requires_grad();
  for (const auto& p : copy.named_parameters()) {
    p.value.detach_();
    p.value.set_requires_grad(wantsGrad[p.name]);
  }
  return copy;
}

/// Whether any graph node of `block` (or a nested block) reads attribute "training".
bool readsTraining(const torch::jit::Block* block) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::GetAttr && node->s(c10::attr::name) == "training") return true;
    for (const torch::jit::Block* inner : node->blocks()) {
      if (readsTraining(inner)) return true;
    }
  }
  return false;
}

bool modeDependent(const std::string& type) {
  for (const char* word : {"BatchNorm", "Dropout", "InstanceNorm"}) {
    if (type.find(word) != std::string::npos) return true;
  }
  return false;
}

/// The most telling line of a TorchScript error: the last "...Error: ..." line, else the last
/// non-empty one.
std::string essence(const std::string& message) {
  std::istringstream lines(message);
  std::string line, lastError, last;
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    last = line;
    if (line.find("Error: ") != std::string::npos) lastError = line;
  }
  const std::string& chosen = lastError.empty() ? last : lastError;
  const auto start = chosen.find_first_not_of(" \t");
  return start == std::string::npos ? chosen : chosen.substr(start);
}

std::string shapeText(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.scalar_type() << " " << t.sizes();
  return out.str();
}

}  // namespace

ScriptNet::ScriptNet(torch::jit::Module module) : module_(std::move(module)) {
  mirror(*this, module_);
  torch::nn::Module::train(module_.is_training());
}

torch::Tensor ScriptNet::forward(torch::Tensor input) {
  torch::IValue out = module_.forward({std::move(input)});
  TB_CHECK(out.isTensor(), "the TorchScript module's forward returned ", out.tagKind(),
           ", not a tensor");
  return out.toTensor();
}

torch::IValue ScriptNet::call(std::vector<torch::IValue> inputs) {
  return module_.forward(std::move(inputs));
}

void ScriptNet::train(bool on) {
  torch::nn::Module::train(on);
  module_.train(on);
}

torch::jit::Module loadScriptModule(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw InputError(tbench::str(path,
                                 ": no such file (model.path: a TorchScript file saved with "
                                 "torch.jit.script(model).save(path))"));
  }
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    throw InputError(tbench::str(path, ": not a TorchScript file torch::jit::load can read (",
                                 essence(e.what_without_backtrace()), ")"));
  }
  for (const torch::jit::Module& m : module.modules()) {
    const std::string type = typeName(m);
    if (!modeDependent(type)) continue;
    bool reads = false;
    for (const torch::jit::Method& method : m.get_methods()) {
      reads = reads || readsTraining(method.graph()->block());
    }
    if (!reads) {
      throw InputError(
          tbench::str(path, ": a traced module (torch.jit.trace): its ", type,
                      " never reads `training`, so train() and eval() would not change it "
                      "and BatchNorm or Dropout would train or validate in the mode it was "
                      "traced in. Save the module with torch.jit.script(model).save(path) "
                      "instead."));
    }
  }
  if (module.find_method("forward") == c10::nullopt) {
    throw InputError(tbench::str(path, ": the module has no forward method"));
  }
  return module;
}

ScriptModel::ScriptModel(Options options)
    : LossModel(options.loss, options.optimizer, "ScriptModel"), options_(std::move(options)) {
  vectors_ = options_.input.channels == 1 && options_.input.height == 1;
  prototype_ = loadScriptModule(options_.path);
  // Issue 37: a module saved with its parameters' requires_grad off (Towerbench's own
  // TorchScript export, a module frozen before torch.jit.save) validated, then failed at step 1
  // with LibTorch's "element 0 of tensors does not require grad". Its parameters are trained
  // (a parameter group freezes what should not be).
  int64_t frozen = 0;
  for (const auto& p : prototype_.named_parameters()) {
    if (p.value.requires_grad()) continue;
    p.value.set_requires_grad(true);
    ++frozen;
  }
  if (frozen > 0) {
    TB_LOG(Info) << options_.path << ": " << frozen
                 << " parameter(s) were saved with requires_grad off (an export); trained";
  }
  checkAgainstData();
}

std::vector<InputSpec> ScriptModel::inputs() const {
  const ImageShape& s = options_.input;
  return {{"image", torch::kFloat32, {-1, s.channels, s.height, s.width}},
          targetSpec(
              loss() == Loss::Scalar && options_.numTargets > 0 ? Loss::MeanSquaredError : loss(),
              std::max<int64_t>(options_.numTargets, 1))};
}

torch::Tensor ScriptModel::moduleInput(const torch::Tensor& samples) const {
  return vectors_ ? samples.flatten(1) : samples;
}

void ScriptModel::checkAgainstData() const {
  const std::string& path = options_.path;
  const c10::FunctionSchema& schema = prototype_.get_method("forward").function().getSchema();
  const auto& arguments = schema.arguments();
  const size_t wanted = loss() == Loss::Scalar ? 2 : 1;
  size_t required = 0;
  for (size_t i = 1; i < arguments.size(); ++i) {  // 0 is self
    if (!arguments[i].default_value()) ++required;
  }
  const std::string dataSide =
      loss() == Loss::Scalar
          ? tbench::str("(input, ", options_.numTargets > 0 ? "target" : "label", ")")
          : std::string("(input)");
  if (required > wanted || arguments.size() - 1 < wanted) {
    throw InputError(tbench::str(path, ": forward takes ", arguments.size() - 1,
                                 " argument(s) but the cost \"", lossName(loss()),
                                 "\" calls it with ", wanted, " ", dataSide, " from ",
                                 options_.dataName, "; its signature is ", schema));
  }
  for (size_t i = 1; i <= wanted && i < arguments.size(); ++i) {
    const c10::TypePtr& type = arguments[i].type();
    if (!c10::TensorType::get()->isSubtypeOf(*type)) {
      throw InputError(tbench::str(path, ": forward's argument \"", arguments[i].name(), "\" is ",
                                   type->repr_str(), ", but ", options_.dataName,
                                   " gives a Tensor"));
    }
  }

  const ImageShape& s = options_.input;
  const torch::Tensor input = moduleInput(torch::zeros({2, s.channels, s.height, s.width}));
  std::vector<torch::IValue> args{input};
  if (loss() == Loss::Scalar) {
    args.emplace_back(options_.numTargets > 0 ? torch::zeros({2, options_.numTargets})
                                              : torch::zeros({2}, torch::kInt64));
  }
  torch::jit::Module probe = replicaOf(prototype_);
  probe.eval();
  torch::IValue out;
  try {
    torch::NoGradGuard noGrad;
    out = probe.forward(args);
  } catch (const std::exception& e) {
    const auto* c10error = dynamic_cast<const c10::Error*>(&e);
    throw InputError(tbench::str(
        path, ": forward fails on the input of ", options_.dataName, " (", shapeText(input),
        "): ", essence(c10error ? c10error->what_without_backtrace() : e.what())));
  }
  const std::string got = out.isTensor() ? tbench::str("returns ", shapeText(out.toTensor()))
                                         : tbench::str("returns ", out.tagKind());
  const auto refuse = [&](const std::string& expected) {
    throw InputError(tbench::str(path, ": on ", options_.dataName, "'s input (", shapeText(input),
                                 ") forward ", got, ", but the cost \"", lossName(loss()),
                                 "\" needs ", expected));
  };
  if (!out.isTensor() || !out.toTensor().is_floating_point()) refuse("a float tensor");
  const torch::Tensor result = out.toTensor();
  switch (loss()) {
    case Loss::CrossEntropy:
      if (result.dim() != 2 || result.size(0) != 2 || result.size(1) != options_.numClasses) {
        refuse(tbench::str("logits [2, ", options_.numClasses, "] (", options_.dataName, " has ",
                           options_.numClasses, " classes)"));
      }
      break;
    case Loss::MeanSquaredError: {
      const int64_t t = options_.numTargets;
      const bool fits = (result.dim() == 2 && result.size(0) == 2 && result.size(1) == t) ||
                        (t == 1 && result.dim() == 1 && result.size(0) == 2);
      if (!fits)
        refuse(tbench::str("predictions [2, ", t, "] (", options_.dataName, " has ", t,
                           " target(s))"));
      break;
    }
    case Loss::Scalar:
      if (result.numel() != 1) refuse("a single number (the cost)");
      break;
  }
}

std::shared_ptr<torch::nn::Module> ScriptModel::buildTower(const TowerContext&) {
  return std::make_shared<ScriptNet>(replicaOf(prototype_));
}

namespace {
ScriptNet& scriptNet(torch::nn::Module& net) {
  auto* script = dynamic_cast<ScriptNet*>(&net);
  TB_CHECK(script != nullptr, "the replica is not a ScriptNet");
  return *script;
}
}  // namespace

torch::Tensor ScriptModel::scalarCost(torch::nn::Module& net, const Batch& batch) {
  const torch::Tensor input = moduleInput(batch.tensors()[0]);
  const torch::IValue out = scriptNet(net).call({input, batch.tensors()[1]});
  TB_CHECK(out.isTensor(), "the TorchScript module's forward returned ", out.tagKind(),
           ", not the cost");
  return out.toTensor().reshape({});
}

torch::Tensor ScriptModel::predict(torch::nn::Module& net, const Batch& batch) {
  return scriptNet(net).forward(moduleInput(batch.tensors()[0]));
}

}  // namespace tbench
