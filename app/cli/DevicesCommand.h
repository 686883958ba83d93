#pragma once
// `towerbench-cli devices`: what this machine offers a run, as the window's devices panel shows
// it: the device strings a project may use, each with what it is, then the BLAS, CUDA, NCCL
// and NVML status that decide what works and how fast.

namespace tbench::cli {

/// Prints the report to stdout; returns 0.
int runDevices();

}  // namespace tbench::cli
