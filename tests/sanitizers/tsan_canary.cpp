// A data race on purpose: scripts/sanitize.sh tsan builds and runs this first, and goes on only
// if ThreadSanitizer reports it with the options and suppressions the tests run under (so a
// clean test run means the checks were live).
#include <thread>

namespace {
int counter = 0;  // written by two threads without a lock
}

int main() {
  std::thread a([] {
    for (int i = 0; i < 1000; ++i) ++counter;
  });
  std::thread b([] {
    for (int i = 0; i < 1000; ++i) ++counter;
  });
  a.join();
  b.join();
  return counter > 0 ? 0 : 1;
}
