#pragma once
// What the processor is, as the start-up tuning (Environment.h) and the run card see it.

#include <string>

namespace tbench {

struct CpuInfo {
  std::string vendor;  ///< "AMD", "Intel" or /proc/cpuinfo's vendor_id
  std::string model;   ///< /proc/cpuinfo's model name
  int family = 0;      ///< cpu family, as /proc/cpuinfo gives it (26 = 0x1A)
  int modelNumber = 0;
  std::string microarchitecture;  ///< "Zen 5", ... where the family says it; else empty
  bool avx2 = false, avx512 = false, avx512Bf16 = false, amx = false;
};

/// Read from /proc/cpuinfo (empty fields where it is missing).
CpuInfo cpuInfo();

/// One line: "AMD EPYC (AMD family 26 model 2, Zen 5), 2 cores: AVX2, AVX-512, AVX-512 BF16".
std::string cpuDescription();

}  // namespace tbench
