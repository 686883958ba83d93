#pragma once
// main() of a Qt Test class, alone or in a group executable (tb_test's GROUP,
// cmake/TowerbenchTargets.cmake).
//
//   TB_TEST_MAIN(TestCsv)          QTEST_MAIN: the application the test links (QApplication with
//                                  Qt Widgets, QGuiApplication with Qt Gui, else QCoreApplication)
//   TB_TEST_GUILESS_MAIN(TestCsv)  QTEST_GUILESS_MAIN: a QCoreApplication
//   TB_TEST_APPLESS_MAIN(TestCsv)  QTEST_APPLESS_MAIN: no application
//
// Unlike QTEST_MAIN, the application is chosen by the test's own compile (its QT_WIDGETS_LIB), not
// by the precompiled header's: the tests' LibTorch header is built without Qt Widgets, and a
// QCoreApplication made for a window's test aborts it.
//
// Alone (no TB_TEST_GROUP), each is main(). In a group, each registers its test under the stem of
// its file ("test_Csv"), and tests/support/TestMain.cpp's main() runs the one named by the
// program's name (a link called test_Csv) or by its first argument (`tests_engine_data test_Csv
// -o out.xml,junitxml`), in a process of its own as before: one application, one test class,
// Qt Test's options and exit status unchanged.

#include <QtTest/qtest.h>

#if defined(QT_WIDGETS_LIB)
#include <QtWidgets/QApplication>
#define TB_TEST_APPLICATION QApplication
#elif defined(QT_GUI_LIB)
#include <QtGui/QGuiApplication>
#define TB_TEST_APPLICATION QGuiApplication
#else
#define TB_TEST_APPLICATION QCoreApplication
#endif

// QTEST_MAIN_WRAPPER's body (Qt 6.4, qtest.h). TestObject may be qualified (a group's test files
// each keep their names in a namespace).
#define TB_TEST_BODY(TestObject, ...)                                \
  QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>(); \
  __VA_ARGS__                                                        \
  TestObject tc;                                                     \
  QTEST_SET_MAIN_SOURCE_PATH                                         \
  return QTest::qExec(&tc, argc, argv);

#ifdef TB_TEST_GROUP

namespace tbench::testing {
using TestMainFunction = int (*)(int argc, char** argv);
// Registers `main` under the stem of `file` (__FILE__); returns true.
bool registerTestMain(const char* file, TestMainFunction main);
}  // namespace tbench::testing

#define TB_TEST_CONCAT_(a, b) a##b
#define TB_TEST_CONCAT(a, b) TB_TEST_CONCAT_(a, b)

#define TB_TEST_WRAPPER(TestObject, ...)                                                          \
  namespace {                                                                                     \
  const bool TB_TEST_CONCAT(tbTestRegistered, __COUNTER__) = ::tbench::testing::registerTestMain( \
      __FILE__, [](int argc, char* argv[]) -> int { TB_TEST_BODY(TestObject, __VA_ARGS__) });     \
  }

#else

#define TB_TEST_WRAPPER(TestObject, ...) \
  int main(int argc, char* argv[]) { TB_TEST_BODY(TestObject, __VA_ARGS__) }

#endif

#define TB_TEST_MAIN(TestObject) TB_TEST_WRAPPER(TestObject, QTEST_QAPP_SETUP(TB_TEST_APPLICATION))
#define TB_TEST_GUILESS_MAIN(TestObject) \
  TB_TEST_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
#define TB_TEST_APPLESS_MAIN(TestObject) TB_TEST_WRAPPER(TestObject)
