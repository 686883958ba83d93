#pragma once
// SeriesPalette: how a curve looks. A scalar and its validation twin ("cost",
// "validation_cost") share a slot. With one run in a chart every slot gets its own colour and
// the validation curve is dashed; with several runs overlaid the colour names the run (the
// same in every chart) and the pen style names the slot. Validation curves, one point per
// epoch, also get markers.

#include <QColor>
#include <Qt>

namespace tbench::ui {

struct CurveStyle {
  QColor colour;
  Qt::PenStyle penStyle = Qt::SolidLine;
  bool markers = false;
};

class SeriesPalette {
 public:
  /// Palette::categorical (Tableau 10).
  static QColor colour(int index);
  /// `runColour`: the run's own colour; `slot`: the position of the scalar's base name
  /// (ChartGrouping::baseName) among those of its chart; `severalRuns`: more than one run is
  /// visible there.
  static CurveStyle styleFor(const QColor& runColour, int slot, bool severalRuns, bool validation);
};

}  // namespace tbench::ui
