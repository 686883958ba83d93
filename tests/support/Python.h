#pragma once
// Test support: runs Debian's Python (/usr/bin/python3, the interpreter python3-torch, NumPy,
// PIL and scikit-learn are installed for; the first python3 on PATH may be another one).

#include <QByteArray>
#include <QProcess>
#include <QStringList>

namespace tbench::testing {

struct PythonRun {
  bool ok = false;  ///< finished in time with exit code 0
  QByteArray out;
  QByteArray err;
};

/// `/usr/bin/python3 args...`, waiting up to `timeoutMs`.
inline PythonRun runPython(const QStringList& args, int timeoutMs = 120000) {
  QProcess python;
  python.start("/usr/bin/python3", args);
  PythonRun run;
  const bool finished = python.waitForFinished(timeoutMs);
  run.ok = finished && python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0;
  run.out = python.readAllStandardOutput();
  run.err = python.readAllStandardError();
  return run;
}

}  // namespace tbench::testing
