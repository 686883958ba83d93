#pragma once
// ProjectDocument: where the edited project (ProjectEditor's document) comes from and goes to:
// open, a template, save, save as, the unsaved-changes question, File ▸ Open Recent (kept in
// QSettings), and the name and path the window's title shows. A project cloned from a run is
// an untitled document whose relative paths stay the original's. GUI thread.

#include <QMessageBox>
#include <QObject>

#include <QStringList>
#include "app/gui/Asker.h"

class QMenu;
class QWidget;

namespace tbench::gui {

class ProjectEditor;

class ProjectDocument : public QObject {
  Q_OBJECT

 public:
  /// Dialogs are `window`'s; `ask` is called for the unsaved-changes question.
  ProjectDocument(ProjectEditor* editor, QWidget* window, const Asker* ask);

  /// Opens a project file. False (after telling the user) when it cannot be read; an invalid
  /// project is opened all the same, with its problems shown next to their fields.
  bool open(const QString& path);
  /// File ▸ Open…: asks for a file (after the unsaved-changes question).
  void openChosen();
  /// Loads a template embedded in the program as a new, untitled project.
  bool openTemplate(const QString& resource);
  /// Opens the project `runDir` (Run History's `runName`) ran with, its project.json, as a new,
  /// untitled project; its relative paths keep meaning the open project's folder. False when
  /// it cannot be read (after telling the user) or the user cancelled.
  bool openClone(const QString& runDir, const QString& runName);
  /// Writes the document to `path`; false (after telling the user) on failure.
  bool saveAs(const QString& path);
  /// File ▸ Save: to its file, or asks for one.
  bool save();
  /// File ▸ Save As…: asks for a file.
  bool saveChosen();
  /// Asks whether to save unsaved changes; false when the user cancels (or saving failed).
  bool maybeSave();

  QString path() const { return path_; }
  /// The project's name (its `name`; "untitled" before a document).
  QString name() const;
  /// The project's run_root, absolute (relative to the current directory).
  QString runRoot() const;
  /// Open Recent lists the recent files in `menu` (from QSettings).
  void setRecentMenu(QMenu* menu);

 signals:
  /// Another document was loaded (opened, a template, a clone).
  void loaded();
  /// The path or the modified state changed: the title should follow.
  void titleChanged();
  /// Something the user should read (cannot read or write a file).
  void problem(QMessageBox::Icon icon, const QString& title, const QString& text);
  /// A line for the log.
  void note(const QString& text);
  void saved(const QString& path);

 private:
  void load(const QString& text, const QString& path, const QString& pathBase = QString());
  void addRecent(const QString& path);
  void rebuildRecentMenu();

  ProjectEditor* editor_;
  QWidget* window_;
  const Asker* ask_;
  QString path_;
  QStringList recent_;
  QMenu* recentMenu_ = nullptr;
};

}  // namespace tbench::gui
