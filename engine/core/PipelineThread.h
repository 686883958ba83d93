#pragma once
// Note [Pipeline threads]: a thread of the input pipeline (QueueInput's producer,
// MultiThreadMapData's and PrefetchData's workers) runs its tensor operations (decoding,
// normalising, stacking a batch) on one intra-op thread, as PyTorch's DataLoader workers do
// (torch.set_num_threads(1) in each worker).
//
// Why: ATen's parallel regions use OpenMP, and a thread that OpenMP did not create gets a team
// of its own at its first parallel region, as large as the process's intra-op setting. The
// producer's team and the training step's then want the same cores: on 2 cores, 2 + 2 threads
// where OpenMP's waiting threads spin, and the step waits for a core at every barrier (issue
// 24: the MLP project trained at 154-200 steps/s with queue_input, 318-456 with simple).
//
// at::set_num_threads cannot do this: it also changes the process-wide default that every new
// thread starts from. OpenMP's own setting is per thread, and ATen reads it
// (at::get_num_threads() is omp_get_max_threads() of the calling thread).

namespace tbench {

/// Makes the calling thread run ATen's (and OpenBLAS's) parallel work on itself alone. Call
/// first in a pipeline thread's body. Returns at::get_num_threads() afterwards (1 where it
/// worked; the process's setting where ATen is built without OpenMP, which has no per-thread
/// setting).
int useOneIntraOpThreadHere();

}  // namespace tbench
