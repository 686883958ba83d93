#pragma once
// Test support: sets (or unsets) one environment variable for a scope, then restores it.

#include <QByteArray>
#include <QtGlobal>

namespace tbench::testing {

class ScopedEnvironment {
 public:
  /// Sets `name` to `value`, or unsets it when `value` is null.
  ScopedEnvironment(const char* name, const char* value)
      : name_(name), had_(qEnvironmentVariableIsSet(name)), old_(qgetenv(name)) {
    if (value != nullptr) {
      qputenv(name_, value);
    } else {
      qunsetenv(name_);
    }
  }
  ~ScopedEnvironment() {
    if (had_) {
      qputenv(name_, old_);
    } else {
      qunsetenv(name_);
    }
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  bool had_;
  QByteArray old_;
};

}  // namespace tbench::testing
