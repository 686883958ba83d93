// towerbench: the desktop workbench. Opens the project given on the command line, else
// projects/fashion-mnist-convnet.json when it is found (in the working directory or beside
// the program's source tree), else a new project from the first template.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>

#include "app/bridge/EngineServices.h"
#include "app/bridge/Plugins.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/MainWindow.h"
#include "app/gui/PluginsDialog.h"

namespace {

QString defaultProject() {
  const QString name = "projects/fashion-mnist-convnet.json";
  // The working directory, the source tree of a build, an installation (<prefix>/bin/towerbench
  // and <prefix>/share/towerbench/projects, see resources/CMakeLists.txt).
  const QString bin = QCoreApplication::applicationDirPath();
  const QStringList roots = {QDir::currentPath(), bin + "/../..", QStringLiteral(TB_SOURCE_DIR),
                             bin + "/../share/towerbench"};
  for (const QString& root : roots) {
    const QString path = QDir(root).filePath(name);
    if (QFileInfo::exists(path)) return QFileInfo(path).canonicalFilePath();
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  tbench::bridge::prepareEngineProcess(argv);
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("Towerbench");
  QCoreApplication::setApplicationName("Towerbench");
  QCoreApplication::setApplicationVersion(TB_VERSION);
  QGuiApplication::setDesktopFileName("towerbench");  // resources/towerbench.desktop
  QApplication::setWindowIcon(tbench::gui::MainWindow::applicationIcon());

  QCommandLineParser parser;
  parser.setApplicationDescription("Towerbench: configure, run and watch training runs.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("project", "The project file to open (JSON).", "[project]");
  const QCommandLineOption plugin(
      "plugin", "Loads a plugin (a shared library registering component types); repeatable.",
      "file");
  const QCommandLineOption noFolders(
      "no-plugin-folders",
      "Loads no plugin from $TOWERBENCH_PLUGIN_PATH or ~/.local/share/towerbench/plugins.");
  parser.addOption(plugin);
  parser.addOption(noFolders);
  parser.process(app);

  // Plugins register before the window builds its form from the registry: --plugin files, the
  // files of Tools ▸ Plugins, then the plugin folders. Failures go to stderr and the window's log.
  for (const auto& failure : tbench::bridge::loadPlugins(
           parser.values(plugin) + tbench::gui::PluginsDialog::configuredPaths(),
           !parser.isSet(noFolders))) {
    qWarning().noquote() << "towerbench:" << failure.message;
  }

  tbench::gui::MainWindow window;
  const QStringList args = parser.positionalArguments();
  const QString project = args.isEmpty() ? defaultProject() : args.front();
  if (project.isEmpty() || !window.openProject(project)) {
    const QStringList templates = tbench::gui::MainWindow::templates();
    if (!templates.isEmpty()) window.newFromTemplate(templates.front());
  }
  window.show();
  return app.exec();
}
