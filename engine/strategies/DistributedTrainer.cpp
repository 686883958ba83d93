#include "engine/strategies/DistributedTrainer.h"

#include <torch/torch.h>

#include <cmath>
#include <cstdlib>

#include "engine/core/Check.h"
#include "engine/core/DeviceDiscovery.h"
#include "engine/core/HostRead.h"
#include "engine/core/Logging.h"
#include "engine/data/SeededRng.h"
#include "engine/train/TorchDevice.h"

namespace tbench {

uint64_t rankStepSeed(uint64_t seed, int rank, int64_t step) {
  // Stream 0x52414e4b ("RANK") + rank of the seed, then the step within it.
  return mixSeed(mixSeed(seed, 0x52414e4bULL + static_cast<uint64_t>(rank)),
                 static_cast<uint64_t>(step));
}

namespace {

/// Float64 sums over the parameters (of the values and of their squares, weighted by the
/// parameter's position): equal on ranks with equal parameters, up to the summation order.
double parameterChecksum(const std::vector<torch::Tensor>& params) {
  torch::NoGradGuard noGrad;
  if (params.empty()) return 0;
  // Summed where the parameters are, in float64, and read once (Note [Host reads]).
  torch::Tensor sum = torch::zeros({}, params.front().options().dtype(torch::kDouble));
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor p = params[i].detach().to(sum.device(), torch::kDouble);
    sum += static_cast<double>(i + 1) * p.sum() + p.square().sum();
  }
  return hostItem<double>(sum);
}

}  // namespace

DistributedTrainer::DistributedTrainer(Device device, std::shared_ptr<DistributedGroup> group,
                                       DistributedTrainerOptions options)
    : SimpleTrainer(device), group_(std::move(group)), options_(options) {}

DistributedTrainer::~DistributedTrainer() = default;

void DistributedTrainer::requestStop() {
  if (!group_) {
    SingleCostTrainer::requestStop();
    return;
  }
  stopAsked_.store(true);
}

void DistributedTrainer::buildTowers() {
  if (accumulation() > 1) {
    throw InputError(
        "trainer.accumulate: the distributed strategy does not accumulate gradients (its "
        "all-reduce runs during backward); use it with accumulate 1, or accumulate with "
        "simple, queue_input, replicated, parameter_server or async");
  }
  Device device = devices().front();
  if (device.isCuda() && group_) {
    device.index = group_->environment().localRank;
    // Before anything touches CUDA: without GPUs this says why, on every rank alike.
    nccl_ = std::make_unique<NcclRankCommunicator>(*group_, device.index);
  }
  requireAvailable(device);
  // The project's seed (setupTrainWithConfig seeded the generator with it), before a resume
  // restores another state: Note [Rank random streams].
  baseSeed_ = at::detail::getDefaultCPUGenerator().current_seed();
  buildTower(device);
  if (group_ && !nccl_) {
    reducer_ = std::make_unique<GradientReducer>(module().parameters(), *group_, options_.reduce,
                                                 options_.bucketBytes);
    reducer_->enableTiming(options_.timing);
    TB_LOG(Info) << "distributed: rank " << rank() << " of " << worldSize() << " on "
                 << device.toString() << ", gradients averaged with Gloo "
                 << (options_.reduce == GradientReducer::Mode::Buckets
                         ? str("in ", reducer_->numBuckets(), " bucket(s) of up to ",
                               options_.bucketBytes, " bytes during backward")
                         : std::string("one parameter at a time after backward"));
  }
}

void DistributedTrainer::initialize() {
  if (!group_) {
    SingleCostTrainer::initialize();
    return;
  }
  // Rank 0's state wins, whatever each rank initialised or restored (Note [Trainer state]).
  std::vector<torch::Tensor> state = module().parameters();
  for (const auto& b : module().buffers()) state.push_back(b);
  try {
    group_->broadcast(state, 0);
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    group_->fail(e, "the broadcast of rank 0's parameters");
  }
  group_->setProgress(globalStep());
  TB_LOG(Info) << "distributed: parameters and buffers of rank 0 broadcast to " << worldSize()
               << " ranks at global step " << globalStep() << "; rank " << rank()
               << " draws its random numbers from (seed " << baseSeed_ << ", rank " << rank()
               << ", step)";
  SingleCostTrainer::initialize();  // the weight average starts from rank 0's parameters
}

void DistributedTrainer::reduceOnNccl() {
  std::vector<torch::Tensor> grads;
  auto params = module().parameters();
  for (auto& p : params) {
    grads.push_back(p.grad().defined() ? p.grad().reshape({-1})
                                       : torch::zeros({p.numel()}, p.options()));
  }
  torch::Tensor flat = torch::cat(grads);
  nccl_->allReduceSum(flat);
  flat.div_(worldSize());
  int64_t offset = 0;
  for (auto& p : params) {
    p.mutable_grad() = flat.narrow(0, offset, p.numel()).view(p.sizes()).clone();
    offset += p.numel();
  }
}

