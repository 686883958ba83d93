// The built-in trainer strategies: description and factory of each. "devices" is a key every
// strategy has (one tower per device; Builtin.cpp).

#include <algorithm>

#include "engine/comm/DistributedGroup.h"
#include "engine/data/ShardedData.h"
#include "engine/input/FeedInput.h"
#include "engine/input/QueueInput.h"
#include "engine/input/StagingInput.h"
#include "engine/project/builtin/Builtin.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/strategies/AsyncTrainer.h"
#include "engine/strategies/DistributedTrainer.h"
#include "engine/strategies/GanTrainer.h"
#include "engine/strategies/SimpleTrainer.h"
#include "engine/strategies/SyncParameterServerTrainer.h"
#include "engine/strategies/SyncReplicatedTrainer.h"

namespace tbench {

namespace {

KeyDescription queueSizeKey() {
  return key::integer("queue_size", QueueInput::kDefaultCapacity)
      .label("Queue size")
      .help("Capacity of the batch queue filled by a background thread")
      .atLeast(1);
}

KeyDescription producerKey() {
  return key::choice("producer", "auto", {"auto", "thread", "training_thread"})
      .label("Batch producer")
      .help(
          "thread: a background thread fills the queue while the step runs; training_thread: "
          "each batch is made on the training thread when the step asks for it; auto: "
          "training_thread where every tower is on the CPU and the step's intra-op threads take "
          "every core (a producer thread could only run by preempting them), else thread");
}

KeyDescription stagingKey() {
  return key::boolean("staging", true)
      .label("Stage batches on the GPU")
      .help(
          "Copy each CUDA tower's next batch while the current step runs (StagingInput); "
          "nothing to do on CPU towers");
}

KeyDescription psDeviceKey() {
  return key::device("ps_device", "cpu")
      .label("Parameter device")
      .help("Where the master copy of the variables lives");
}

/// A strategy with one tower per device.
ComponentType manyTowers(ComponentType type) {
  type.traits = {{"towers", "many"}};
  return type;
}

/// The check of a strategy that has no GAN form.
std::function<void(const Settings&, CheckContext&)> singleCostOnly(const std::string& strategy) {
  return [strategy](const Settings&, CheckContext& context) {
    if (hasGanModel(context.project)) {
      context.report("",
                     str("strategy \"", strategy, "\" trains single-cost models; the GAN model \"",
                         context.project.model.type,
                         "\" trains with \"simple\", \"queue_input\" or \"sync_replicated\""));
    }
  };
}

ComponentType singleCostOnly(ComponentType type) {
  type.check = singleCostOnly(type.name);
  return type;
}

/// The check of the single-tower strategies.
std::function<void(const Settings&, CheckContext&)> oneDevice(const std::string& strategy) {
  return [strategy](const Settings& s, CheckContext& context) {
    const auto devices = s.strings("devices");
    if (!context.invalid("devices") && devices.size() != 1) {
      context.report("devices", str("strategy \"", strategy, "\" takes exactly one device, got ",
                                    devices.size()));
    }
  };
}

bool isGan(const ModelDescBase& model) {
  return dynamic_cast<const GanModelDesc*>(&model) != nullptr;
}

/// The strategies that have no GAN form refuse a GAN model.
void requireSingleCost(const std::string& strategy, const ModelDescBase& model) {
  if (isGan(model)) {
    throw InputError(str("$.trainer.strategy: \"", strategy,
                         "\" trains single-cost models; a GAN model trains with \"simple\", "
                         "\"queue_input\" or \"sync_replicated\""));
  }
}

std::unique_ptr<TowerTrainer> simpleTrainer(const Settings&, const std::vector<Device>& devices,
                                            const ModelDescBase& model) {
  TB_CHECK(devices.size() == 1, "a single-tower strategy takes one device, got ", devices.size());
  if (isGan(model)) return std::make_unique<GanTrainer>(devices);
  return std::make_unique<SimpleTrainer>(devices.front());
}

/// QueueInput, staged on the GPU (StagingInput) when a tower is on CUDA and "staging" is on.
InputSourcePtr queueInput(DataFlowPtr batches, const Settings& s) {
  auto queue = std::make_shared<QueueInput>(batches, s.integer("queue_size"));
  const std::string producer = s.string("producer");
  if (producer == "thread") queue->setProducer(QueueInput::Producer::Thread);
  if (producer == "training_thread") queue->setProducer(QueueInput::Producer::TrainingThread);
  InputSourcePtr input = queue;
  std::vector<Device> devices;
  for (const std::string& d : s.strings("devices")) devices.push_back(Device::parse(d));
  const bool anyCuda =
      std::any_of(devices.begin(), devices.end(), [](const Device& d) { return d.isCuda(); });
  if (anyCuda && s.boolean("staging")) input = std::make_shared<StagingInput>(input, devices);
  return input;
}

/// The `distributed` strategy: one process per device (docs/ARCHITECTURE.md §6b).
void registerDistributed(ComponentRegistry& registry) {
  ComponentType type = describe(
      "distributed",
      "One process per device (rank), started by towerbench-cli launch, torchrun or SLURM; "
      "gradients averaged with c10d (Gloo on CPU, NCCL on CUDA) during backward; each rank "
      "reads its own shard of every epoch",
      {key::choice("reduce", "buckets", {"buckets", "per_parameter"})
           .label("Gradient reduction")
           .help("buckets: all-reduced while backward runs; per_parameter: one all-reduce per "
                 "parameter after it (the reference)"),
       key::number("bucket_mb", 25)
           .label("Bucket size (MB)")
           .help("Gradients per all-reduce in buckets mode")
           .greaterThan(0),
       key::number("timeout_s", 300)
           .label("Timeout (s)")
           .help("How long a rank waits for a peer before it stops naming it "
                 "(TB_DIST_TIMEOUT_S overrides)")
           .greaterThan(0),
       key::integer("local_processes", 2)
           .label("Local processes")
           .help("How many processes the window's Start launches on this machine "
                 "(towerbench-cli launch --nproc-per-node N); launch, torchrun and SLURM give "
                 "their own count")
           .atLeast(1)});
  type.traits = {{"towers", "one"}, {"processes", "many"}};
  type.check = [](const Settings& s, CheckContext& context) {
    oneDevice("distributed")(s, context);
    singleCostOnly("distributed")(s, context);
    // Issue 25 (F4): each rank takes every world-size-th batch of one order that every rank
    // computes (ShardedData.h); decoding workers that deliver as they finish give every rank
    // another order, so shards would overlap and miss samples.
    // Issue 25 (F12): a short last batch would be averaged with weight 1/W like a full one, and
    // the last W-1 batches of a pass at most would go to no rank (ShardedData.h).
    if (context.project.data.remainder) {
      context.report("",
                     "strategy \"distributed\" gives every rank a full batch each step, but "
                     "data.remainder is true (a short last batch would weigh as much as a full "
                     "one, and up to world-size - 1 batches of each pass would be dropped): set "
                     "\"remainder\": false");
    }
    // Both sources are sharded by position, training and validation (InferenceRunner shares
    // the validation batches out), so the rule holds for both (N3: it had been checked on
    // data.train only, and a validation folder with "ordered": false gave figures that changed
    // from run to run).
    const auto checkOrdered = [&](const ComponentSpec& source, const std::string& where,
                                  const std::string& what) {
      if (source.type == "image_folder" && !source.boolean("ordered") &&
          source.integer("workers") > 0) {
        context.report(
            "", str("strategy \"distributed\" shards the ", what, " by position, but ", where,
                    " has \"ordered\": false, so its order differs in every rank "
                    "(shards would overlap and skip images): set \"ordered\": true"));
      }
    };
    checkOrdered(context.project.data.train, "data.train", "training data");
    if (context.project.data.hasValidation) {
      checkOrdered(context.project.data.validation, "data.validation", "validation data");
    }
  };
  StrategyMaker maker;
  maker.join = [](const Settings& s, const std::string& hash,
                  const std::string& name) -> std::shared_ptr<DistributedGroup> {
    if (auto group = DistributedGroup::current()) return group;
    const WorkerEnvironment env = WorkerEnvironment::fromEnvironment();
    if (!env.launched() || env.worldSize == 1) return nullptr;
    DistributedOptions options;
    const double seconds = env.timeoutOverrideS > 0 ? env.timeoutOverrideS : s.number("timeout_s");
    options.timeout = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
    options.projectHash = hash;
    options.projectName = name;
    return DistributedGroup::join(env, options);
  };
  maker.trainer = [](const Settings& s, const std::vector<Device>& devices,
                     const ModelDescBase& model) -> std::unique_ptr<TowerTrainer> {
    requireSingleCost("distributed", model);
    TB_CHECK(devices.size() == 1, "the distributed strategy takes one device per rank, got ",
             devices.size());
    DistributedTrainerOptions options;
    if (s.string("reduce") == "per_parameter") options.perParameter();
    options.bucketSize(static_cast<int64_t>(s.number("bucket_mb") * (1 << 20)));
    return std::make_unique<DistributedTrainer>(devices.front(), DistributedGroup::current(),
                                                options);
  };
  maker.input = [](DataFlowPtr batches, const Settings&) -> InputSourcePtr {
    // Each rank takes every world-size-th batch of the seeded epoch order (ShardedData.h).
    if (auto group = DistributedGroup::current()) {
      batches = std::make_shared<ShardedData>(batches, group->rank(), group->worldSize());
    }
    return std::make_shared<FeedInput>(batches);
  };
  registerStrategy(registry, type, maker);
}

}  // namespace

void registerBuiltinStrategies(ComponentRegistry& registry) {
  ComponentType simple =
      describe("simple", "One tower; batches are read on the training thread (FeedInput)");
  simple.check = oneDevice("simple");
  simple.traits = {{"towers", "one"}};
  registerStrategy(registry, simple,
                   {simpleTrainer, [](DataFlowPtr batches, const Settings&) -> InputSourcePtr {
                      return std::make_shared<FeedInput>(batches);
                    }});

  ComponentType queue = describe(
      "queue_input", "One tower; a background thread fills a queue of batches (QueueInput)",
      {queueSizeKey(), producerKey(), stagingKey()});
  queue.check = oneDevice("queue_input");
  queue.traits = {{"towers", "one"}};
  registerStrategy(registry, queue, {simpleTrainer, queueInput});

  registerStrategy(registry,
                   singleCostOnly(manyTowers(describe(
                       "sync_parameter_server",
                       "One tower per device; gradients averaged on the parameter device, which "
                       "updates and sends the variables back",
                       {queueSizeKey(), producerKey(), stagingKey(), psDeviceKey()}))),
                   {[](const Settings& s, const std::vector<Device>& devices,
                       const ModelDescBase& model) -> std::unique_ptr<TowerTrainer> {
                      requireSingleCost("sync_parameter_server", model);
                      return std::make_unique<SyncParameterServerTrainer>(
                          devices, Device::parse(s.string("ps_device")));
                    },
                    queueInput});

  ComponentType replicated = manyTowers(
      describe("sync_replicated",
               "One replica per device; gradients all-reduced (NCCL on CUDA), every replica "
               "updates itself",
               {queueSizeKey(), producerKey(), stagingKey(),
                key::boolean("average", true)
                    .label("Average gradients")
                    .help("Average the towers' gradients (on) or sum them (off)"),
                key::boolean("check_replicas", false)
                    .label("Check replicas every epoch")
                    .help("Debug: verify that every replica equals tower 0 after each epoch")}));
  // Issue 25 (F10): GanTrainer's replicas always average and are not checked; a project asking
  // otherwise is refused rather than silently trained another way.
  replicated.check = [](const Settings& s, CheckContext& context) {
    if (!hasGanModel(context.project)) return;
    if (!context.invalid("average") && !s.boolean("average")) {
      context.report("average", str("the GAN model \"", context.project.model.type,
                                    "\" always averages its replicas' gradients"));
    }
    if (!context.invalid("check_replicas") && s.boolean("check_replicas")) {
      context.report("check_replicas", str("not available for the GAN model \"",
                                           context.project.model.type, "\" (GanTrainer)"));
    }
  };
  registerStrategy(registry, replicated,
                   {[](const Settings& s, const std::vector<Device>& devices,
                       const ModelDescBase& model) -> std::unique_ptr<TowerTrainer> {
                      // Note [Trainer state]: a GAN's replicas are GanTrainer's own (same
                      // all-reduce).
                      if (isGan(model)) return std::make_unique<GanTrainer>(devices);
                      SyncReplicatedOptions options;
                      options.average = s.boolean("average");
                      options.checkReplicas = s.boolean("check_replicas");
                      return std::make_unique<SyncReplicatedTrainer>(devices, options);
                    },
                    queueInput});

  registerStrategy(
      registry,
      singleCostOnly(manyTowers(
          describe("async",
                   "One tower per device, each applying its own gradients to the master variables "
                   "without waiting (stale gradients)",
                   {queueSizeKey(), producerKey(), stagingKey(), psDeviceKey()}))),
      {[](const Settings& s, const std::vector<Device>& devices,
          const ModelDescBase& model) -> std::unique_ptr<TowerTrainer> {
         requireSingleCost("async", model);
         return std::make_unique<AsyncTrainer>(devices, Device::parse(s.string("ps_device")));
       },
       queueInput});

  registerDistributed(registry);
}

}  // namespace tbench
