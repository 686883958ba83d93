#pragma once
// NumberAxisTicker: QCustomPlot's linear ticker with labels people read at a glance: plain
// numbers with as many decimals as the tick step needs ("0.25", "2", "1200"), an exponent only
// for very small or large values ("1e-4", "2.5e6"), never QCustomPlot's "2.5·10⁰"; or, in
// percent mode, a fraction in [0, 1] as "0%" .. "100%".

#include <qcustomplot.h>

#include "widgets/ChartPlacement.h"

namespace tbench::ui {

class NumberAxisTicker : public QCPAxisTicker {
 public:
  explicit NumberAxisTicker(TickFormat format = TickFormat::Number) : format_(format) {}

  /// The label of `value` on an axis whose ticks are `step` apart (0: unknown, as on a log
  /// axis; then the fewest significant digits, up to 4, that give the value exactly).
  static QString label(double value, double step, TickFormat format = TickFormat::Number);

 protected:
  double getTickStep(const QCPRange& range) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                       int precision) override;

 private:
  TickFormat format_;
  double step_ = 0.0;  // of the last generated ticks
};

}  // namespace tbench::ui
