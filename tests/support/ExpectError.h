#pragma once
// Test support: asserts that `f` throws tbench::InputError whose message contains both `where`
// (the file, field or position it must name) and `expected`; the message of what `f` throws.

#include <QString>
#include <QtTest>

#include <optional>
#include <string>

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

/// The message of the exception of type E that `f` throws, or nullopt if it throws none.
template <typename E, typename F>
std::optional<std::string> messageOf(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

/// Whether there is a message and it contains `part`.
inline bool contains(const std::optional<std::string>& message, const std::string& part) {
  return message && message->find(part) != std::string::npos;
}

}  // namespace tbench::testing
