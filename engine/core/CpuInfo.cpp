#include "engine/core/CpuInfo.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

namespace tbench {

namespace {

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  const size_t end = s.find_last_not_of(" \t");
  return begin == std::string::npos ? std::string() : s.substr(begin, end - begin + 1);
}

/// AMD's families name their cores (family 0x17 Zen to Zen 2, 0x19 Zen 3 and Zen 4, 0x1A
/// Zen 5); Intel's family 6 does not, so it is left to the model name.
std::string amdCore(int family, int model) {
  if (family == 0x17) return model >= 0x30 ? "Zen 2" : "Zen or Zen+";
  if (family == 0x19) {
    const bool zen4 = (model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
                      (model >= 0xa0 && model <= 0xaf);
    return zen4 ? "Zen 4" : "Zen 3";
  }
  if (family == 0x1a) return "Zen 5";
  return {};
}

}  // namespace

CpuInfo cpuInfo() {
  CpuInfo info;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  bool vendorSeen = false, familySeen = false, modelSeen = false, nameSeen = false;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (vendorSeen && !flags.empty()) break;  // the first processor is enough
      continue;
    }
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "vendor_id" && !vendorSeen) {
      vendorSeen = true;
      info.vendor = value == "AuthenticAMD" ? "AMD" : value == "GenuineIntel" ? "Intel" : value;
    } else if (key == "cpu family" && !familySeen) {
      familySeen = true;
      info.family = std::atoi(value.c_str());
    } else if (key == "model" && !modelSeen) {
      modelSeen = true;
      info.modelNumber = std::atoi(value.c_str());
    } else if (key == "model name" && !nameSeen) {
      nameSeen = true;
      info.model = value;
    } else if (key == "flags" && flags.empty()) {
      std::istringstream words(value);
      for (std::string word; words >> word;) flags.insert(word);
    }
  }
  info.avx2 = flags.count("avx2") && flags.count("fma");
  info.avx512 = flags.count("avx512f") && flags.count("avx512bw") && flags.count("avx512vl");
  info.avx512Bf16 = flags.count("avx512_bf16") > 0;
  info.amx = flags.count("amx_bf16") > 0 || flags.count("amx_tile") > 0;
  if (info.vendor == "AMD") info.microarchitecture = amdCore(info.family, info.modelNumber);
  return info;
}

std::string cpuDescription() {
  const CpuInfo info = cpuInfo();
  std::ostringstream out;
  out << (info.model.empty() ? std::string("unknown CPU") : info.model);
  if (!info.vendor.empty()) {
    out << " (" << info.vendor << " family " << info.family << " model " << info.modelNumber;
    if (!info.microarchitecture.empty()) out << ", " << info.microarchitecture;
    out << ")";
  }
  out << ", " << std::max(1u, std::thread::hardware_concurrency()) << " cores";
  std::string features;
  for (const auto& [has, name] :
       {std::pair{info.avx2, "AVX2"}, std::pair{info.avx512, "AVX-512"},
        std::pair{info.avx512Bf16, "AVX-512 BF16"}, std::pair{info.amx, "AMX"}}) {
    if (has) features += std::string(features.empty() ? ": " : ", ") + name;
  }
  return out.str() + features;
}

}  // namespace tbench
