#pragma once
// Logging to the terminal and, while a run is active, to the run's log.log.
//
//   TB_LOG(Info) << "epoch " << epoch << " done";
//
// Thread-safe: any thread may log; one mutex guards the sinks and each line is written whole.

#include <sstream>
#include <string>

namespace tbench {

enum class LogLevel { Debug = 0, Info = 1, Warning = 2, Error = 3 };

namespace logging {

/// Lines below this level are dropped. Default Info; the environment variable TB_QUIET=1
/// raises it to Warning (the test suite sets it).
void setLevel(LogLevel level);
LogLevel level();

/// Appends every following line to `path` (created if needed) until closeFile(). Returns false
/// and logs a warning if the file cannot be opened.
bool openFile(const std::string& path);
void closeFile();

/// Writes one line to the sinks, prefixed with time and level.
void write(LogLevel level, const std::string& message);

/// An extra sink, for example a GUI log view. Called with the formatted line, under the log
/// mutex: it must not log itself. Pass nullptr to remove.
using LineSink = void (*)(LogLevel, const std::string& line, void* user);
void setExtraSink(LineSink sink, void* user);

}  // namespace logging

/// Collects one line and writes it on destruction.
class LogMessage {
 public:
  explicit LogMessage(LogLevel level) : level_(level) {}
  ~LogMessage() { logging::write(level_, stream_.str()); }
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};

}  // namespace tbench

// Debug lines are built only when the level lets them through; Info and above always reach
// write(), which sends them to the run log even when the terminal is quiet.
#define TB_LOG(severity)                                           \
  if (::tbench::LogLevel::severity == ::tbench::LogLevel::Debug && \
      ::tbench::logging::level() > ::tbench::LogLevel::Debug) {    \
  } else                                                           \
    ::tbench::LogMessage(::tbench::LogLevel::severity).stream()
