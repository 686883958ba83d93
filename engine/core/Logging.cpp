#include "engine/core/Logging.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>

namespace tbench::logging {
namespace {

struct State {
  std::mutex mutex;  // guards file, extraSink, extraUser and the write to stderr
  std::ofstream file;
  LineSink extraSink = nullptr;
  void* extraUser = nullptr;
};

State& state() {
  static State s;
  return s;
}

LogLevel initialLevel() {
  const char* quiet = std::getenv("TB_QUIET");
  return (quiet && *quiet && *quiet != '0') ? LogLevel::Warning : LogLevel::Info;
}

std::atomic<int>& levelValue() {
  static std::atomic<int> value{static_cast<int>(initialLevel())};
  return value;
}

const char* tag(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "DBG";
    case LogLevel::Info:
      return "INF";
    case LogLevel::Warning:
      return "WRN";
    case LogLevel::Error:
      return "ERR";
  }
  return "???";
}

}  // namespace

void setLevel(LogLevel level) { levelValue() = static_cast<int>(level); }
LogLevel level() { return static_cast<LogLevel>(levelValue().load()); }

bool openFile(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().file.close();
    state().file.clear();
    state().file.open(path, std::ios::app);
    if (state().file) return true;
  }
  write(LogLevel::Warning, "cannot open log file " + path);
  return false;
}

void closeFile() {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().file.close();
}

void setExtraSink(LineSink sink, void* user) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().extraSink = sink;
  state().extraUser = user;
}

void write(LogLevel lvl, const std::string& message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  std::ostringstream line;
  line << "[" << std::put_time(&tm, "%m%d %H:%M:%S") << " " << tag(lvl) << "] " << message;
  const std::string text = line.str();

  std::lock_guard<std::mutex> lock(state().mutex);
  if (lvl >= level()) std::cerr << text << '\n' << std::flush;
  // The run log keeps Info and above even when the terminal is quiet.
  if (state().file.is_open() && lvl >= LogLevel::Info) state().file << text << '\n' << std::flush;
  if (state().extraSink) state().extraSink(lvl, text, state().extraUser);
}

}  // namespace tbench::logging
