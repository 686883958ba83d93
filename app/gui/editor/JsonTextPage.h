#pragma once
// JsonTextPage: the JSON tab. The document's text in a plain text editor ("json") and under
// it every problem of the document ("json.issues"); clicking a problem puts the cursor where
// it is. A syntax error is shown above the text ("json.syntaxError": line, column, what the
// parser says, and a link that moves the cursor there), its line is highlighted, and the cursor
// goes there unless the user is typing in the text. The page only shows and reports:
// ProjectEditor parses and validates. GUI thread only.

#include <QWidget>

#include "app/bridge/BridgeTypes.h"
#include "app/bridge/ProjectViews.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;

namespace tbench::gui {

/// Makes `list` as high as its rows, up to `maxRows` (then it scrolls).
void fitListHeight(QListWidget* list, int maxRows);

class JsonTextPage : public QWidget {
  Q_OBJECT
 public:
  explicit JsonTextPage(QWidget* parent = nullptr);

  QString text() const;
  /// Replaces the text as one undoable edit, keeping the scroll position and the cursor (at the
  /// same offset, clamped). Emits nothing.
  void setText(const QString& text);

  /// Puts the cursor at the start and scrolls there (a newly loaded document).
  void showStart();

  /// Lists `issues`; `parseErrorOffset` (>= 0 when the text does not parse) is where a click
  /// on the problem at "$" goes.
  void setIssues(const bridge::ProjectIssueViews& issues, int parseErrorOffset);

  /// Shows the parser's `message` ("line 3, column 7: missing comma") above the text and
  /// highlights the line of `offset`; an empty message hides it. The cursor moves to `offset`
  /// when the text editor does not have the focus (a loaded file, the form's banner).
  void setSyntaxError(const QString& message, int offset);
  /// The banner's text (empty when the text parses).
  QString syntaxError() const;
  /// Moves the cursor to the syntax error, focused.
  void goToSyntaxError() { moveCursorTo(parseErrorOffset_); }

  /// Puts the cursor at the key `path` ends with ("$.data.train.foo" -> "foo" inside "train"
  /// inside "data"), as near as the text allows, and scrolls to it.
  void locate(const QString& path);

  QPlainTextEdit* editor() const { return editor_; }
  QListWidget* issueList() const { return issues_; }

 signals:
  /// The user changed the text.
  void textEdited();

 private:
  void moveCursorTo(int offset, bool focus = true);

  QPlainTextEdit* editor_;
  QLabel* syntaxError_;
  QLabel* summary_;
  QListWidget* issues_;
  int parseErrorOffset_ = -1;
  bool settingText_ = false;
};

}  // namespace tbench::gui
