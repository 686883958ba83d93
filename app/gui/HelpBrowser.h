#pragma once
// HelpBrowser: Help's documents in the window (issue 37: Help had no documentation): the README
// (the guide), docs/PROJECT-FORMAT.md and docs/WRITE-A-TRAINER.md, compiled into the window as
// resources (resources/towerbench.qrc, under :/docs) and shown as Markdown, so they are there
// without the source tree or a browser. One window per document, raised when asked again.
// GUI thread.

#include <QDialog>
#include <QString>

class QTextBrowser;

namespace tbench::gui {

class HelpBrowser : public QDialog {
  Q_OBJECT

 public:
  /// `resource` is one of the :/docs files; `title` names the window.
  HelpBrowser(const QString& resource, const QString& title, QWidget* parent = nullptr);
  /// The document's text as read (Markdown); empty when the resource is missing.
  const QString& markdown() const { return markdown_; }

  /// Shows the document `resource` in its window under `parent`, making it if needed.
  static HelpBrowser* show(const QString& resource, const QString& title, QWidget* parent);

 private:
  QTextBrowser* browser_;
  QString markdown_;
};

}  // namespace tbench::gui
