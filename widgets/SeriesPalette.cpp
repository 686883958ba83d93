#include "widgets/SeriesPalette.h"

#include <array>

namespace tbench::ui {

QColor SeriesPalette::colour(int index) {
  static const std::array<QRgb, 10> tableau{0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                            0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
  const int n = int(tableau.size());
  return QColor::fromRgb(tableau[((index % n) + n) % n]);
}

CurveStyle SeriesPalette::styleFor(int runIndex, int slot, bool severalRuns, bool validation) {
  static const std::array<Qt::PenStyle, 4> styles{Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                                  Qt::DashDotLine};
  CurveStyle style;
  style.markers = validation;
  if (severalRuns) {
    style.colour = colour(runIndex);
    style.penStyle = styles[size_t(slot) % styles.size()];
  } else {
    style.colour = colour(slot);
    style.penStyle = validation ? Qt::DashLine : Qt::SolidLine;
  }
  return style;
}

}  // namespace tbench::ui
