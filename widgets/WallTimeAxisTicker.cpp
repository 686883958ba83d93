#include "widgets/WallTimeAxisTicker.h"

#include <cmath>

namespace tbench::ui {

namespace {

constexpr double kMinute = 60.0;
constexpr double kHour = 3600.0;
constexpr double kDay = 86400.0;
// Tick steps a clock reads, in seconds.
constexpr double kSteps[] = {
    1,       2,           5,           10,           15,           30,
    kMinute, 2 * kMinute, 5 * kMinute, 10 * kMinute, 15 * kMinute, 30 * kMinute,
    kHour,   2 * kHour,   3 * kHour,   6 * kHour,    12 * kHour,   kDay};

QString twoDigits(qint64 n) { return QStringLiteral("%1").arg(n, 2, 10, QLatin1Char('0')); }

}  // namespace

QString WallTimeAxisTicker::label(double seconds, double step, double rangeEnd) {
  const QString sign = seconds < -0.5 * std::min(step, 1.0) ? QStringLiteral("-") : QString();
  const double magnitude = std::abs(seconds);
  if (step < 1.0) {  // fractions of a second: "0:01.5"
    const int decimals = step >= 0.1 ? 1 : 2;
    const qint64 minutes = qint64(magnitude / kMinute);
    const double rest = magnitude - double(minutes) * kMinute;
    QString secondsText = QString::number(rest, 'f', decimals);
    if (rest < 10.0) secondsText.prepend(QLatin1Char('0'));
    return sign + QString::number(minutes) + QLatin1Char(':') + secondsText;
  }
  const qint64 total = qRound64(magnitude);
  const qint64 hours = total / qint64(kHour), minutes = (total / 60) % 60, secs = total % 60;
  if (std::abs(rangeEnd) < kHour && hours == 0)
    return sign + QString::number(total / 60) + QLatin1Char(':') + twoDigits(secs);
  QString text = sign + QString::number(hours) + QLatin1Char(':') + twoDigits(minutes);
  if (step < kMinute) text += QLatin1Char(':') + twoDigits(secs);
  return text;
}

double WallTimeAxisTicker::getTickStep(const QCPRange& range) {
  rangeEnd_ = std::max(std::abs(range.lower), std::abs(range.upper));
  const double wanted = range.size() / std::max(1.0, double(tickCount()));
  if (wanted < 1.0) {
    step_ = QCPAxisTicker::getTickStep(range);
    return step_;
  }
  step_ = 0.0;
  for (double s : kSteps) {
    if (s >= wanted) {
      step_ = s;
      break;
    }
  }
  if (step_ == 0.0) step_ = kDay * std::ceil(wanted / kDay);
  return step_;
}

int WallTimeAxisTicker::getSubTickCount(double tickStep) {
  // Sub-ticks on whole units where that is cheap to read: 5 min -> 4, 15 s -> 2, 1 h -> 3.
  for (double unit : {kHour / 4.0, kMinute, 5.0, 1.0}) {
    const double n = tickStep / unit;
    if (n > 1.0 && n <= 6.0 && std::abs(n - std::round(n)) < 1e-9) return int(std::round(n)) - 1;
  }
  return QCPAxisTicker::getSubTickCount(tickStep);
}

QString WallTimeAxisTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return label(tick, step_, rangeEnd_);
}

}  // namespace tbench::ui
