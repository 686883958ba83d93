// Towerbench's image-folder pipeline against PyTorch's DataLoader on the same PNG folder (for
// example Fashion-MNIST written by scripts/make-image-folder.py), interleaved in one run so
// that both see the same machine state.
//
// Towerbench: ImageFolderData (grey, random crop with padding 2, horizontal flip, normalised
// with 0.5/0.5, shuffled) batched by 128, with `workers` decoding threads. PyTorch:
// bench_image_folder.py, the same transforms by hand and a DataLoader with num_workers. Each
// figure is the samples per second of one full epoch after a warm-up epoch; the median over
// the rounds is reported, with Towerbench's ratio to PyTorch at equal workers.
//
//   bench_image_folder DIR [--rounds R] [--workers 0,2] [--no-python]

#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/BenchData.h"
#include "engine/core/Environment.h"
#include "engine/core/Stopwatch.h"
#include "engine/data/BatchData.h"
#include "engine/data/datasets/ImageFolderData.h"

using namespace tbench;
using tbench::bench::median;

namespace {

constexpr int64_t kBatch = 128;

/// Towerbench's samples per second over one pass after a warm-up pass.
double towerbench(const std::string& dir, int64_t workers, uint64_t seed) {
  auto images = std::make_shared<ImageFolderData>(dir, ImageFolderData::Options()
                                                           .channels(1)
                                                           .augment({2, true, 0})
                                                           .normalization({{0.5}, {0.5}})
                                                           .workers(workers)
                                                           .shuffle(true)
                                                           .seed(seed));
  BatchData batches(images, kBatch, /*remainder=*/true);
  batches.resetState();
  double rate = 0;
  for (int epoch = 0; epoch < 2; ++epoch) {
    Stopwatch clock;
    int64_t samples = 0;
    DataPass pass = batches.pass();
    Datapoint batch;
    while (pass.next(batch)) samples += batch[0].size(0);
    rate = static_cast<double>(samples) / clock.seconds();
  }
  return rate;
}

/// PyTorch's samples per second, from bench_image_folder.py; 0 if it failed.
double pytorch(const std::string& dir, int64_t workers) {
  const std::string command = "/usr/bin/python3 " TB_SOURCE_DIR "/bench/bench_image_folder.py '" +
                              dir + "' --workers " + std::to_string(workers);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return 0;
  std::string output;
  char buffer[256];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  if (pclose(pipe) != 0) {
    std::cerr << "bench_image_folder.py failed:\n" << output;
    return 0;
  }
  const auto at = output.rfind("samples/s: ");
  return at == std::string::npos ? 0 : std::stod(output.substr(at + 11));
}

std::vector<int64_t> parseList(const std::string& text) {
  std::vector<int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stoll(item));
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  prepareProcess(argv);
  if (argc < 2) {
    std::cerr << "usage: bench_image_folder DIR [--rounds R] [--workers 0,2] [--no-python]\n";
    return 2;
  }
  const std::string dir = argv[1];
  int rounds = 3;
  std::vector<int64_t> workerCounts = {0, 2};
  bool python = true;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) rounds = std::stoi(argv[++i]);
    if (arg == "--workers" && i + 1 < argc) workerCounts = parseList(argv[++i]);
    if (arg == "--no-python") python = false;
  }
  std::cout << "image folder " << dir << ", batch " << kBatch << ", " << rounds << " rounds\n";
  std::map<int64_t, std::vector<double>> ours, theirs;
  for (int round = 0; round < rounds; ++round) {
    for (int64_t workers : workerCounts) {
      const double rate = towerbench(dir, workers, static_cast<uint64_t>(round));
      ours[workers].push_back(rate);
      std::printf("round %d  towerbench workers=%lld  %9.1f samples/s\n", round,
                  static_cast<long long>(workers), rate);
      if (!python) continue;
      const double reference = pytorch(dir, workers);
      theirs[workers].push_back(reference);
      std::printf("round %d  pytorch    workers=%lld  %9.1f samples/s\n", round,
                  static_cast<long long>(workers), reference);
      std::fflush(stdout);
    }
  }
  std::printf("\nmedians (samples/s)\n");
  for (int64_t workers : workerCounts) {
    const double a = median(ours[workers]);
    if (!python) {
      std::printf("workers=%lld  towerbench %9.1f  (%.2fx workers=%lld)\n",
                  static_cast<long long>(workers), a, a / median(ours[workerCounts.front()]),
                  static_cast<long long>(workerCounts.front()));
      continue;
    }
    const double b = median(theirs[workers]);
    std::printf("workers=%lld  towerbench %9.1f  pytorch %9.1f  ratio %.2fx\n",
                static_cast<long long>(workers), a, b, a / b);
  }
  return 0;
}
