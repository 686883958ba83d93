// main() of a group of Qt Test classes (tests/support/TestMain.h): runs the one named by the
// program's name or its first argument.

#include "tests/support/TestMain.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tbench::testing {
namespace {

std::map<std::string, TestMainFunction>& testMains() {
  static std::map<std::string, TestMainFunction> mains;
  return mains;
}

// "/a/b/test_Csv.cpp" -> "test_Csv"; "/a/b/test_Csv" -> "test_Csv".
std::string stemOf(const char* path) {
  std::string name = path;
  const std::size_t slash = name.find_last_of('/');
  if (slash != std::string::npos) {
    name = name.substr(slash + 1);
  }
  const std::size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

}  // namespace

bool registerTestMain(const char* file, TestMainFunction main) {
  testMains()[stemOf(file)] = main;
  return true;
}

}  // namespace tbench::testing

int main(int argc, char** argv) {
  const auto& mains = tbench::testing::testMains();
  // Called through the test's own link: Qt Test's arguments follow.
  if (const auto found = mains.find(tbench::testing::stemOf(argv[0])); found != mains.end()) {
    return found->second(argc, argv);
  }
  // `GROUP TEST [Qt Test options]`: the test's name is taken out of the arguments.
  if (argc >= 2) {
    if (const auto found = mains.find(argv[1]); found != mains.end()) {
      std::vector<char*> rest{argv[0]};
      rest.insert(rest.end(), argv + 2, argv + argc);
      rest.push_back(nullptr);
      return found->second(argc - 1, rest.data());
    }
  }
  std::fprintf(stderr, "usage: %s TEST [Qt Test options]\n%s\ntests here:", argv[0],
               argc >= 2 ? ("no test called " + std::string(argv[1])).c_str() : "no test named");
  for (const auto& entry : mains) {
    std::fprintf(stderr, " %s", entry.first.c_str());
  }
  std::fprintf(stderr, "\n");
  return 2;
}
