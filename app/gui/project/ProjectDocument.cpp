#include "app/gui/project/ProjectDocument.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSaveFile>
#include <QSettings>

#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/ProjectEditor.h"

namespace tbench::gui {
namespace {
constexpr int kMaxRecent = 8;
}  // namespace

ProjectDocument::ProjectDocument(ProjectEditor* editor, QWidget* window, const Asker* ask)
    : QObject(window), editor_(editor), window_(window), ask_(ask) {
  recent_ = QSettings().value("recentProjects").toStringList();
}

bool ProjectDocument::open(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    emit problem(QMessageBox::Warning, tr("Open Project"),
                 tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    return false;
  }
  load(QString::fromUtf8(file.readAll()), QFileInfo(path).absoluteFilePath());
  addRecent(path_);
  return true;
}

void ProjectDocument::openChosen() {
  if (!maybeSave()) return;
  const QString start = path_.isEmpty() ? QDir::currentPath() : QFileInfo(path_).path();
  const QString path = QFileDialog::getOpenFileName(window_, tr("Open Project"), start,
                                                    tr("Towerbench projects (*.json)"));
  if (!path.isEmpty()) open(path);
}

bool ProjectDocument::openTemplate(const QString& resource) {
  if (!maybeSave()) return false;
  QFile file(resource);
  if (!file.open(QIODevice::ReadOnly)) return false;
  load(QString::fromUtf8(file.readAll()), QString());
  return true;
}

bool ProjectDocument::openClone(const QString& runDir, const QString& runName) {
  const QString projectFile = QDir(runDir).filePath("project.json");
  QFile file(projectFile);
  if (!file.open(QIODevice::ReadOnly)) {
    emit problem(
        QMessageBox::Warning, tr("Clone"),
        tr("%1 cannot be read: %2").arg(QDir::toNativeSeparators(projectFile), file.errorString()));
    return false;
  }
  const QString text = QString::fromUtf8(file.readAll());
  if (!maybeSave()) return false;
  // Relative data paths meant the open project's folder: the clone keeps it.
  const QString base = path_.isEmpty() ? QString() : QFileInfo(path_).absolutePath();
  load(text, QString(), base);
  emit note(tr("cloned the project of run %1 into a new, untitled project: change it, "
               "then Start; its runs are listed beside the original's")
                .arg(runName));
  return true;
}

void ProjectDocument::load(const QString& text, const QString& path, const QString& pathBase) {
  path_ = path;
  // Relative paths are the project file's (an untitled project's: the current directory's,
  // unless it was cloned from a run of a saved project).
  editor_->setPathBase(!pathBase.isEmpty() ? pathBase
                       : path.isEmpty()    ? QString()
                                           : QFileInfo(path).absolutePath());
  emit loaded();
  QString problems;
  if (!editor_->setDocument(text, &problems)) {
    emit note(tr("%1 has problems (shown in the editor):\n%2")
                  .arg(path.isEmpty() ? tr("the template") : path, problems));
  }
  emit titleChanged();
}

bool ProjectDocument::save() { return path_.isEmpty() ? saveChosen() : saveAs(path_); }

bool ProjectDocument::saveChosen() {
  const QString start = path_.isEmpty() ? QDir::current().filePath(name() + ".json") : path_;
  const QString path = QFileDialog::getSaveFileName(window_, tr("Save Project As"), start,
                                                    tr("Towerbench projects (*.json)"));
  return !path.isEmpty() && saveAs(path);
}

bool ProjectDocument::saveAs(const QString& path) {
  QSaveFile file(path);
  const QByteArray bytes = editor_->document().toUtf8();
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    emit problem(QMessageBox::Warning, tr("Save Project"),
                 tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    return false;
  }
  path_ = QFileInfo(path).absoluteFilePath();
  editor_->setPathBase(QFileInfo(path_).absolutePath());
  editor_->setUnmodified();
  addRecent(path_);
  emit titleChanged();
  emit saved(path_);
  return true;
}

bool ProjectDocument::maybeSave() {
  if (!editor_->isModified()) return true;
  const auto answer = (*ask_)(tr("Unsaved Changes"),
                              tr("The project \"%1\" has unsaved changes. Save them?").arg(name()),
                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Save) return save();
  return answer == QMessageBox::Discard;
}

QString ProjectDocument::name() const { return editor_->summary().name; }

QString ProjectDocument::runRoot() const {
  return QDir::current().absoluteFilePath(editor_->summary().runRoot);
}

void ProjectDocument::setRecentMenu(QMenu* menu) {
  recentMenu_ = menu;
  rebuildRecentMenu();
}

void ProjectDocument::addRecent(const QString& path) {
  recent_.removeAll(path);
  recent_.prepend(path);
  while (recent_.size() > kMaxRecent) recent_.removeLast();
  rebuildRecentMenu();
  QSettings().setValue("recentProjects", recent_);
}

void ProjectDocument::rebuildRecentMenu() {
  if (recentMenu_ == nullptr) return;
  recentMenu_->clear();
  for (const QString& path : recent_) {
    QAction* a = recentMenu_->addAction(QDir::toNativeSeparators(path));
    connect(a, &QAction::triggered, this, [this, path] {
      if (maybeSave()) open(path);
    });
  }
  recentMenu_->setEnabled(!recent_.isEmpty());
}

}  // namespace tbench::gui
