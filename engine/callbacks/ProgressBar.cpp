#include "engine/callbacks/ProgressBar.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "engine/core/Logging.h"

namespace tbench {

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto total = static_cast<int64_t>(seconds + 0.5);
  char buffer[32];
  if (total >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  } else {
    std::snprintf(buffer, sizeof buffer, "%02lld:%02lld", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  }
  return buffer;
}

ProgressBar::ProgressBar(std::vector<std::string> scalars) : scalars_(std::move(scalars)) {}

void ProgressBar::onBeforeTrain() {
  enabled_ = logging::level() <= LogLevel::Info;
  terminal_ = ::isatty(STDERR_FILENO) == 1;
}

void ProgressBar::onBeforeEpoch() {
  epochClock_.restart(context());
  lastDraw_ = -1;
  lastPlainDecile_ = 0;
}

void ProgressBar::onTriggerStep() {
  if (!enabled_) return;
  const int64_t done = context().localStep() + 1;
  if (terminal_) {
    const double now = epochClock_.elapsed();
    if (lastDraw_ >= 0 && now - lastDraw_ < 0.1) return;  // at most 10 redraws a second
    lastDraw_ = now;
    draw(done, false);
  } else {
    const int64_t total = context().stepsPerEpoch();
    const int64_t decile = total > 0 ? done * 10 / total : 0;
    if (decile > lastPlainDecile_ && done < total) {
      lastPlainDecile_ = decile;
      draw(done, false);
    }
  }
}

void ProgressBar::onAfterEpoch() {
  if (enabled_) draw(context().stepsPerEpoch(), true);
}

std::string ProgressBar::scalarText() const {
  std::ostringstream out;
  for (const auto& name : scalars_) {
    if (auto value = context().monitors().latest(name)) {
      out << ", " << name << "=" << std::setprecision(4) << *value;
    }
  }
  return out.str();
}

void ProgressBar::draw(int64_t done, bool final) {
  const int64_t total = context().stepsPerEpoch();
  const double elapsed = epochClock_.elapsed();
  const double running = epochClock_.running(context());
  const double rate =
      running > 0 ? static_cast<double>(done - epochClock_.stepsBefore()) / running : 0.0;
  const double left = rate > 0 ? (total - done) / rate : NAN;
  const int percent = total > 0 ? static_cast<int>(100 * done / total) : 100;

  std::ostringstream line;
  line << "epoch " << context().epochNum() << "/" << context().maxEpoch() << " " << std::setw(3)
       << percent << "%";
  if (terminal_) {
    constexpr int kWidth = 25;
    const int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
    line << "|" << std::string(filled, '#') << std::string(kWidth - filled, ' ') << "|";
  }
  line << " " << done << "/" << total << " [" << formatDuration(elapsed) << "<"
       << formatDuration(left) << ", " << std::fixed << std::setprecision(2) << rate << "it/s"
       << std::defaultfloat << scalarText() << "]";

  if (terminal_) {
    std::fprintf(stderr, "\r%s\033[K%s", line.str().c_str(), final ? "\n" : "");
    std::fflush(stderr);
  } else {
    std::fprintf(stderr, "%s\n", line.str().c_str());
  }
}

}  // namespace tbench
