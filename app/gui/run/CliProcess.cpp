#include "app/gui/run/CliProcess.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

namespace tbench::gui {

CliProcess::CliProcess(Lifetime lifetime, QObject* parent) : QObject(parent), lifetime_(lifetime) {
  process_->setProcessChannelMode(QProcess::MergedChannels);
  if (lifetime_ == Lifetime::StopsWithWindow) {
    // A window that is killed (or crashes) cannot stop its child: the child gets SIGHUP then,
    // which the CLI handles as a stop (Note [Launch outlives its reader], LaunchCommand.cpp).
    process_->setChildProcessModifier([window = ::getpid()] {
      ::prctl(PR_SET_PDEATHSIG, SIGHUP);
      if (::getppid() != window) ::_exit(128 + SIGHUP);  // the window died before prctl
    });
  }
  connect(process_, &QProcess::readyReadStandardOutput, this, [this] { readOutput(false); });
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    readOutput(true);
    exitStatus_ = exitStatus(code, status);
    emit finished(exitStatus_);
  });
}

CliProcess::~CliProcess() {
  // Its owner may be half destroyed: nothing goes out.
  process_->blockSignals(true);
  if (leaveRunning_ && lifetime_ == Lifetime::Outlives && isRunning()) return;  // leaked
  if (isRunning()) {
    process_->terminate();
    if (!process_->waitForFinished(5000)) process_->kill();
    process_->waitForFinished(2000);
  }
  delete process_;
}

QString CliProcess::defaultCli() {
  const QString fromEnvironment = qEnvironmentVariable("TOWERBENCH_CLI");
  if (!fromEnvironment.isEmpty()) return fromEnvironment;
  return QDir(QCoreApplication::applicationDirPath()).filePath("towerbench-cli");
}

QString CliProcess::cliProblem(const QString& cli) {
  if (QFileInfo(cli).isExecutable()) return {};
  return tr("%1 is not there: the window runs distributed runs and sweeps with towerbench-cli "
            "(set TOWERBENCH_CLI to its path)")
      .arg(QDir::toNativeSeparators(cli));
}

int CliProcess::exitStatus(int code, QProcess::ExitStatus status) {
  // Qt on Unix gives a crashed process's signal as its code.
  if (status == QProcess::NormalExit) return code;
  return 128 + (code > 0 ? code : SIGKILL);
}

bool CliProcess::start(const QString& program, const QStringList& args, QString* error) {
  if (isRunning()) {
    if (error) *error = tr("%1 is still running").arg(program);
    return false;
  }
  partial_.clear();
  exitStatus_ = -1;
  leaveRunning_ = false;
  process_->start(program, args);
  if (!process_->waitForStarted(10000)) {
    if (error) *error = tr("cannot start %1: %2").arg(program, process_->errorString());
    process_->kill();  // still starting after 10 s: not a process this one follows
    exitStatus_ = kExitCannotStart;
    return false;
  }
  return true;
}

bool CliProcess::waitForFinished(int ms) {
  if (!isRunning()) return true;
  return process_->waitForFinished(ms);
}

void CliProcess::readOutput(bool flush) {
  partial_ += process_->readAllStandardOutput();
  QStringList out;
  qsizetype begin = 0, end;
  while ((end = partial_.indexOf('\n', begin)) >= 0) {
    out << QString::fromUtf8(partial_.mid(begin, end - begin));
    begin = end + 1;
  }
  partial_.remove(0, begin);
  if (flush && !partial_.isEmpty()) {
    out << QString::fromUtf8(partial_);
    partial_.clear();
  }
  if (!out.isEmpty()) emit lines(out);
}

}  // namespace tbench::gui
