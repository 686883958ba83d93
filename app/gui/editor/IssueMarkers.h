#pragma once
// IssueMarkers: shows the problems of a project document next to the widgets they concern.
//
// Every form field is registered with the JSON path it edits ("data.batch_size") and a label
// under it. An issue goes to the field whose path is the longest one equal to or enclosing the
// issue's path ("model.hidden" shows "$.model.hidden[1]"), among the fields that are visible
// and enabled: a field hidden because it belongs to another type cannot fix anything. That
// field gets a red border, the messages as its tooltip (before its own help) and the messages
// in its label. Issues no field takes are returned, for the summary list.
//
// A field may also have an input problem: what the user typed, which the field did not write
// to the document (FieldInput: "must be > 0"), or a path that does not exist. It is shown
// first, the same way, and stays until the field sets another (validation does not clear it).
// The path base is the folder relative paths are judged against (the project file's).
// GUI thread only.

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

class QLabel;
class QWidget;

namespace tbench::gui {

class IssueMarkers : public QObject {
  Q_OBJECT
 public:
  /// `scope`: fields are judged visible and enabled relative to this widget (the form page),
  /// so markers can be placed while the page is not the current tab.
  explicit IssueMarkers(QWidget* scope, QObject* parent = nullptr);

  /// Registers `field` as the editor of `path` (with or without "$."), its messages shown in
  /// `label` (may be null). With `enclosing` false the field takes only issues at `path`
  /// itself (a check box that adds or removes an object is not where its keys are fixed).
  /// A message about an element of the field's array names it "<itemName> <n>" (1-based) when
  /// `itemName` is given ("callback 5, stat: required"), by its index otherwise ("[1]: ...").
  /// Registering a field again replaces its path; a destroyed field is forgotten.
  void setField(QWidget* field, const QString& path, QLabel* label, bool enclosing = true,
                const QString& itemName = QString());

  /// The field that would show an issue at `path`, or nullptr.
  QWidget* fieldFor(const QString& path) const;

  /// Clears every marker, marks `issues` and returns those no field shows, in their order.
  bridge::ProjectIssueViews show(const bridge::ProjectIssueViews& issues);

  /// Sets (or, with an empty message, clears) the input problem of a registered `field`, and
  /// with `remark` marks the fields again at once. A section loading a document passes false
  /// (marking shows labels, which must not lay out a form whose rows are being changed; the
  /// editor marks every field once the sections are loaded).
  void setInputProblem(QWidget* field, const QString& message, bool remark = true);
  /// The input problem of `field` (empty when none).
  QString inputProblem(QWidget* field) const;
  /// Every input problem of a visible, enabled field, at the field's path.
  bridge::ProjectIssueViews inputProblems() const;

  /// The folder relative paths are taken against (empty: the current directory).
  void setPathBase(const QString& dir);
  const QString& pathBase() const { return pathBase_; }

  /// The issues last given to show(), for re-marking after fields were shown or hidden.
  const bridge::ProjectIssueViews& issues() const { return issues_; }

  /// A hidden, red, word-wrapping label for a field's messages, named "<fieldName>.issue".
  static QLabel* makeLabel(const QString& fieldName, QWidget* parent);

 private:
  struct Field {
    QString path;  // without "$."
    QPointer<QLabel> label;
    bool enclosing = true;
    QString itemName;
    QString help;  // the field's own tooltip
    QString inputProblem;
  };

  static QString where(const Field& entry, const QString& issuePath);
  void clear(QWidget* field, const Field& entry);
  void mark(QWidget* field, const Field& entry, const QStringList& messages);

  QWidget* scope_;
  QHash<QWidget*, Field> fields_;
  bridge::ProjectIssueViews issues_;
  QString pathBase_;

 signals:
  /// setPathBase changed the folder: path fields check their text again.
  void pathBaseChanged();
};

}  // namespace tbench::gui
