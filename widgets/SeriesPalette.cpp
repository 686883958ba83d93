#include "widgets/SeriesPalette.h"

#include "widgets/Palette.h"

#include <array>

namespace tbench::ui {

QColor SeriesPalette::colour(int index) { return Palette::categorical(index); }

CurveStyle SeriesPalette::styleFor(const QColor& runColour, int slot, bool severalRuns,
                                   bool validation) {
  static const std::array<Qt::PenStyle, 4> styles{Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                                  Qt::DashDotLine};
  CurveStyle style;
  style.markers = validation;
  if (severalRuns) {
    style.colour = runColour;
    style.penStyle = styles[size_t(slot) % styles.size()];
  } else {
    style.colour = colour(slot);
    style.penStyle = validation ? Qt::DashLine : Qt::SolidLine;
  }
  return style;
}

}  // namespace tbench::ui
