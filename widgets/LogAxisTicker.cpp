#include "widgets/LogAxisTicker.h"

#include <cmath>

namespace tbench::ui {

QString LogAxisTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                                    int precision) {
  constexpr int kMaxDigits = 3;
  for (int digits = 0; digits < kMaxDigits; ++digits) {
    const QString label = locale.toString(tick, 'e', digits);
    if (std::abs(locale.toDouble(label) - tick) <= 1e-9 * std::abs(tick)) return label;
  }
  return locale.toString(tick, 'e', kMaxDigits);
}

void setLogarithmic(QCPAxis& axis, bool on) {
  axis.setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  axis.setTicker(on ? QSharedPointer<QCPAxisTicker>(new LogAxisTicker)
                    : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  axis.setNumberFormat(on ? QStringLiteral("eb") : QStringLiteral("gb"));  // 10^-3, not 0.001
  axis.setNumberPrecision(on ? 0 : 6);
}

}  // namespace tbench::ui
