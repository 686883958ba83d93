#pragma once
// main() of a Qt test that CTest should show as skipped (its SKIP_RETURN_CODE 77) when the
// test says it could not run here (`bool skipped() const`: no SLURM, no root, ...), instead
// of the plain pass QSKIP in initTestCase gives.

#include <QCoreApplication>
#include <QtTest>

namespace tbench::testing {

template <class Test>
int runSkippable(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  Test test;
  const int failed = QTest::qExec(&test, argc, argv);
  return failed == 0 && test.skipped() ? 77 : failed;
}

}  // namespace tbench::testing
