#pragma once
// main() of a Qt Test class, alone or in a group executable (tb_test's GROUP,
// cmake/TowerbenchTargets.cmake).
//
//   TB_TEST_MAIN(TestCsv)          QTEST_MAIN: a QApplication with Qt Widgets, else as Qt decides
//   TB_TEST_GUILESS_MAIN(TestCsv)  QTEST_GUILESS_MAIN: a QCoreApplication
//   TB_TEST_APPLESS_MAIN(TestCsv)  QTEST_APPLESS_MAIN: no application
//
// Alone (no TB_TEST_GROUP), these are Qt's macros. In a group, each registers its test under the
// stem of its file ("test_Csv"), and tests/support/TestMain.cpp's main() runs the one named by
// the program's name (a link called test_Csv) or by its first argument (`tests_engine_data
// test_Csv -o out.xml,junitxml`), in a process of its own as before: one application, one test
// class, Qt Test's options and exit status unchanged.

#include <QtTest/qtest.h>

#ifdef TB_TEST_GROUP

namespace tbench::testing {
using TestMainFunction = int (*)(int argc, char** argv);
// Registers `main` under the stem of `file` (__FILE__); returns true.
bool registerTestMain(const char* file, TestMainFunction main);
}  // namespace tbench::testing

#define TB_TEST_CONCAT_(a, b) a##b
#define TB_TEST_CONCAT(a, b) TB_TEST_CONCAT_(a, b)

// QTEST_MAIN_WRAPPER's body (Qt 6.4, qtest.h), as a registered function instead of main().
// TestObject may be qualified (a group's test files each keep their names in a namespace).
#define TB_TEST_WRAPPER(TestObject, ...)                                                     \
  namespace {                                                                                \
  const bool TB_TEST_CONCAT(tbTestRegistered, __COUNTER__) =                                 \
      ::tbench::testing::registerTestMain(__FILE__, [](int argc, char* argv[]) -> int {      \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                   \
        __VA_ARGS__                                                                          \
        TestObject tc;                                                                       \
        QTEST_SET_MAIN_SOURCE_PATH                                                           \
        return QTest::qExec(&tc, argc, argv);                                                \
      });                                                                                    \
  }

#define TB_TEST_MAIN(TestObject) TB_TEST_WRAPPER(TestObject, QTEST_MAIN_SETUP())
#define TB_TEST_GUILESS_MAIN(TestObject) \
  TB_TEST_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
#define TB_TEST_APPLESS_MAIN(TestObject) TB_TEST_WRAPPER(TestObject)

#else

#define TB_TEST_MAIN(TestObject) QTEST_MAIN(TestObject)
#define TB_TEST_GUILESS_MAIN(TestObject) QTEST_GUILESS_MAIN(TestObject)
#define TB_TEST_APPLESS_MAIN(TestObject) QTEST_APPLESS_MAIN(TestObject)

#endif
