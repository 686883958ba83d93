#pragma once
// Test support: runs Debian's Python (/usr/bin/python3, the interpreter python3-torch, NumPy,
// PIL and scikit-learn are installed for; the first python3 on PATH may be another one).

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QList>
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

/// `script` run once for each list of arguments, in one interpreter (`runpy`, sys.argv as the
/// script sees it on a command line): importing torch costs ~1.5 s an interpreter on the 2-core
/// machines. Stops at the first run that fails; `out` and `err` hold every run's.
inline PythonRun runPythonScriptEach(const QString& script, const QList<QStringList>& argLists,
                                     int timeoutMs = 300000) {
  QStringList args{"-c", R"(
import json, runpy, sys
script = sys.argv[1]
for arguments in json.loads(sys.argv[2]):
    sys.argv = [script] + arguments
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raise
)",
                   script};
  QJsonArray lists;
  for (const QStringList& list : argLists) lists.append(QJsonArray::fromStringList(list));
  args << QString::fromUtf8(QJsonDocument(lists).toJson(QJsonDocument::Compact));
  return runPython(args, timeoutMs);
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
