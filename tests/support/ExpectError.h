#pragma once
// Test support: asserts that `f` throws tbench::InputError whose message contains both `where`
// (the file, field or position it must name) and `expected`.

#include <QString>
#include <QtTest>

#include "engine/core/Check.h"

namespace tbench::testing {

template <typename F>
void expectError(F&& f, const QString& where, const QString& expected) {
  try {
    f();
    QFAIL(qPrintable("no error for " + where));
  } catch (const InputError& e) {
    const QString message = QString::fromStdString(e.what());
    QVERIFY2(message.contains(where) && message.contains(expected), qPrintable(message));
  }
}

}  // namespace tbench::testing
