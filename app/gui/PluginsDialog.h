#pragma once
// PluginsDialog (Tools ▸ Plugins…): the plugins loaded into the window with the types each
// registered, the plugins that failed to load and why, the folders searched, and the plugin
// files the window loads at start (kept with QSettings under "plugins"; Note [Plugins],
// engine/project/registry/PluginLoader.h).
//
// Adding a file loads it at once (its failure, if any, is shown and the file is not kept); the
// project form offers its types after a restart, since the form reads the registry when the
// window is built. Removing a file takes effect at the next start: a loaded plugin's types
// cannot be unregistered while a project may use them. GUI thread only.

#include <QDialog>
#include <QStringList>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace tbench::gui {

class PluginsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit PluginsDialog(QWidget* parent = nullptr);

  /// The plugin files the window loads at start (QSettings "plugins").
  static QStringList configuredPaths();

  /// Loads `path` now and, when it loads, keeps it for later starts. Returns whether it loaded;
  /// the note says what happened either way.
  bool addPlugin(const QString& path);
  /// Stops loading `path` at start (it stays loaded until the window restarts).
  void removePlugin(const QString& path);
  /// Shows the loader's state again.
  void refresh();

  QString note() const;

 signals:
  /// A plugin was added (`message` says what it registered or why it failed) or removed.
  void pluginsChanged(const QString& message);

 private:
  void browse();
  void setNote(const QString& text);

  QTreeWidget* loaded_ = nullptr;
  QPlainTextEdit* failures_ = nullptr;
  QLabel* failuresTitle_ = nullptr;
  QListWidget* paths_ = nullptr;
  QPushButton* remove_ = nullptr;
  QLabel* folders_ = nullptr;
  QLabel* note_ = nullptr;
};

}  // namespace tbench::gui
