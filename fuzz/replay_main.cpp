// Replays fuzz inputs without libFuzzer (fuzz/README.md): runs LLVMFuzzerTestOneInput on every
// file of the directories given as arguments, as libFuzzer would run them, so that the normal
// build's tests (fuzz_replay_<name>) keep every seed and every past crash passing. A reader bug
// surfaces as a crash, an abort or an uncaught exception of this program. As libFuzzer's
// -rss_limit_mb=2048 in scripts/fuzz.sh, the heap is limited to 2 GiB: a reader that asks for
// more gets std::bad_alloc, which the targets treat as a bug.

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIRECTORY...\n", argv[0]);
    return 2;
  }
  const rlimit heap{rlim_t{2} << 30, rlim_t{2} << 30};
  if (setrlimit(RLIMIT_DATA, &heap) != 0) std::perror("setrlimit(RLIMIT_DATA)");
  size_t total = 0;
  for (int a = 1; a < argc; ++a) {
    const fs::path dir = argv[a];
    if (!fs::is_directory(dir)) {
      std::fprintf(stderr, "%s: not a directory\n", dir.c_str());
      return 2;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
      // Dot files (.gitkeep) are not inputs.
      if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
      if (!in.eof() && in.fail()) {
        std::fprintf(stderr, "%s: cannot be read\n", file.c_str());
        return 2;
      }
      std::printf("replaying %s (%zu bytes)\n", file.c_str(), bytes.size());
      std::fflush(stdout);
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%zu input(s) from %s\n", files.size(), dir.c_str());
    total += files.size();
  }
  std::printf("%zu input(s) replayed, all passed\n", total);
  return 0;
}
