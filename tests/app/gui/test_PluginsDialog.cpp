// Tools ▸ Plugins… in the window offscreen (Note [Plugins]): adding the example plugin loads it
// and keeps it in the settings, a broken one is refused with its path and not kept, removing
// says a restart is needed; a window built after the plugin loaded lists it in its log and
// offers its types in the form.
#include <QAction>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include "app/gui/MainWindow.h"
#include "app/gui/PluginsDialog.h"
#include "app/gui/editor/ProjectEditor.h"
#include "app/gui/runview/LogView.h"

using namespace tbench::gui;

namespace {

QString examplePlugin() { return QFileInfo(TB_EXAMPLE_PLUGIN).canonicalFilePath(); }

QString noEntryPlugin() {
  return QFileInfo(QString(TB_BROKEN_PLUGIN_DIR) + "/libbroken_plugin_no_entry.so")
      .canonicalFilePath();
}

}  // namespace

class TestPluginsDialog : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(settingsDir_.isValid());
    qputenv("XDG_CONFIG_HOME", settingsDir_.path().toUtf8());
    QCoreApplication::setOrganizationName("TowerbenchTest");
    QCoreApplication::setApplicationName("test_PluginsDialog");
    QSettings().remove("plugins");
  }

  void addsRefusesAndRemovesPlugins() {
    MainWindow window;
    window.show();
    QAction* action = window.findChild<QAction*>("actionPlugins");
    QVERIFY(action != nullptr);
    action->trigger();
    auto* dialog = window.findChild<PluginsDialog*>("pluginsDialog");
    QVERIFY(dialog != nullptr && dialog->isVisible());
    auto* tree = dialog->findChild<QTreeWidget*>("loadedTree");
    QCOMPARE(tree->topLevelItem(0)->text(0), "(no plugin loaded)");
    QVERIFY(!dialog->findChild<QPlainTextEdit*>("failuresView")->isVisibleTo(dialog));
    QVERIFY(dialog->findChild<QLabel*>("foldersLabel")->text().contains("towerbench/plugins"));

    QVERIFY(dialog->addPlugin(TB_EXAMPLE_PLUGIN));
    QCOMPARE(tree->topLevelItemCount(), 1);
    QCOMPARE(tree->topLevelItem(0)->text(0), examplePlugin());
    QCOMPARE(tree->topLevelItem(0)->childCount(), 2);
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(0), "model linear");
    QVERIFY2(dialog->note().contains("after a restart"), qPrintable(dialog->note()));
    QCOMPARE(PluginsDialog::configuredPaths(),
             QStringList{QFileInfo(TB_EXAMPLE_PLUGIN).absoluteFilePath()});
    QCOMPARE(dialog->findChild<QListWidget*>("pathList")->count(), 1);
    QVERIFY(window.logView()->toPlainText().contains("callback weight_norm"));
    // This window's form was built before: it offers the new types after a restart only.
    QVERIFY(window.editor()->findChild<QAction*>("callbacks.add.weight_norm") == nullptr);

    QVERIFY(!dialog->addPlugin(noEntryPlugin()));
    QVERIFY2(dialog->note().contains("Not added: plugin " + noEntryPlugin()),
             qPrintable(dialog->note()));
    QCOMPARE(PluginsDialog::configuredPaths().size(), 1);
    auto* failures = dialog->findChild<QPlainTextEdit*>("failuresView");
    QVERIFY(failures->isVisibleTo(dialog));
    QVERIFY(failures->toPlainText().contains(noEntryPlugin() + ": not a Towerbench plugin"));

    dialog->removePlugin(PluginsDialog::configuredPaths().front());
    QVERIFY(PluginsDialog::configuredPaths().isEmpty());
    QVERIFY2(dialog->note().contains("until Towerbench restarts"), qPrintable(dialog->note()));
    QCOMPARE(tree->topLevelItemCount(), 1);  // still loaded
  }

  void aWindowBuiltAfterwardsOffersThePluginsTypes() {
    MainWindow window;
    const QString log = window.logView()->toPlainText();
    QVERIFY2(log.contains("plugin " + examplePlugin() + ": model linear, callback weight_norm"),
             qPrintable(log));
    QVERIFY2(log.contains(noEntryPlugin() + ": not a Towerbench plugin"), qPrintable(log));
    QVERIFY(window.editor()->findChild<QAction*>("callbacks.add.weight_norm") != nullptr);
  }

 private:
  QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestPluginsDialog)
#include "test_PluginsDialog.moc"
