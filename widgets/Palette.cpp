#include "widgets/Palette.h"

#include <array>
#include <cmath>

namespace tbench::ui {

QColor Palette::categorical(int index) {
  static const std::array<QRgb, 10> tableau{0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                            0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
  const int n = int(tableau.size());
  if (index >= 0 && index < n) return QColor::fromRgb(tableau[index]);
  if (index < 0) return QColor::fromRgb(tableau[((index % n) + n) % n]);
  // Beyond ten (a sweep's trials on the plots): hues a golden angle apart, never a repeat of
  // each other, at the Tableau colours' saturation and value.
  const int hue = static_cast<int>(std::lround(std::fmod(25.0 + (index - n) * 137.507764, 360.0)));
  return QColor::fromHsv(hue, 150, 200);
}

QColor Palette::error() { return QColor(0xc6, 0x28, 0x28); }
QColor Palette::warning() { return QColor(0xb2, 0x6a, 0x00); }
QColor Palette::active() { return QColor(0x1f, 0x6f, 0xd0); }
QColor Palette::good() { return QColor(0x2e, 0x8b, 0x57); }
QColor Palette::cursor() { return QColor(0, 0, 0, 110); }

QString Palette::errorText() { return QStringLiteral("color: %1;").arg(hex(error())); }
QString Palette::mutedText() { return QStringLiteral("color: palette(mid);"); }

}  // namespace tbench::ui