void DistributedTrainer::runStep() {
  if (!group_) {
    SimpleTrainer::runStep();
    return;
  }
  const int64_t step = globalStep() + 1;
  const bool first = samplesPerStep() == 0;
  const Batch batch = std::move(takeBatches({torchDevice()}).front());
  if (first) {
    TB_LOG(Info) << "distributed: total batch " << batch.batchSize() << " x " << worldSize()
                 << " ranks = " << batch.batchSize() * worldSize() << " samples per step";
  }
  enterTrainMode(module());
  optimizer().zero_grad();
  try {
    // Collectives in the same order on every rank: buffers, the gradients, the step's vote.
    std::vector<torch::Tensor> buffers = module().buffers();
    try {
      if (!buffers.empty()) group_->broadcast(buffers, 0);
    } catch (const std::exception& e) {
      group_->fail(e, str("the start of step ", step));
    }
    // TB_FAULT_SHARED_RNG (tests only) replays the code before issue 25's F8: every rank keeps
    // the one stream it was seeded with, so all draw the same dropout masks.
    static const bool sharedStreams = std::getenv("TB_FAULT_SHARED_RNG") != nullptr;
    if (!sharedStreams) reseedForStep(step);
    if (reducer_) reducer_->prepare();
    torch::Tensor cost = towerCost(tower(), module(), batch);
    backward(cost);
    // The vote: [stop, cost, had a gradient (per parameter)], summed over the ranks.
    std::vector<torch::Tensor> params = module().parameters();
    torch::Tensor vote = torch::empty({2 + static_cast<int64_t>(params.size())}, torch::kDouble);
    double* v = vote.data_ptr<double>();
    v[0] = stopAsked_.load() ? 1.0 : 0.0;
    v[1] = hostItem<double>(cost);  // the vote is summed on the host (Gloo): one read a step
    for (size_t i = 0; i < params.size(); ++i) v[2 + i] = params[i].grad().defined() ? 1.0 : 0.0;
    std::unique_ptr<PendingCollective> voting;
    const auto issueVote = [&] { voting = group_->allReduceSum(vote); };
    try {
      if (reducer_) {
        reducer_->finish(issueVote);
      } else {
        issueVote();
        if (nccl_) reduceOnNccl();
      }
      voting->wait();
    } catch (const std::exception& e) {
      group_->fail(e, str("the gradient all-reduce of step ", step));
    }
    // Note [Unused parameters]: no rank used it, so no gradient, as a lone tower's.
    for (size_t i = 0; i < params.size(); ++i) {
      if (v[2 + i] == 0) params[i].mutable_grad() = torch::Tensor();
    }
    if (prepareUpdate(params, /*report=*/true)) optimizer().step();
    finishUpdate();
    group_->setProgress(step);
    putStepScalar("cost", v[1] / static_cast<double>(worldSize()));
    putSummaries(tower());
    if (v[0] > 0) {
      TB_LOG(Info) << "distributed: a rank asked to stop; every rank stops after step " << step;
      SingleCostTrainer::requestStop();
    }
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    group_->reportFailure(str("step ", step, ": ", e.what()));
    throw;
  }
}

void DistributedTrainer::reseedForStep(int64_t step) {
  const uint64_t seed = rankStepSeed(baseSeed_, rank(), step);
  {
    auto generator = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_current_seed(seed);
  }
  if (torchDevice().is_cuda()) torch::cuda::manual_seed_all(seed);
}

void DistributedTrainer::sumOverProcesses(torch::Tensor& totals) {
  if (!group_) return;
  TB_CHECK(totals.device().is_cpu(), "sumOverProcesses takes a CPU tensor");
  try {
    group_->allReduceSum(totals)->wait();
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    group_->fail(e, str("the validation sums of epoch ", epochNum()));
  }
}

void DistributedTrainer::beforeValidation() {
  if (!group_ || buffersSharedAt_ == globalStep()) return;
  // Between epoch ends every rank's buffers are its own batches' (a step broadcasts them at its
  // start): rank 0's, as at an epoch's end, before any rank validates.
  std::vector<torch::Tensor> buffers = module().buffers();
  try {
    if (!buffers.empty()) group_->broadcast(buffers, 0);
  } catch (const std::exception& e) {
    group_->fail(e,
                 str("the buffer broadcast before the validation at global step ", globalStep()));
  }
  buffersSharedAt_ = globalStep();
  invalidateInferenceTower();
}

