#pragma once
// Palette: every colour the window and the plots use, in one place (the icon in
// resources/icons uses the same hues). Widgets and panels name a role, never a value.

#include <QColor>
#include <QString>

namespace tbench::ui {

class Palette {
 public:
  /// A colour-blind-friendly categorical colour (Tableau 10) for the first ten; after them,
  /// hues a golden angle apart (no two the same): curves, runs.
  static QColor categorical(int index);
  static QColor error();    ///< problems, failed runs, error log lines
  static QColor warning();  ///< warnings, stopped runs
  static QColor active();   ///< running runs
  static QColor good();     ///< a positive correlation, a best value
  static QColor cursor();   ///< the charts' cursor line (translucent)

  /// Style sheets for text in a role: "color: ...;" (muted follows the platform palette).
  static QString errorText();
  static QString mutedText();
  /// The colour as "#rrggbb", for rich text.
  static QString hex(const QColor& colour) { return colour.name(QColor::HexRgb); }
};

}  // namespace tbench::ui
