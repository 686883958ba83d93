#pragma once
// Inferencer: turns the model's inference outputs over a whole validation pass into scalars
// (tensorpack's Inferencer). InferenceRunner calls, for every pass:
//   beforeInference(); onBatchWithInputs(batch, outputs, batchSize) for every batch (by
//   default: onBatch(outputs, batchSize)); afterInference()
// and puts the scalars afterInference() returns; then, when the pass ran as a callback (not
// for `eval`), publish(context) lets the inferencer put images and write files. Engine thread.

#include <map>
#include <memory>
#include <string>

#include <torch/types.h>

#include "engine/data/DataFlow.h"

namespace tbench {

class TrainerContext;

class Inferencer {
 public:
  virtual ~Inferencer() = default;
  virtual void beforeInference() = 0;
  /// `outputs` are the model's named inference outputs for one batch of `batchSize` samples.
  virtual void onBatch(const std::map<std::string, torch::Tensor>& outputs, int64_t batchSize) = 0;
  /// The same with the batch the outputs came from (the model's inputs first); for
  /// inferencers that look at the samples themselves.
  virtual void onBatchWithInputs(const Datapoint& batch,
                                 const std::map<std::string, torch::Tensor>& outputs,
                                 int64_t batchSize) {
    (void)batch;
    onBatch(outputs, batchSize);
  }
  /// Note [Sharded validation]: an inferencer whose pass reduces to additive totals can be
  /// fed only a process's share of the batches: totals() are its sums so far (a float64 CPU
  /// tensor of a fixed length), the runner sums them over the processes and gives them back
  /// with setTotals() before afterInference(). skipBatch(n) is called for the batches of
  /// the other processes (an index into the pass stays the pass's).
  virtual bool canShard() const { return false; }
  virtual torch::Tensor totals() const { return {}; }
  virtual void setTotals(const torch::Tensor& totals) { (void)totals; }
  virtual void skipBatch(int64_t batchSize) { (void)batchSize; }
  /// Before beforeInference: this process validates batch i when i % shards == shard (0, 1
  /// when it validates them all).
  virtual void setShard(int64_t shard, int64_t shards) {
    (void)shard;
    (void)shards;
  }
  /// The scalars of the pass, by name.
  virtual std::map<std::string, double> afterInference() = 0;
  /// After the pass's scalars were put: images and files of the pass (default: nothing).
  virtual void publish(TrainerContext& context) { (void)context; }
};

using InferencerPtr = std::shared_ptr<Inferencer>;

}  // namespace tbench