void DistributedTrainer::onEpochStepsDone() {
  if (!group_) return;
  const int64_t epoch = epochNum();
  std::vector<torch::Tensor> params = module().parameters();
  if (const char* diverge = std::getenv("TB_FAULT_DIVERGE_RANK");
      diverge != nullptr && std::atoi(diverge) == rank() && !params.empty()) {
    torch::NoGradGuard noGrad;
    params.front().add_(1e-3);
  }
  torch::Tensor sums = torch::zeros({worldSize()}, torch::kDouble);
  sums[rank()] = parameterChecksum(params);
  try {
    group_->allReduceSum(sums)->wait();
    // Rank 0's BatchNorm statistics (and other buffers) for validation and the checkpoint.
    std::vector<torch::Tensor> buffers = module().buffers();
    if (!buffers.empty()) group_->broadcast(buffers, 0);
  } catch (const std::exception& e) {
    group_->fail(e, str("the end-of-epoch check of epoch ", epoch));
  }
  // A validation that ran at this step before the broadcast (a step-triggered one) cached the
  // rank's own buffers in the inference tower (N9).
  buffersSharedAt_ = globalStep();
  invalidateInferenceTower();
  const double* c = sums.data_ptr<double>();
  // Issue 34 (N1): a run that diverged has NaN or infinite parameters on every rank, and NaN
  // differs from NaN: it is not a rank that trained apart. It goes on, as one process does
  // (check_numerics is what stops a diverged run); a rank alone with non-finite parameters
  // did train apart, and is named as such.
  std::string nonFinite;
  int nonFiniteRanks = 0;
  for (int r = 0; r < worldSize(); ++r) {
    if (std::isfinite(c[r])) continue;
    ++nonFiniteRanks;
    nonFinite += str(nonFinite.empty() ? "" : ", ", "rank ", r);
  }
  if (nonFiniteRanks == worldSize()) {
    TB_LOG(Warning) << "epoch " << epoch
                    << ": the parameters are not finite (NaN or infinite) on every rank: the run "
                       "diverged (the check_numerics callback stops such a run)";
    return;
  }
  if (nonFiniteRanks > 0) {
    throw DistributedError(str("epoch ", epoch, ": the parameters of ", nonFinite,
                               " are not finite (NaN or infinite) while the other ranks' are: the "
                               "ranks trained apart, so the run is stopped (Note [Ranks stay one "
                               "model]; the last checkpoint holds rank 0's state)"));
  }
  // Equal parameters give equal sums up to the summation order (ranks with other thread
  // counts); a rank that trained apart is off by far more.
  const double tolerance = 1e-9 * std::max(1.0, std::abs(c[0]));
  std::string apart;
  for (int r = 1; r < worldSize(); ++r) {
    if (!(std::abs(c[r] - c[0]) <= tolerance)) {
      apart += str(apart.empty() ? "" : ", ", "rank ", r, " (", c[r], ")");
    }
  }
  if (!apart.empty()) {
    throw DistributedError(str(
        "epoch ", epoch, ": the parameters of ", apart, " differ from rank 0's (checksum ", c[0],
        "): the ranks trained apart, so the run is stopped (Note [Ranks stay one model]; the "
        "last checkpoint holds rank 0's state)"));
  }
}

bool DistributedTrainer::onEpochTriggered(bool stopping) {
  if (!group_) return stopping;
  // The stop vote: a callback that ends training at this epoch (EarlyStopping on a stat of the
  // rank's own batches, train_error) may do so on one rank only; a rank that left alone would
  // leave the others waiting in the next step's collectives until timeout_s. Every rank stops
  // when one does.
  torch::Tensor votes = torch::full({1}, stopping ? 1.0 : 0.0, torch::kDouble);
  try {
    group_->allReduceSum(votes)->wait();
  } catch (const std::exception& e) {
    group_->fail(e, str("the stop vote after epoch ", epochNum()));
  }
  const double stoppingRanks = votes.data_ptr<double>()[0];
  if (stoppingRanks > 0 && !stopping) {
    TB_LOG(Info) << "distributed: " << stoppingRanks << " rank(s) stop after epoch " << epochNum()
                 << "; every rank stops";
  }
  const std::map<std::string, double> values = hyperParamValues();
  if (values.empty()) return stoppingRanks > 0;
  torch::Tensor shared = torch::empty({static_cast<int64_t>(values.size())}, torch::kDouble);
  int64_t i = 0;
  for (const auto& [name, value] : values) shared[i++] = value;
  try {
    group_->broadcast({shared}, 0);
  } catch (const std::exception& e) {
    group_->fail(e, str("the broadcast of rank 0's hyper-parameters after epoch ", epochNum()));
  }
  i = 0;
  for (const auto& [name, value] : values) {
    const double zeros = shared[i++].item<double>();
    if (zeros != value) {
      TB_LOG(Info) << "distributed: " << name << " " << value << " -> " << zeros
                   << " (rank 0's) after epoch " << epochNum();
      hyperParam(name)->set(zeros);
    }
  }
  return stoppingRanks > 0;
}

}  // namespace tbench
