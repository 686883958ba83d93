#include "app/bridge/ProjectViews.h"
#pragma once
// FieldInput: what the form's text fields make of what the user types, before anything is
// written to the document. Each reader either returns the value the text means, or says why
// the text means none, in the words the field shows under itself ("must be > 0",
// "element 2, \"abc\", is not an integer"). Nothing is ever coerced: "-0.01" is read as -0.01
// and refused for a key that must be > 0, "256, abc" is refused, not read as [256].
//
// Paths are judged against the file system as they are typed: an input file or directory
// must exist and be of that kind; an output directory (KeyView::createdIfMissing) may be
// missing but must not be a file. Relative paths are taken against `baseDir` (the project
// file's folder, where the engine resolves them).

#include <QJsonArray>
#include <QString>
#include <limits>

namespace tbench::gui::input {

/// The bounds of a number, an integer or every element of a list (bridge::KeyView's).
struct Bounds {
  double minimum = -std::numeric_limits<double>::infinity();
  bool minimumInclusive = true;
  double maximum = std::numeric_limits<double>::infinity();
  bool maximumInclusive = true;

  /// ">= 1", "> 0", "in [0, 1)"; empty when open.
  QString text() const;
  bool contains(double value) const;
};

/// A finite number in the C locale ("1e-4", "-0.01"). Empty text is a problem ("a number is
/// needed"). Returns the problem, or an empty string with `*value` set.
QString readNumber(const QString& text, const Bounds& bounds, double* value);

/// A seed: an integer in [0, 2^63-1].
QString readSeed(const QString& text, qint64* value);

/// "256, 128": every element an integer within `bounds`; empty text is [].
QString readIntegerList(const QString& text, const Bounds& bounds, QJsonArray* value);

/// "0.5, 0.25": every element a finite number within `bounds`; empty text is [].
QString readNumberList(const QString& text, const Bounds& bounds, QJsonArray* value);

/// Why `path` is not usable (empty when it is, or when it is empty: required keys are the
/// validation's to flag). `directory`: a directory is wanted, else a file.
QString checkPath(const QString& path, bool directory, bool createdIfMissing,
                  const QString& baseDir);

}  // namespace tbench::gui::input
