// The built-in callbacks: description and factory of each.

#include <algorithm>

#include "engine/callbacks/CheckNumerics.h"
#include "engine/callbacks/DumpTensorAsImage.h"
#include "engine/callbacks/EarlyStopping.h"
#include "engine/callbacks/EstimatedTimeLeft.h"
#include "engine/callbacks/GpuUtilizationTracker.h"
#include "engine/callbacks/PeriodicTrigger.h"
#include "engine/callbacks/ProgressBar.h"
#include "engine/callbacks/StatMonitorParamSetter.h"
#include "engine/callbacks/ThroughputTracker.h"
#include "engine/comm/DistributedGroup.h"
#include "engine/core/Check.h"
#include "engine/core/Names.h"
#include "engine/inference/TopKAccuracy.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectStructure.h"
#include "engine/project/builtin/Builtin.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/savers/MinMaxSaver.h"
#include "engine/savers/ModelSaver.h"
#include "engine/train/GanModelDesc.h"

namespace tbench {

namespace {

/// Note [One run, one directory]: a saver writes into rank 0's run directory only; the other
/// ranks of a multi-process run leave it out (buildRun).
///
/// Note [Chief-only callbacks]: as tensorpack's callbacks are chief_only by default, so are the
/// ones that only report (progress_bar, estimated_time_left), look at rank 0's images
/// (dump_images, gan_samples) or check a state every rank shares (check_numerics: the
/// parameters are equal on every rank, DistributedTrainer checks it each epoch, and a NaN cost
/// on any rank reaches every parameter through the all-reduce). `inference` runs on every rank,
/// each on its share of the batches (Note [Sharded validation]); hyper-parameter setters run
/// everywhere (tensorpack's HyperParamSetter too), and rank 0's values are broadcast after each
/// epoch's triggers (Note [Ranks stay one model]).
ComponentType rankZeroOnly(ComponentType type) {
  type.traits["ranks"] = "zero";
  return type;
}

KeyDescription everyKEpochs() {
  return key::integer("every_k_epochs", 1)
      .label("Every k epochs")
      .help("Run every k epochs")
      .atLeast(1);
}

KeyDescription statKey() {
  return key::string("stat")
      .label("Statistic")
      .help("The scalar to watch, e.g. validation_error")
      .required()
      .notEmpty()
      .suggestions(knownScalars());
}

/// Runs `callback` every k epochs (k > 1) through tensorpack's PeriodicTrigger.
CallbackPtr everyK(CallbackPtr callback, int64_t k) {
  if (k <= 1) return callback;
  return std::make_shared<PeriodicTrigger>(callback, PeriodicTriggerOptions().epochs(k));
}

/// The CUDA devices a run uses (every device key of its strategy): what a gpu_tracker watches.
std::vector<int> cudaIndicesOf(const ComponentSpec& trainer) {
  std::vector<int> indices;
  for (const KeyDescription& k : ComponentRegistry::global().keysOf(trainer.kind, trainer.type)) {
    std::vector<std::string> devices;
    if (k.type == ValueType::Device) devices = {trainer.string(k.name)};
    if (k.type == ValueType::DeviceList) devices = trainer.strings(k.name);
    for (const auto& text : devices) {
      const Device device = Device::parse(text);
      if (device.isCuda()) indices.push_back(device.index);
    }
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

}  // namespace

std::vector<int> trackedCudaDevices(const ComponentSpec& trainer, int localRank) {
  std::vector<int> indices = cudaIndicesOf(trainer);
  if (localRank >= 0 && trainer.type == "distributed" && !indices.empty()) return {localRank};
  return indices;
}

void registerBuiltinCallbacks(ComponentRegistry& registry) {
  ComponentType progress =
      describe("progress_bar", "A progress bar per epoch on the terminal (tqdm-like)",
               {key::strings("scalars", {})
                    .label("Scalars")
                    .help("Scalars shown on the bar, e.g. \"cost, train_error\"")
                    .suggestions(knownScalars())});
  progress.starter = {{"scalars", {"cost"}}};
  // Note [Chief-only callbacks]: what only reports, or acts on rank 0's state, runs on rank 0.
  progress = rankZeroOnly(progress);
  registerCallback(registry, progress, [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
    return std::make_shared<ProgressBar>(s.strings("scalars"));
  });
  registerCallback(registry,
                   rankZeroOnly(describe("estimated_time_left",
                                         "Logs the estimated time left after each epoch")),
                   [](const Settings&, CallbackBuildContext&) -> CallbackPtr {
                     return std::make_shared<EstimatedTimeLeft>();
                   });
  registerCallback(registry,
                   describe("throughput", "Puts steps/s and samples/s (ThroughputTracker)"),
                   [](const Settings&, CallbackBuildContext&) -> CallbackPtr {
                     return std::make_shared<ThroughputTracker>();
                   });

  const ModelSaver::Options saver;
  registerCallback(registry,
                   rankZeroOnly(describe(
                       "model_saver", "Saves checkpoints to the run directory and keeps the newest",
                       {key::integer("max_to_keep", saver.maxToKeep())
                            .label("Keep")
                            .help("How many of the newest checkpoints to keep")
                            .atLeast(1),
                        key::number("keep_every_hours", saver.keepCheckpointEveryNHours())
                            .label("Keep one every (hours)")
                            .help("Also keep one checkpoint per this many hours for good")
                            .atLeast(0)
                            .zeroMeans("none"),
                        everyKEpochs()})),
                   [](const Settings& s, CallbackBuildContext& context) -> CallbackPtr {
                     auto modelSaver = std::make_shared<ModelSaver>(
                         ModelSaver::Options()
                             .maxToKeep(s.integer("max_to_keep"))
                             .keepCheckpointEveryNHours(s.number("keep_every_hours")));
                     if (!context.modelSaver) context.modelSaver = modelSaver;
                     return everyK(modelSaver, s.integer("every_k_epochs"));
                   });

  ComponentType minSaver = describe(
      "min_saver", "Keeps the checkpoint with the lowest value of a scalar (min-<stat>.pt)",
      {statKey()});
  // A max saver gets no starter stat: no scalar the engine puts is better when larger.
  minSaver.starter = {{"stat", "validation_error"}};
  minSaver = rankZeroOnly(minSaver);
  registerCallback(registry, minSaver, [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
    return std::make_shared<MinSaver>(s.string("stat"));
  });
  registerCallback(
      registry,
      rankZeroOnly(describe(
          "max_saver", "Keeps the checkpoint with the highest value of a scalar (max-<stat>.pt)",
          {statKey()})),
      [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
        return std::make_shared<MaxSaver>(s.string("stat"));
      });

  ComponentType inference =
      describe("inference", "Runs the validation data: puts validation_cost and validation_error",
               {everyKEpochs(),
                key::boolean("sharded", true)
                    .label("Share out among ranks")
                    .help("In a distributed run each rank validates every world-size-th batch "
                          "and the sums are all-reduced (the one-process figures in 1/W of the "
                          "time); off: every rank validates the whole set"),
                key::integers("top_k", {})
                    .label("Top-k accuracies")
                    .help("Also put validation_top<k>_accuracy for each k: the share of samples "
                          "whose label is among the k largest logits (a classifier's)")});
  inference.check = [](const Settings& s, CheckContext& context) {
    if (!context.project.data.hasValidation) {
      context.report("", "an \"inference\" callback needs validation data ($.data.validation)");
    }
    for (int64_t k : s.integers("top_k")) {
      if (k < 1) context.report("top_k", str("each k must be >= 1, got ", k));
    }
  };
  registerCallback(
      registry, inference, [](const Settings& s, CallbackBuildContext& context) -> CallbackPtr {
        TB_CHECK(context.trainingFacts && context.model,
                 "an inference callback is built by buildRun, after the model");
        auto runner = buildInferenceRunner(context.project, *context.trainingFacts, *context.model);
        runner->setSharding(s.boolean("sharded"));
        const std::vector<std::string> outputs = context.model->inferenceOutputNames();
        const auto has = [&](const char* name) {
          return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
        };
        for (int64_t k : s.integers("top_k")) {
          if (!has("logits") || !has("label")) {
            throw InputError(
                str("$.callbacks: inference's top_k needs a classifier (the model's "
                    "logits and labels); model \"",
                    context.project.model.type, "\" has none"));
          }
          runner->addInferencer(std::make_shared<TopKAccuracy>(k));
        }
        return everyK(runner, s.integer("every_k_epochs"));
      });

  registerCallback(
      registry,
      rankZeroOnly(describe("check_numerics",
                            "Stops the run when the cost or a parameter is NaN or infinite",
                            {key::integer("every_k_steps", 0)
                                 .label("Every k steps")
                                 .help("Check the parameters every k steps")
                                 .atLeast(0)
                                 .zeroMeans("every epoch")})),
      [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
        return std::make_shared<CheckNumerics>(s.integer("every_k_steps"));
      });

  const StatMonitorParamSetter::Options plateau;
  ComponentType lrOnPlateau =
      describe("lr_on_plateau",
               "Multiplies the learning rate by a factor when a scalar stops improving: "
               "PyTorch's ReduceLROnPlateau rule (StatMonitorParamSetter)",
               {statKey(),
                key::number("factor", plateau.factor_)
                    .label("Factor")
                    .help("The learning rate is multiplied by this; not 1 (> 1 raises it)")
                    .greaterThan(0),
                key::integer("patience", plateau.patience_)
                    .label("Patience (epochs)")
                    .help("Epochs without improvement tolerated: the rate changes after "
                          "patience + 1 (as ReduceLROnPlateau's patience)")
                    .atLeast(0),
                key::number("threshold", plateau.threshold_)
                    .label("Threshold")
                    .help("Smaller improvements do not count (relative or absolute, see "
                          "threshold_mode)")
                    .atLeast(0),
                key::choice("threshold_mode", plateau.thresholdMode_, {"rel", "abs"})
                    .label("Threshold mode")
                    .help("rel: better means beyond best x (1 -/+ threshold); abs: beyond best "
                          "-/+ threshold"),
                key::integer("cooldown", plateau.cooldown_)
                    .label("Cooldown (epochs)")
                    .help("Epochs after a change during which epochs without improvement are "
                          "not counted")
                    .atLeast(0),
                key::choice("mode", plateau.maximize_ ? "max" : "min", {"min", "max"})
                    .label("Better when")
                    .help("min: lower is better (an error); max: higher is better (an accuracy)"),
                key::number("min_value", plateau.minValue_)
                    .label("Minimum rate")
                    .help("The learning rate never goes below this (min_lr)")
                    .atLeast(0)});
  lrOnPlateau.starter = {{"stat", "validation_error"}};
  lrOnPlateau.check = [](const Settings& s, CheckContext& context) {
    if (!context.invalid("factor") && s.number("factor") == 1.0) {
      context.report("factor", "must not be 1 (< 1 lowers the rate, > 1 raises it)");
    }
  };
  registerCallback(registry, lrOnPlateau,
                   [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
                     return std::make_shared<StatMonitorParamSetter>(
                         names::kLearningRate, s.string("stat"),
                         StatMonitorParamSetter::Options()
                             .factor(s.number("factor"))
                             .patience(s.integer("patience"))
                             .threshold(s.number("threshold"))
                             .thresholdMode(s.string("threshold_mode"))
                             .cooldown(s.integer("cooldown"))
                             .maximize(s.string("mode") == "max")
                             .minValue(s.number("min_value")));
                   });

  const EarlyStopping::Options early;
  ComponentType earlyStopping = describe(
      "early_stopping",
      "Ends training when a scalar stops improving (Keras' and Lightning's EarlyStopping): a "
      "success, finished early",
      {statKey(),
       key::choice("mode", early.maximize_ ? "max" : "min", {"min", "max"})
           .label("Better when")
           .help("min: lower is better (an error); max: higher is better (an accuracy)"),
       key::integer("patience", early.patience_)
           .label("Patience (epochs)")
           .help("Epochs without improvement after which training ends")
           .atLeast(1),
       key::number("min_delta", early.minDelta_)
           .label("Minimum improvement")
           .help("A change of the scalar by this much or less is no improvement (absolute)")
           .atLeast(0)});
  earlyStopping.starter = {{"stat", "validation_error"}};
  registerCallback(registry, earlyStopping,
                   [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
                     return std::make_shared<EarlyStopping>(
                         s.string("stat"), EarlyStopping::Options()
                                               .patience(s.integer("patience"))
                                               .minDelta(s.number("min_delta"))
                                               .maximize(s.string("mode") == "max"));
                   });

  ComponentType dumpImages = describe(
      "dump_images",
      "Puts a model output (or the input) for the first validation samples as an image grid "
      "every epoch (DumpTensorAsImage)",
      {key::string("output", DumpTensorAsImage::kInputComponent)
           .label("Output")
           .help("The model output to show, [N, C, H, W] with C 1 or 3; \"input\": the "
                 "validation images as the model sees them")
           .notEmpty()
           .suggestions({DumpTensorAsImage::kInputComponent}),
       key::string("name", "")
           .label("Image name")
           .help(
               "The name in TensorBoard, images/<name>/ and the window; empty: validation_<output>")
           .placeholder("validation_<output>"),
       key::integer("samples", 16)
           .label("Samples")
           .help("Validation samples shown")
           .atLeast(1)
           .atMost(1024),
       key::integer("columns", 0)
           .label("Columns")
           .help("Images per row")
           .atLeast(0)
           .zeroMeans("a square grid"),
       key::number("low", 0.0).label("Black at").help("The value shown black (lower ones too)"),
       key::number("high", 1.0).label("White at").help("The value shown white (higher ones too)"),
       key::integer("padding", 1)
           .label("Padding")
           .help("Pixels between the images")
           .atLeast(0)
           .atMost(16),
       everyKEpochs()});
  dumpImages = rankZeroOnly(dumpImages);
  dumpImages.check = [](const Settings& s, CheckContext& context) {
    if (!context.project.data.hasValidation) {
      context.report("", "a \"dump_images\" callback needs validation data ($.data.validation)");
    }
    if (!context.invalid("low") && !context.invalid("high") &&
        !(s.number("low") < s.number("high"))) {
      context.report("high", "must be greater than low");
    }
  };
  registerCallback(
      registry, dumpImages, [](const Settings& s, CallbackBuildContext& context) -> CallbackPtr {
        TB_CHECK(context.trainingFacts, "a dump_images callback is built by buildRun");
        const Project& project = context.project;
        OpenRequest request;
        request.seed = project.seed;
        request.training = context.trainingFacts;
        OpenedSource validation = openDataSource(project.data.validation, request, project.baseDir);
        const std::string output = s.string("output");
        std::string name = s.string("name");
        if (name.empty()) name = "validation_" + output;
        auto dump = std::make_shared<DumpTensorAsImage>(
            name, validation.flow, s.integer("samples"), output,
            ImageGridOptions()
                .range(s.number("low"), s.number("high"))
                .columns(s.integer("columns"))
                .padding(static_cast<int>(s.integer("padding"))));
        return everyK(dump, s.integer("every_k_epochs"));
      });

  ComponentType ganSamples = describe(
      "gan_samples",
      "Puts the generator's images for a fixed batch of noise as a grid every epoch: the same "
      "noise each time, so the grids show the generator learning (DumpTensorAsImage)",
      {key::integer("count", 64)
           .label("Samples")
           .help("Images in the grid")
           .atLeast(1)
           .atMost(1024),
       key::integer("columns", 8)
           .label("Columns")
           .help("Images per row")
           .atLeast(0)
           .zeroMeans("a square grid"),
       key::integer("noise_seed", 1)
           .label("Noise seed")
           .help("Seeds the fixed noise (its own generator: the run's random numbers are not "
                 "touched)")
           .atLeast(0),
       everyKEpochs()});
  ganSamples = rankZeroOnly(ganSamples);
  ganSamples.check = [](const Settings&, CheckContext& context) {
    if (!hasGanModel(context.project)) {
      context.report("", str("a \"gan_samples\" callback needs a GAN model (such as \"dcgan\"); "
                             "model \"",
                             context.project.model.type, "\" has no generator"));
    }
  };
  registerCallback(
      registry, ganSamples, [](const Settings& s, CallbackBuildContext& context) -> CallbackPtr {
        const auto* gan = dynamic_cast<const GanModelDesc*>(context.model.get());
        if (!gan) {
          throw InputError(str("$.callbacks: \"gan_samples\" needs a GAN model; model \"",
                               context.project.model.type, "\" has no generator"));
        }
        auto generator =
            at::detail::createCPUGenerator(static_cast<uint64_t>(s.integer("noise_seed")));
        torch::Tensor noise = gan->sampleNoise(s.integer("count"), generator);
        auto dump =
            std::make_shared<DumpTensorAsImage>("samples", Datapoint{noise}, "samples",
                                                ImageGridOptions().columns(s.integer("columns")));
        return everyK(dump, s.integer("every_k_epochs"));
      });

  registerCallback(
      registry,
      describe("gpu_tracker", "Puts the utilization and memory of the run's CUDA devices (NVML)"),
      [](const Settings&, CallbackBuildContext& context) -> CallbackPtr {
        const auto group = DistributedGroup::current();
        return std::make_shared<GpuUtilizationTracker>(trackedCudaDevices(
            context.project.trainer, group ? group->environment().localRank : -1));
      });
}

}  // namespace tbench
