#pragma once
// ProjectEditor: the project editor panel. A Form tab (one group per section of
// docs/PROJECT-FORMAT.md but "trainer") and a JSON tab showing the same document as text.
//
// Synchronisation: a form edit changes the document and rewrites the JSON text at once; a
// text edit is parsed 300 ms after the last keystroke and, when it is a JSON object, fills the
// form. While the text does not parse the form is disabled and says where the parser stopped.
// Validation (ProjectServices::validate) runs 250 ms after the last change, and its problems
// show next to the fields they concern, the others in a list at the top of the form (and all
// of them under the JSON text). The learning-rate preview follows each valid document.
//
// Keys: the form writes a key only when the user changes its field, never a key of another
// type (switching the model to convnet removes "hidden"); other keys, and keys the form does
// not know, stay as they are. The "trainer" object belongs to the devices & strategy panel,
// which reads and writes it through trainerSection() and setTrainerSection().
//
// Widgets are named like the JSON path they edit, without "$." ("data.batch_size",
// "data.train.num_samples", "schedule.learning_rate.points", "callbacks", "callback.stat"),
// and a field's problems show in the label "<name>.issue".
//
// GUI thread only. The services are called on the GUI thread: analyze once per change, after
// the delays above (its summary() feeds the window's panels and Start); canonicalize once per
// setDocument().

#include <QJsonObject>
#include <QTimer>
#include <QWidget>
#include <optional>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/JsonPath.h"

class QLabel;
class QListWidget;
class QBoxLayout;
class QScrollArea;
class QTabWidget;

namespace tbench::gui {

class CallbackListEditor;
class IssueMarkers;
class JsonTextPage;
class ProjectSection;
class ScheduleEditor;

class ProjectEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ProjectEditor(bridge::ProjectServices services, QWidget* parent = nullptr);
  ~ProjectEditor() override;

  /// Loads a project file's text, with every default written out when
  /// ProjectServices::canonicalize accepts it, and validates it at once. Returns true when the
  /// project is valid; otherwise false with the problems in `*error` (one "path: message" per
  /// line). An invalid document is loaded all the same, for the user to fix. The editor is
  /// then unmodified.
  bool setDocument(const QString& jsonText, QString* error = nullptr);

  /// The document as it would be saved: the current object written by toProjectText (two-space
  /// indent, keys in a stable order), or the JSON tab's text as it is when it does not parse.
  QString document() const;
  /// The last document that parsed (empty before any).
  QJsonObject object() const { return root_; }
  /// True when the text does not parse.
  bool hasParseError() const { return !parsedOk_; }

  bool isModified() const { return modified_; }
  /// Makes the current document the unmodified one (after a save).
  void setUnmodified();

  /// The problems found by the last validation.
  bridge::ProjectIssueViews issues() const { return issues_; }
  /// The engine's analysis of the document at the last validation: its samples per step, steps
  /// per epoch, learning rate and strategy traits (one analysis per edit; nothing re-derives
  /// them). Current after validateNow().
  const bridge::ProjectSummaryView& summary() const { return summary_; }
  /// What form fields refused or found while the user typed (a number out of bounds, a path
  /// that does not exist): shown at the fields, not in the document, so not in issues().
  bridge::ProjectIssueViews inputProblems() const;
  /// The folder relative paths of the project are taken against (the project file's; empty:
  /// the current directory). Path fields check their text again.
  void setPathBase(const QString& dir);
  bool isValid() const { return valid_; }

  /// The "trainer" object (empty when absent).
  QJsonObject trainerSection() const;
  /// Replaces the "trainer" object (an empty one removes the key), rewrites the text, marks the
  /// document modified and validates it at once. Returns false, changing nothing, while the
  /// JSON text does not parse.
  bool setTrainerSection(const QJsonObject& trainer);

  /// Shows the Form (0) or JSON (1) tab.
  void showTab(int index);
  /// Validates now instead of after the delay (also applies text typed in the last 300 ms);
  /// the engine analyses the document only when it changed since the last analysis.
  void validateNow();
  /// Applies `edits` to the document as the form's fields do (the panels and Run ▸ Find
  /// Learning Rate…'s Use This Rate go through it): the text, the form and the validation
  /// follow, and the document is modified.
  void applyEdits(const JsonEdits& edits);

 signals:
  void modifiedChanged(bool modified);
  /// The document changed (any edit, a parsed text change, a load).
  void documentChanged();
  void validityChanged(bool valid);
  /// A validation produced a new summary() (after every edit, once the edits settle).
  void analyzed();

 private:
  void buildForm(QWidget* page);
  void documentEdited();
  void parseText();
  void loadSections();
  void showIssues();
  void updateModified();
  void goTo(const QString& path);
  /// Two columns of sections when both fit side by side at their preferred widths in the
  /// visible width of the form, else one below the other (never a horizontal scroll bar).
  void updateColumns();
  bool eventFilter(QObject* watched, QEvent* event) override;

  bridge::ProjectServices services_;
  QJsonObject root_;
  bool parsedOk_ = true;
  QString parseError_;
  int parseErrorOffset_ = -1;

  QTabWidget* tabs_;
  QScrollArea* formScroll_;
  QWidget* sectionsBox_ = nullptr;  // disabled while the text does not parse
  QBoxLayout* columns_ = nullptr;   // the two columns of sections, side by side or stacked
  QLabel* parseBanner_ = nullptr;
  QLabel* issuesTitle_ = nullptr;
  QListWidget* issueList_ = nullptr;
  JsonTextPage* jsonPage_;
  IssueMarkers* markers_ = nullptr;
  QList<ProjectSection*> sections_;
  ScheduleEditor* schedule_ = nullptr;
  CallbackListEditor* callbacks_ = nullptr;

  QTimer parseTimer_;     // text edits -> parseText
  QTimer validateTimer_;  // any change -> validateNow
  bridge::ProjectIssueViews issues_;
  bridge::ProjectSummaryView summary_;
  std::optional<QString> analyzedText_;  // the document summary_ describes
  bool valid_ = false;
  QString savedDocument_;
  bool modified_ = false;
};

}  // namespace tbench::gui
