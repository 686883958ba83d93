#pragma once
// ChildProcess: the one way the engine and the CLI start another program (the window's is
// CliProcess, its Qt wrapper of QProcess). A sweep's trials (output appended to a file),
// `launch`'s ranks (output through a pipe, dying with launch), the queue's squeue/sbatch calls
// (output captured) all go through startProcess; waitProcess and exitStatusOf give one exit
// status for every child: its own, or 128 + the signal that ended it (CliProcess's mapping).
//
// The child is made with fork and exec: standard input /dev/null or inherited; standard output
// (and standard error with it, or inherited) to a file appended to, a pipe the parent reads, or
// inherited; SIGINT, SIGTERM, SIGPIPE and SIGHUP (unless ignored here, as under nohup) back to
// their defaults and no signal blocked; optionally its own process group (a terminal's Ctrl-C
// then reaches the parent alone) and a death signal (PR_SET_PDEATHSIG: it must not outlive its
// parent); its environment this process's with changes, or a whole one. A program that cannot be
// started is an errno returned by startProcess, as posix_spawn reports it, not an exit status.

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tbench {

struct ProcessSpec {
  /// argv[0] is the program: a path, or a name looked up in PATH.
  std::vector<std::string> argv;
  /// The file executed when not empty (e.g. /proc/self/exe), argv[0] staying the program's name.
  std::string executable;
  enum class Output {
    Inherit,  ///< the parent's standard output and error
    File,     ///< appended to `outputFile` (created 0644)
    Pipe,     ///< a pipe whose read end is ChildProcess::output
  };
  Output output = Output::Inherit;
  std::string outputFile;
  /// Standard error goes where standard output goes (File, Pipe); else it is the parent's.
  bool errorsWithOutput = true;
  /// Standard input /dev/null (else the parent's).
  bool inputFromNull = true;
  bool ownProcessGroup = false;
  /// Sent to the child when this process (the thread that started it) dies; 0: none.
  int deathSignal = 0;
  /// The whole environment when set; else this process's with `setEnv` and `unsetEnv` applied.
  std::optional<std::vector<std::string>> environment;
  std::vector<std::pair<std::string, std::string>> setEnv;
  std::vector<std::string> unsetEnv;
};

struct ChildProcess {
  pid_t pid = -1;
  int output = -1;  ///< the pipe's read end (Output::Pipe), the caller's to close
};

/// Starts `spec`. Returns 0 with `*child`, or the errno of a program that could not be started
/// (not found, not executable; also a failed pipe or fork), with nothing left running.
int startProcess(const ProcessSpec& spec, ChildProcess* child);

/// The exit status of a wait status: the child's own, or 128 + the signal that ended it.
int exitStatusOf(int waitStatus);

/// Waits for `pid` (retrying on EINTR); its exitStatusOf, or nullopt when `block` is false and
/// it is still running, or when it is not a child of this process.
std::optional<int> waitProcess(pid_t pid, bool block = true);

/// Reads `fd` to its end (retrying on EINTR) and closes it.
std::string readToEnd(int fd);

/// Runs `argv` (looked up in PATH) to its end; its exit status (127: it could not start), its
/// standard output in `*output` (its errors go to ours).
int runCapturing(const std::vector<std::string>& argv, std::string* output);

}  // namespace tbench
