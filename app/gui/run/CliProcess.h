#pragma once
// CliProcess: the window's one way to run `towerbench-cli` and read what it prints (a
// distributed run's `launch`, LaunchedRun; a sweep's queue, SweepSession). It owns the
// QProcess, merges stdout and stderr, splits the output into whole lines (a last line without
// its newline arrives before finished()), and maps how the process ended to one exit status,
// as a shell does: its own status when it exited, 128 + the signal's number when a signal
// ended it (SIGKILL when Qt does not say which), kExitStopped for the CLI's "stopped by a
// signal at a step boundary, its state saved", kExitCannotStart when it never started.
//
// Two ways to end with the window (Lifetime): a launch stops with it (the child gets SIGHUP
// from the kernel when the window dies: PR_SET_PDEATHSIG), a sweep's queue outlives it
// (leaveRunning(): the QProcess is left undeleted so that nothing kills the queue).
//
// QtCore only, no widget (tested in tests/app/gui/test_CliProcess.cpp). GUI thread.

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace tbench::gui {

class CliProcess : public QObject {
  Q_OBJECT

 public:
  /// towerbench-cli's status for a run or sweep stopped by SIGINT/SIGTERM/SIGHUP at a step
  /// boundary, its state saved (app/cli/CliArgs.cpp: the exit statuses of `towerbench-cli --help`).
  static constexpr int kExitStopped = 130;
  /// The program could not be started (a shell's 127).
  static constexpr int kExitCannotStart = 127;

  enum class Lifetime {
    StopsWithWindow,  ///< SIGHUP when the window dies; stopped by the destructor
    Outlives,         ///< no death signal; the destructor stops it unless leaveRunning()
  };

  explicit CliProcess(Lifetime lifetime, QObject* parent = nullptr);
  /// Stops a running process (SIGTERM, then SIGKILL after 5 s) unless leaveRunning() was
  /// called, without emitting anything.
  ~CliProcess() override;

  /// towerbench-cli beside the running program, or $TOWERBENCH_CLI when set.
  static QString defaultCli();
  /// Why `cli` cannot run (not there, not executable), naming it; empty when it can.
  static QString cliProblem(const QString& cli);

  /// The exit status of a process that ended with `code` and `status` (see the header note).
  static int exitStatus(int code, QProcess::ExitStatus status);

  /// Starts `program args` and waits (up to 10 s) until it runs. False with `*error` naming
  /// the program when it cannot start or this one still runs; nothing is emitted then.
  bool start(const QString& program, const QStringList& args, QString* error = nullptr);
  bool isRunning() const { return process_->state() != QProcess::NotRunning; }
  /// SIGTERM: the CLI stops at a step boundary and saves.
  void terminate() { process_->terminate(); }
  void kill() { process_->kill(); }
  /// Waits up to `ms` for the process to end (its finished() is emitted first); true if it ended.
  bool waitForFinished(int ms);
  /// The window closes and the process goes on (Lifetime::Outlives only): its output is no
  /// longer read and the destructor leaves it running.
  void leaveRunning() { leaveRunning_ = true; }
  /// The status of the last run, -1 while one runs or before any.
  int lastExitStatus() const { return exitStatus_; }

 signals:
  /// Whole output lines, in order, without their newlines.
  void lines(const QStringList& lines);
  /// The process ended with `exitStatus` (exitStatus()), after its last lines.
  void finished(int exitStatus);

 private:
  void readOutput(bool flush);

  const Lifetime lifetime_;
  /// Not a member object: its destructor would kill a process that leaveRunning() keeps.
  QProcess* process_ = new QProcess;
  QByteArray partial_;  // output after the last complete line
  bool leaveRunning_ = false;
  int exitStatus_ = -1;
};

}  // namespace tbench::gui
