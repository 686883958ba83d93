#pragma once
// LogAxisTicker: QCustomPlot's logarithmic ticker with plain labels (NumberAxisTicker::label):
// decades read "0.01", "0.1", "1", "10" or "1e-4", and the linear ticks QCPAxisTickerLog falls
// back to over less than about 1.6 decades (a constant learning rate, a cost that moves little)
// read "0.0012", "0.0014": every label distinct, never "2.5·10⁰".

#include <qcustomplot.h>

#include "widgets/ChartPlacement.h"

namespace tbench::ui {

class LogAxisTicker : public QCPAxisTickerLog {
 public:
  explicit LogAxisTicker(TickFormat format = TickFormat::Number) : format_(format) {}

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                       int precision) override;

 private:
  TickFormat format_;
};

/// Sets `axis` logarithmic (LogAxisTicker) or linear (NumberAxisTicker), labelled in `format`.
void setValueScale(QCPAxis& axis, bool logarithmic, TickFormat format = TickFormat::Number);

}  // namespace tbench::ui
