#pragma once
// LogAxisTicker: QCustomPlot's logarithmic ticker with labels that stay distinct.
//
// When the visible range spans less than about 1.6 decades (a constant learning rate, a cost
// that moves little), QCPAxisTickerLog falls back to linear tick positions such as 1.2e-3,
// 1.4e-3, 1.6e-3. With the exponent format at precision 0 those all read "10^-3"; this ticker
// gives every label the fewest mantissa digits (up to 3) that tell the value exactly, so
// decades still read "10^-3" and the ticks between them "1.2·10^-3". Use it with the number
// format "eb".

#include <qcustomplot.h>

namespace tbench::ui {

class LogAxisTicker : public QCPAxisTickerLog {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                       int precision) override;
};

/// Sets `axis` logarithmic with a LogAxisTicker and "eb" labels, or back to linear with "gb".
void setLogarithmic(QCPAxis& axis, bool on);

}  // namespace tbench::ui
