#include "app/cli/LaunchCommand.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "engine/comm/WorkerEnvironment.h"
#include "engine/core/ChildProcess.h"

namespace tbench::cli {
namespace {

// The last stop signal and how many arrived (set by the handler only): each is forwarded to
// every worker once, so a second Ctrl-C reaches them as a second one (quit now).
volatile std::sig_atomic_t lastSignal = 0;
volatile std::sig_atomic_t signalCount = 0;
void countStopSignal(int signal) {
  lastSignal = signal;
  signalCount = signalCount + 1;
}
// SIGHUP (whoever started launch is gone: a closed terminal, the window, which asks for it
// with PR_SET_PDEATHSIG) or SIGPIPE (nobody reads launch's output). Set by the handler only.
volatile std::sig_atomic_t readerGoneSignal = 0;
void onReaderGone(int) { readerGoneSignal = 1; }

struct Worker {
  int rank = 0;
  pid_t pid = -1;
  int fd = -1;  // read end of its stdout+stderr
  std::string partial;
  bool running = true;
  int status = 0;
  bool reported = false;  // its exit was printed
};

void printLines(Worker& w, const char* data, size_t n, bool flush) {
  w.partial.append(data, n);
  size_t start = 0;
  for (size_t nl; (nl = w.partial.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::cout << "[rank " << w.rank << "] " << w.partial.substr(start, nl - start) << "\n";
  }
  w.partial.erase(0, start);
  if (flush && !w.partial.empty()) {
    std::cout << "[rank " << w.rank << "] " << w.partial << "\n";
    w.partial.clear();
  }
  std::cout.flush();
}

}  // namespace

int runLaunch(const CliArgs& args, const std::string& program) {
  const int local = args.nprocPerNode;
  const int world = local * args.nnodes;
  const int port =
      args.masterPort > 0 ? args.masterPort : (args.nnodes == 1 ? freeLoopbackPort(29500) : 29500);
  std::cout << "launch: " << local << " worker(s) on this node (node " << args.nodeRank << " of "
            << args.nnodes << ", world size " << world << "), master " << args.masterAddr << ":"
            << port << ", strategy distributed" << std::endl;

  struct sigaction action {};
  action.sa_handler = countStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // Note [Launch outlives its reader]: when whoever reads launch's output is gone (SIGHUP, or
  // SIGPIPE on a write: the window was killed, the terminal closed, `| head` ended), the workers
  // are asked to stop once, as by a first Ctrl-C: each stops at the same step and its saver
  // saves it, so nothing trained is lost; launch goes on without printing. (SIGPIPE used to end
  // launch at its next line, and PR_SET_PDEATHSIG then killed the workers mid-epoch.) Under
  // nohup SIGHUP stays ignored.
  struct sigaction readerGone {};
  readerGone.sa_handler = onReaderGone;
  sigemptyset(&readerGone.sa_mask);
  struct sigaction previousHangUp {};
  sigaction(SIGHUP, nullptr, &previousHangUp);
  const bool hangUpIgnored = previousHangUp.sa_handler == SIG_IGN;
  if (!hangUpIgnored) sigaction(SIGHUP, &readerGone, nullptr);
  sigaction(SIGPIPE, &readerGone, nullptr);

  std::vector<Worker> workers(static_cast<size_t>(local));
  for (int l = 0; l < local; ++l) {
    Worker& w = workers[static_cast<size_t>(l)];
    w.rank = args.nodeRank * local + l;
    ProcessSpec spec;
    spec.executable = "/proc/self/exe";
    spec.argv = {program};
    spec.argv.insert(spec.argv.end(), args.workerArgs.begin(), args.workerArgs.end());
    spec.output = ProcessSpec::Output::Pipe;  // read below, each line prefixed with its rank
    spec.inputFromNull = false;
    // A worker must not outlive a launch that was killed (SIGKILL cannot be forwarded): it
    // would train on, or wait in a collective, with nobody reading its output.
    spec.deathSignal = SIGKILL;
    // Its own process group: a Ctrl-C in the terminal reaches launch alone, which forwards it
    // once. (Both would otherwise deliver it, and a worker that took the first as "stop after
    // this step" would take the forwarded one as "quit now".)
    spec.ownProcessGroup = true;
    spec.setEnv = {{"RANK", std::to_string(w.rank)},
                   {"WORLD_SIZE", std::to_string(world)},
                   {"LOCAL_RANK", std::to_string(l)},
                   {"LOCAL_WORLD_SIZE", std::to_string(local)},
                   {"GROUP_RANK", std::to_string(args.nodeRank)},
                   {"MASTER_ADDR", args.masterAddr},
                   {"MASTER_PORT", std::to_string(port)}};
    spec.unsetEnv = {"TORCHELASTIC_USE_AGENT_STORE"};
    ChildProcess child;
    if (const int error = startProcess(spec, &child); error != 0) {
      std::cerr << "launch: cannot start " << program << ": " << std::strerror(error) << "\n";
      for (auto& started : workers) {
        if (started.pid > 0) kill(started.pid, SIGKILL);
      }
      return 127;
    }
    w.pid = child.pid;
    w.fd = child.output;
  }

  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> firstFailure;
  std::sig_atomic_t forwarded = 0;
  bool stoppedForReader = false;
  for (;;) {
    if (signalCount != forwarded) {
      forwarded = signalCount;
      for (auto& w : workers) {
        if (w.running) kill(w.pid, lastSignal);
      }
    }
    if (readerGoneSignal && !stoppedForReader) {
      stoppedForReader = true;  // once: the hang-up and the failed writes after it are one event
      if (forwarded == 0) {
        for (auto& w : workers) {
          if (w.running) kill(w.pid, SIGTERM);
        }
      }
    }
    std::vector<pollfd> fds;
    for (auto& w : workers) {
      if (w.fd >= 0) fds.push_back({w.fd, POLLIN, 0});
    }
    if (fds.empty()) break;
    poll(fds.data(), fds.size(), 200);
    for (auto& w : workers) {
      if (w.fd < 0) continue;
      for (const auto& p : fds) {
        if (p.fd != w.fd || (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        char buffer[8192];
        const ssize_t n = read(w.fd, buffer, sizeof buffer);
        if (n > 0) {
          printLines(w, buffer, static_cast<size_t>(n), false);
        } else if (n == 0 || errno != EINTR) {
          printLines(w, "", 0, true);
          close(w.fd);
          w.fd = -1;
        }
      }
    }
    for (auto& w : workers) {
      if (!w.running) continue;
      int status = 0;
      if (waitpid(w.pid, &status, WNOHANG) == w.pid) {
        w.running = false;
        w.status = exitStatusOf(status);
        if (w.status != 0 && !firstFailure) firstFailure = Clock::now();
        // As it happens, for whoever follows the ranks (the window shows each rank's state).
        std::cout << "launch: rank " << w.rank << " exited with status " << w.status << std::endl;
        w.reported = true;
      }
    }
    // A worker that failed and left its output pipe to a grandchild must not keep us waiting.
    if (firstFailure && Clock::now() - *firstFailure > std::chrono::seconds(30)) {
      for (auto& w : workers) {
        if (w.running) kill(w.pid, SIGKILL);
      }
    }
  }
  int worst = 0;
  for (auto& w : workers) {
    if (w.running) {
      w.status = waitProcess(w.pid).value_or(128);
    }
    if (!w.reported)
      std::cout << "launch: rank " << w.rank << " exited with status " << w.status << "\n";
    worst = std::max(worst, w.status);
  }
  std::cout << "launch: " << (worst == 0 ? "every worker finished" : "done") << ", exit status "
            << worst << std::endl;
  return worst;
}

}  // namespace tbench::cli
