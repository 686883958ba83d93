#pragma once
// CallbackListEditor: the "callbacks" array. A list ("callbacks") of the callbacks in run
// order with Add (a menu of the types, "callbacks.add"), Remove, Up and Down buttons
// ("callbacks.remove", "callbacks.up", "callbacks.down"), and under it the settings of the
// selected callback: a FormSection at "callbacks[<row>]" whose fields are named
// "callback.<key>" (scalars, max_to_keep, keep_every_hours, every_k_epochs, stat,
// every_k_steps), only those of its type shown.
//
// A project without the key runs the default callbacks: the list shows them with a note, and
// the first change writes the whole list. A row with a problem gets a warning icon and the
// messages as its tooltip; the messages also show under the list unless a settings field of
// the selected row shows them. GUI thread only.

#include <QJsonArray>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/ProjectSection.h"

class QLabel;
class QListWidget;
class QToolButton;

namespace tbench::gui {

class FormSection;
class IssueMarkers;

class CallbackListEditor : public ProjectSection {
  Q_OBJECT
 public:
  explicit CallbackListEditor(IssueMarkers* markers, QWidget* parent = nullptr);

  void load(const QJsonObject& root) override;

  /// Marks the rows that `issues` concern (icon and tooltip).
  void setIssues(const bridge::ProjectIssueViews& issues);

  /// The selected row, -1 when the list is empty.
  int currentRow() const;
  void setCurrentRow(int row);
  QListWidget* list() const { return list_; }

  /// Appends a callback of `type` (schema::newCallback) after the selected row and selects it.
  void addCallback(const QString& type);
  void removeCurrent();
  /// Moves the selected callback by `delta` rows (-1 up, +1 down).
  void moveCurrent(int delta);

 signals:
  /// Another callback was selected: its settings fields now edit other paths.
  void currentChanged(int row);

 private:
  void showList();
  void showSettings();
  void emitList(const QJsonArray& callbacks, int selectRow);

  QListWidget* list_;
  QLabel* defaultNote_;
  QToolButton* add_;
  QToolButton* remove_;
  QToolButton* up_;
  QToolButton* down_;
  QLabel* settingsTitle_;
  FormSection* settings_;
  QJsonObject root_;        // as of the last load
  QJsonArray callbacks_;    // the list shown (the defaults when the key is absent)
  bool isDefault_ = false;  // the document has no "callbacks" key
  int selected_ = -1;
  bool loading_ = false;
};

}  // namespace tbench::gui
