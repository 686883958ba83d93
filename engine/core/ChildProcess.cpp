#include "engine/core/ChildProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

extern char** environ;

namespace tbench {
namespace {

/// The environment the child gets: built before fork (the child only execs).
std::vector<std::string> environmentOf(const ProcessSpec& spec) {
  if (spec.environment) return *spec.environment;
  std::vector<std::string> env;
  const auto named = [](const std::string& entry, const std::string& name) {
    return entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
           entry[name.size()] == '=';
  };
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    bool changed = false;
    for (const std::string& name : spec.unsetEnv) changed = changed || named(entry, name);
    for (const auto& [name, value] : spec.setEnv) changed = changed || named(entry, name);
    if (!changed) env.push_back(entry);
  }
  for (const auto& [name, value] : spec.setEnv) env.push_back(name + "=" + value);
  return env;
}

/// In the child: writes errno to `fd` and exits (the parent reads it as the start's failure).
[[noreturn]] void failStart(int fd) {
  const int error = errno;
  (void)!write(fd, &error, sizeof error);
  _exit(127);
}

}  // namespace

int startProcess(const ProcessSpec& spec, ChildProcess* child) {
  if (spec.argv.empty()) return EINVAL;
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::vector<std::string> env = environmentOf(spec);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const char* executable = spec.executable.empty() ? nullptr : spec.executable.c_str();
  struct sigaction hangUp {};
  sigaction(SIGHUP, nullptr, &hangUp);
  const bool hangUpIgnored = hangUp.sa_handler == SIG_IGN;

  int status[2];  // the child's errno when it cannot exec; closed by a successful exec
  if (pipe2(status, O_CLOEXEC) != 0) return errno;
  int out[2] = {-1, -1};
  if (spec.output == ProcessSpec::Output::Pipe && pipe2(out, O_CLOEXEC) != 0) {
    const int error = errno;
    close(status[0]);
    close(status[1]);
    return error;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    for (int fd : {status[0], status[1], out[0], out[1]})
      if (fd >= 0) close(fd);
    return error;
  }
  if (pid == 0) {
    if (spec.deathSignal != 0) {
      prctl(PR_SET_PDEATHSIG, spec.deathSignal);
      if (getppid() != parent) _exit(1);  // it died before prctl
    }
    if (spec.ownProcessGroup) setpgid(0, 0);
    if (spec.inputFromNull) {
      const int in = open("/dev/null", O_RDONLY);
      if (in < 0 || dup2(in, STDIN_FILENO) < 0) failStart(status[1]);
      close(in);
    }
    int target = -1;
    if (spec.output == ProcessSpec::Output::File) {
      target = open(spec.outputFile.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (target < 0) failStart(status[1]);
    } else if (spec.output == ProcessSpec::Output::Pipe) {
      target = out[1];
    }
    if (target >= 0) {
      if (dup2(target, STDOUT_FILENO) < 0) failStart(status[1]);
      if (spec.errorsWithOutput && dup2(target, STDERR_FILENO) < 0) failStart(status[1]);
      close(target);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s : {SIGINT, SIGTERM, SIGPIPE}) signal(s, SIG_DFL);
    if (!hangUpIgnored) signal(SIGHUP, SIG_DFL);
    if (executable != nullptr) {
      execve(executable, argv.data(), envp.data());
    } else {
      execvpe(argv[0], argv.data(), envp.data());
    }
    failStart(status[1]);
  }
  close(status[1]);
  if (out[1] >= 0) close(out[1]);
  int error = 0;
  ssize_t n;
  do {
    n = read(status[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  close(status[0]);
  if (n == static_cast<ssize_t>(sizeof error)) {  // it did not exec: reap it, report why
    waitProcess(pid);
    if (out[0] >= 0) close(out[0]);
    return error != 0 ? error : ECHILD;
  }
  child->pid = pid;
  child->output = out[0];
  return 0;
}

int exitStatusOf(int waitStatus) {
  if (WIFEXITED(waitStatus)) return WEXITSTATUS(waitStatus);
  if (WIFSIGNALED(waitStatus)) return 128 + WTERMSIG(waitStatus);
  return 128;
}

std::optional<int> waitProcess(pid_t pid, bool block) {
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, block ? 0 : WNOHANG);
    if (r == pid) return exitStatusOf(status);
    if (r < 0 && errno == EINTR) continue;
    return std::nullopt;
  }
}

std::string readToEnd(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

int runCapturing(const std::vector<std::string>& argv, std::string* output) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.output = ProcessSpec::Output::Pipe;
  spec.errorsWithOutput = false;
  spec.inputFromNull = false;
  ChildProcess child;
  if (startProcess(spec, &child) != 0) return 127;
  *output += readToEnd(child.output);
  return waitProcess(child.pid).value_or(127);
}

}  // namespace tbench
