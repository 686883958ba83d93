#include "widgets/NumberAxisTicker.h"

#include <cmath>

namespace tbench::ui {

namespace {

// Values in [kPlainLow, kPlainHigh) are written out; others get an exponent.
constexpr double kPlainLow = 1e-3;
constexpr double kPlainHigh = 1e6;
constexpr int kMaxDecimals = 9;
constexpr int kMaxDigits = 4;

QString stripZeros(QString text) {
  if (!text.contains(QLatin1Char('.'))) return text;
  while (text.endsWith(QLatin1Char('0'))) text.chop(1);
  if (text.endsWith(QLatin1Char('.'))) text.chop(1);
  return text;
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), 1e-300); }

// "1e-4", "2.5e6": the fewest mantissa digits that give the value exactly.
QString withExponent(double value) {
  const int exponent = int(std::floor(std::log10(std::abs(value))));
  const double mantissa = value / std::pow(10.0, exponent);
  QString text;
  for (int decimals = 0; decimals < kMaxDigits; ++decimals) {
    text = QString::number(mantissa, 'f', decimals);
    if (same(text.toDouble() * std::pow(10.0, exponent), value)) break;
  }
  return stripZeros(text) + QLatin1Char('e') + QString::number(exponent);
}

// The decimals that write every multiple of `step` exactly (0.25 -> 2, 5 -> 0).
int decimalsFor(double step) {
  for (int d = 0; d < kMaxDecimals; ++d) {
    const double scaled = step * std::pow(10.0, d);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) return d;
  }
  return kMaxDecimals;
}

}  // namespace

QString NumberAxisTicker::label(double value, double step, TickFormat format) {
  if (format == TickFormat::Percent) {
    return label(value * 100.0, step * 100.0, TickFormat::Number) + QLatin1Char('%');
  }
  const double magnitude = std::abs(value);
  if (magnitude == 0.0 || (step > 0.0 && magnitude < step * 1e-6)) return QStringLiteral("0");
  if (magnitude < kPlainLow || magnitude >= kPlainHigh) return withExponent(value);
  if (step > 0.0) return stripZeros(QString::number(value, 'f', decimalsFor(step)));
  const int order = int(std::floor(std::log10(magnitude)));
  QString text;
  for (int digits = 1; digits <= kMaxDigits; ++digits) {
    text = QString::number(value, 'f', std::max(0, digits - 1 - order));
    if (same(text.toDouble(), value)) break;
  }
  return stripZeros(text);
}

double NumberAxisTicker::getTickStep(const QCPRange& range) {
  step_ = QCPAxisTicker::getTickStep(range);
  return step_;
}

QString NumberAxisTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return label(tick, step_, format_);
}

}  // namespace tbench::ui
