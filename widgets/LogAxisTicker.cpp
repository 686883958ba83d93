#include "widgets/LogAxisTicker.h"

#include "widgets/NumberAxisTicker.h"

namespace tbench::ui {

QString LogAxisTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return NumberAxisTicker::label(tick, 0.0, format_);
}

void setValueScale(QCPAxis& axis, bool logarithmic, TickFormat format) {
  const int tickCount = axis.ticker() ? axis.ticker()->tickCount() : 5;
  axis.setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  axis.setTicker(logarithmic ? QSharedPointer<QCPAxisTicker>(new LogAxisTicker(format))
                             : QSharedPointer<QCPAxisTicker>(new NumberAxisTicker(format)));
  axis.ticker()->setTickCount(tickCount);
  // The tickers write the labels; "g" keeps QCustomPlot from turning an "e" into "·10^".
  axis.setNumberFormat(QStringLiteral("g"));
}

}  // namespace tbench::ui
