// The kinds of component, the keys every type of a kind has, and the built-in types.

#include "engine/project/builtin/Builtin.h"
#include "engine/core/Names.h"

#include "engine/project/registry/ComponentFactories.h"

namespace tbench {

void registerBuiltinComponents(ComponentRegistry& registry) {
  ComponentKind model{"model",
                      "model type",
                      "Models",
                      "type",
                      "convnet",
                      "$.model",
                      "The network each tower builds: one output per class (or per regression "
                      "target)."};
  registry.addKind(model);

  ComponentKind data{
      "data",
      "source type",
      "Data sources",
      "type",
      "fashion-mnist",
      "$.data.train, $.data.validation",
      "Labelled samples (images, table rows); a validation source's split defaults to \"test\"."};
  data.trailingKeys = {key::integer("limit", 0)
                           .label("Limit")
                           .help("Use only the first `limit` samples")
                           .atLeast(0)
                           .zeroMeans("all samples")};
  registry.addKind(data);

  ComponentKind optimizer{"optimizer",
                          "optimizer type",
                          "Optimizers",
                          "type",
                          "adam",
                          "$.optimizer",
                          "Updates the variables from the gradients of the cost."};
  optimizer.leadingKeys = {key::number(names::kLearningRate, 1e-3)
                               .label("Learning rate")
                               .help("Learning rate, e.g. 1e-3")
                               .greaterThan(0)};
  optimizer.trailingKeys = {
      key::number("weight_decay", 0.0).label("Weight decay").help("Weight decay").atLeast(0),
      key::number("clip_global_norm", 0.0)
          .label("Clip global norm")
          .help("Scale the gradients so that their global L2 norm is at most this")
          .atLeast(0)
          .zeroMeans("off"),
      key::number("clip_value", 0.0)
          .label("Clip value")
          .help("Clamp every gradient element to [-v, v]")
          .atLeast(0)
          .zeroMeans("off"),
      key::boolean("report_grad_norm", true)
          .label("Report gradient norm")
          .help("Put grad_norm (global gradient L2 norm) every grad_norm_every steps and at "
                "every epoch's last step; it reads every gradient once"),
      key::boolean("frozen_batchnorm_eval", true)
          .label("Frozen BatchNorm in eval mode")
          .help("A BatchNorm layer whose parameters param_groups freezes all keeps its running "
                "statistics and uses them in training too (eval mode)"),
      key::integer("grad_norm_every", 10)
          .label("Gradient norm every")
          .help("Steps between two grad_norm values (1: every step, about 5% of a CPU MLP "
                "step; every step anyway with clip_global_norm)")
          .atLeast(1)};
  registry.addKind(optimizer);

  registry.addKind({"callback", "callback type", "Callbacks", "type", "", "$.callbacks[]",
                    "Run in order at the loop's hooks (tensorpack's callbacks)."});
  registry.addKind({"monitor", "monitor", "Monitors", "", "", "$.monitors",
                    "Where the scalars go; each is a boolean key of \"monitors\"."});

  ComponentKind strategy{"strategy",
                         "strategy",
                         "Trainer strategies",
                         "strategy",
                         "queue_input",
                         "$.trainer",
                         "How towers share the work (tensorpack's trainers)."};
  strategy.leadingKeys = {key::devices("devices", {"cpu"})
                              .label("Devices")
                              .help("One tower per device; \"cpu\" may repeat")};
  strategy.trailingKeys = {
      key::integer("accumulate", 1)
          .label("Accumulate gradients")
          .help("Micro-batches per tower and step: each step runs forward and backward on this "
                "many batches and updates once with their mean gradient (a k-times larger batch "
                "in the memory of one)")
          .atLeast(1),
      key::number("ema_decay", 0.0)
          .label("Weight average (EMA) decay")
          .help("Keep an exponential moving average of the weights with this decay (e.g. 0.999), "
                "validate with it and save it in checkpoints beside the raw weights")
          .atLeast(0)
          .below(1)
          .zeroMeans("off")};
  registry.addKind(strategy);

  registerBuiltinModels(registry);
  registerBuiltinData(registry);
  registerBuiltinTableData(registry);
  registerBuiltinImageData(registry);
  registerBuiltinOptimizers(registry);
  registerBuiltinCallbacks(registry);
  registerBuiltinMonitors(registry);
  registerBuiltinStrategies(registry);
}

}  // namespace tbench
