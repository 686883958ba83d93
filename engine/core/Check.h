#pragma once
// TB_CHECK: precondition checks that put the offending values in the message.
//
//   TB_CHECK(batch > 0, "batch size must be positive, got ", batch);
//
// throws tbench::CheckError("batch size must be positive, got 0 (check `batch > 0` failed at
// BatchData.cpp:31)"). Use it for internal contracts and programming errors; user input is
// validated at the boundary with the more specific error types.

#include <sstream>
#include <stdexcept>
#include <string>

namespace tbench {

/// A violated precondition or invariant. The message names the check and where it failed.
class CheckError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Bad user input: a malformed file, an out-of-range setting. The message names the file,
/// field or offset.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
[[noreturn]] void throwCheckError(const char* condition, const char* file, int line,
                                  const std::string& message);
}  // namespace detail

/// Concatenates its arguments with operator<<.
template <typename... Args>
std::string str(const Args&... args) {
  return detail::concat(args...);
}

}  // namespace tbench

#define TB_CHECK(condition, ...)                                                      \
  do {                                                                                \
    if (!(condition)) {                                                               \
      ::tbench::detail::throwCheckError(#condition, __FILE__, __LINE__,               \
                                        ::tbench::detail::concat("", ##__VA_ARGS__)); \
    }                                                                                 \
  } while (false)
