#pragma once
// WallTimeAxisTicker: ticks for seconds since a run's first point, at steps a clock reads
// (1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12 h; days), labelled short
// enough not to run together: "m:ss" below an hour ("0:30", "12:05"), "h:mm" from an hour on
// ("1:30"), "h:mm:ss" only where ticks are less than a minute apart past the hour.

#include <qcustomplot.h>

namespace tbench::ui {

class WallTimeAxisTicker : public QCPAxisTicker {
 public:
  /// The label of `seconds` on an axis whose ticks are `step` seconds apart and whose range
  /// ends at `rangeEnd` seconds (which decides between "m:ss" and "h:mm").
  static QString label(double seconds, double step, double rangeEnd);

 protected:
  double getTickStep(const QCPRange& range) override;
  int getSubTickCount(double tickStep) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                       int precision) override;

 private:
  double step_ = 1.0;
  double rangeEnd_ = 0.0;
};

}  // namespace tbench::ui
