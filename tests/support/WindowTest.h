#pragma once
// What the window tests share: settings isolated from the user's and the engine's run-directory
// readers installed, a project written from one of projects/ with edits, and the window's
// actions by name.

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QWidget>
#include <QtTest>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "app/bridge/RunDirectoryServices.h"
#include "app/gui/rundir/RunDirectoryInfo.h"

namespace tbench::testing {

/// Points QSettings at `settingsDir` (call from initTestCase, before any window exists).
inline void isolateSettings(const QTemporaryDir& settingsDir) {
  qputenv("XDG_CONFIG_HOME", settingsDir.path().toUtf8());
  QCoreApplication::setOrganizationName("TowerbenchTest");
  QCoreApplication::setApplicationName("TowerbenchTest");
}

/// What a window test's initTestCase does first: isolateSettings, and the engine's readers of
/// run directories installed, as the window's main() does.
inline void prepareWindowTests(const QTemporaryDir& settingsDir) {
  QVERIFY(settingsDir.isValid());
  isolateSettings(settingsDir);
  gui::installRunDirectoryReaders(bridge::runDirectoryReaders());
}

/// projects/<source> with its runs under <dir>/runs, no scalar printer, then `edit`; written
/// to <dir>/<file>. Returns the path.
inline QString writeProjectFrom(const QTemporaryDir& dir, const QString& file,
                                const std::function<void(nlohmann::json&)>& edit,
                                const std::string& source = "synthetic-mlp.json") {
  std::ifstream in(std::string(TB_SOURCE_DIR) + "/projects/" + source);
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["run_root"] = dir.filePath("runs").toStdString();
  doc["monitors"] = {{"scalar_printer", false}};
  if (edit) edit(doc);
  const QString path = dir.filePath(file);
  std::ofstream(path.toStdString()) << doc.dump(2);
  return path;
}

/// Shows `window` (the main window, a dialog) answering Discard to whatever it asks, so that no
/// question waits for a click.
template <class Window>
void showDiscarding(Window& window) {
  window.setAsker([](auto&&...) { return QMessageBox::Discard; });
  window.show();
}

/// The window's action named `name` ("actionStart"); aborts the test binary when missing.
inline QAction* windowAction(QWidget& window, const char* name) {
  auto* a = window.findChild<QAction*>(name);
  if (!a) qFatal("no action %s", name);
  return a;
}

/// With TB_SCREENSHOT_DIR set, saves `widget` as drawn there as `name` (the docs' pictures).
/// True when not asked for or saved.
inline bool screenshot(QWidget* widget, const QString& name) {
  const QString dir = qEnvironmentVariable("TB_SCREENSHOT_DIR");
  if (dir.isEmpty()) return true;
  QCoreApplication::processEvents();
  return widget->grab().save(QDir(dir).filePath(name));
}

}  // namespace tbench::testing
