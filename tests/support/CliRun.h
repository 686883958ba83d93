#pragma once
// Test support: runs towerbench-cli (or another program) to its end, as a user's shell would:
// stdin closed (it never prompts), killed when it outlives the test's patience.

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace tbench::testing {

struct CliResult {
  int exitCode = -1;  ///< -1: crashed, or killed after the timeout
  QString out;        ///< standard output (with standard error when merged)
  QString err;
};

/// `program args` in `env` (the test's own environment when empty); `mergeOutput` puts standard
/// error into `out`, in the order written.
inline CliResult runProgram(const QString& program, const QStringList& args,
                            const QProcessEnvironment& env = {}, int timeoutMs = 120000,
                            bool mergeOutput = false) {
  QProcess process;
  process.setProcessEnvironment(env.isEmpty() ? QProcessEnvironment::systemEnvironment() : env);
  if (mergeOutput) process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(program, args);
  process.closeWriteChannel();
  if (!process.waitForFinished(timeoutMs)) {
    process.kill();
    process.waitForFinished();
    return {-1, QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
  }
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromUtf8(process.readAllStandardOutput()),
          QString::fromUtf8(process.readAllStandardError())};
}

}  // namespace tbench::testing
