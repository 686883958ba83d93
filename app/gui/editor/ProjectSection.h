#pragma once
// ProjectSection: one group of the project form (model, data, schedule, ...). A section shows
// the part of the document it edits and describes each user change as JsonEdits; it never
// changes the document itself. The editor applies the edits, then calls load() on every
// section with the new document.
//
// load() must not emit edited(), and must leave a field the user is typing in as it is when its
// text already means the loaded value (so the cursor does not jump while typing "1e-4").
// GUI thread only.

#include <QGroupBox>
#include <QJsonObject>

#include "app/gui/editor/JsonPath.h"

namespace tbench::gui {

class ProjectSection : public QGroupBox {
  Q_OBJECT
 public:
  using QGroupBox::QGroupBox;

  /// Shows the document `root` (the whole project object).
  virtual void load(const QJsonObject& root) = 0;

 signals:
  /// The user changed something: apply `edits` to the document.
  void edited(const tbench::gui::JsonEdits& edits);
};

}  // namespace tbench::gui
