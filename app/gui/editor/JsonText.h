#pragma once
// JsonText: the text of a project document as the editor writes it. Two-space indent; the keys
// of every object in the order of docs/PROJECT-FORMAT.md (ProjectSchema::keyOrder), unknown
// keys after them in alphabetical order; arrays of scalars (and of pairs of scalars, such as
// schedule points) on one line. Writing the same object always gives the same text.

#include <QJsonObject>
#include <QString>

namespace tbench::gui {

/// `object` as the editor shows and saves it, ending with a newline.
QString toProjectText(const QJsonObject& object);

/// A number as the editor writes it: integers in full, other values with the fewest digits
/// that read back exactly, in plain notation between 1e-4 and 1e16 ("0.0003", "1e-08").
QString formatNumber(double value);

/// The outcome of reading a document's text.
struct ParsedJson {
  bool ok = false;
  QJsonObject object;  ///< when ok
  QString error;       ///< when not ok: "line 3, column 7: missing comma" (1-based)
  int offset = -1;     ///< when not ok: character offset where the parser stopped
};

/// Reads `text` as a JSON object (anything else, such as an array, is an error).
ParsedJson parseJsonObject(const QString& text);

}  // namespace tbench::gui
