#pragma once
// Test support: runs Debian's Python (/usr/bin/python3, the interpreter python3-torch, NumPy,
// PIL and scikit-learn are installed for; the first python3 on PATH may be another one).

#include <QByteArray>
#include <QProcess>
#include <QStringList>
#include <QtGlobal>

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

/// Whether a missing interop dependency (python3-torch, torchrun) fails the test instead of
/// skipping it: under CI (.ci/run sets TB_REQUIRE_INTEROP=1), where the contract with PyTorch
/// must be checked, not skipped with the suite still green.
inline bool interopRequired() { return qEnvironmentVariableIntValue("TB_REQUIRE_INTEROP") == 1; }

}  // namespace tbench::testing

/// QSKIP with `reason`, or QFAIL with it where interopRequired().
#define TB_SKIP_WITHOUT_INTEROP(reason)                       \
  do {                                                        \
    if (tbench::testing::interopRequired())                   \
      QFAIL(reason " (required here: TB_REQUIRE_INTEROP=1)"); \
    QSKIP(reason);                                            \
  } while (false)
