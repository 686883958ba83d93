// Plugins (Note [Plugins], engine/project/registry/PluginLoader.h): the example plugin loaded into
// this process (a plugin host like the programs) and through the real towerbench-cli; broken
// plugins refused with their path, leaving the registry as it was; the plugin folders.

#include <dlfcn.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "engine/core/Check.h"
#include "engine/project/Plugin.h"
#include "engine/project/registry/ComponentListings.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "engine/project/registry/PluginLoader.h"
#include "tests/support/CliRun.h"
#include "tests/support/ExpectError.h"

using namespace tbench;
using tbench::testing::expectError;

namespace {

using Result = tbench::testing::CliResult;

/// Runs the CLI with no plugin folder of the user's and no $TOWERBENCH_PLUGIN_PATH, unless
/// `edit` sets them.
Result runCli(const QStringList& args, const std::function<void(QProcessEnvironment&)>& edit = {}) {
  static QTemporaryDir emptyData;  // an XDG_DATA_HOME without plugins
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("TOWERBENCH_PLUGIN_PATH");
  env.insert("XDG_DATA_HOME", emptyData.path());
  if (edit) edit(env);
  return tbench::testing::runProgram(TB_CLI_PATH, args, env);
}

QString examplePlugin() { return QFileInfo(TB_EXAMPLE_PLUGIN).canonicalFilePath(); }

QString brokenPlugin(const char* variant) {
  return QFileInfo(QString(TB_BROKEN_PLUGIN_DIR) + "/libbroken_plugin_" + variant + ".so")
      .canonicalFilePath();
}

/// Every registered type, "kind name", in order (by kind, then registration).
QStringList registeredTypes() {
  QStringList out;
  const ComponentRegistry& registry = ComponentRegistry::global();
  for (const std::string& kind : registry.kindNames()) {
    for (const std::string& name : registry.typeNames(kind)) {
      out << QString::fromStdString(kind + " " + name);
    }
  }
  return out;
}

QString exampleProject() {
  return QString(TB_SOURCE_DIR) + "/examples/plugin/synthetic-linear.json";
}

}  // namespace

class TestPlugins : public QObject {
  Q_OBJECT

 private slots:
  void theExamplePluginRegistersItsTypes() {
    const QStringList before = registeredTypes();
    const LoadedPlugin plugin = loadPlugin(TB_EXAMPLE_PLUGIN);
    QCOMPARE(QString::fromStdString(plugin.path), examplePlugin());
    QCOMPARE(plugin.types, (std::vector<std::string>{"model linear", "callback weight_norm"}));
    QStringList after = registeredTypes();
    QVERIFY(after.removeOne("model linear") && after.removeOne("callback weight_norm"));
    QCOMPARE(after, before);
    const ComponentType* linear = ComponentRegistry::global().find("model", "linear");
    QVERIFY(linear != nullptr);
    QCOMPARE(QString::fromStdString(linear->origin), "plugin " + examplePlugin());
    QCOMPARE(ComponentSpec::of("callback", "weight_norm").string("scalar"), "weight_norm");
    QVERIFY(typeListingText("model").find("[plugin " + examplePlugin().toStdString() + "]") !=
            std::string::npos);

    // Loading it again, also under another name for the same file, changes nothing.
    const QString other = QFileInfo(examplePlugin())
                              .dir()
                              .filePath("../plugin/" + QFileInfo(examplePlugin()).fileName());
    QCOMPARE(loadPlugin(other.toStdString()).types, plugin.types);
    QCOMPARE(registeredTypes().size(), before.size() + 2);
    QCOMPARE(loadedPlugins().size(), size_t(1));
  }

  void aClashingPluginIsRefusedWhole() {
    const QStringList before = registeredTypes();
    const QString path = brokenPlugin("clash");
    expectError([&] { loadPlugin(path.toStdString()); }, "plugin " + path,
                "registers callback \"model_saver\", which is already registered (built-in); "
                "nothing of it was registered");
    QCOMPARE(registeredTypes(), before);  // not even its new "clash_probe"
    QVERIFY(ComponentRegistry::global().find("callback", "clash_probe") == nullptr);
    const std::vector<PluginFailure> failures = pluginFailures();
    QVERIFY(!failures.empty());
    QCOMPARE(QString::fromStdString(failures.back().path), path);
    // The library was closed again.
    QVERIFY(dlopen(path.toUtf8().constData(), RTLD_NOW | RTLD_NOLOAD) == nullptr);

    // A copy of a loaded plugin is another file registering the same names: refused, naming
    // the plugin that holds them.
    QTemporaryDir dir;
    const QString copy = dir.filePath("libexample_copy.so");
    QVERIFY(QFile::copy(TB_EXAMPLE_PLUGIN, copy));
    expectError([&] { loadPlugin(copy.toStdString()); }, "plugin " + copy,
                "registers model \"linear\", which is already registered (plugin " +
                    examplePlugin() + "); callback \"weight_norm\", which is already registered");
    QCOMPARE(registeredTypes(), before);
  }

  void everyFailureNamesThePluginsPath() {
    const QStringList before = registeredTypes();
    QTemporaryDir dir;
    const QString missing = dir.filePath("libmissing.so");
    expectError([&] { loadPlugin(missing.toStdString()); }, "plugin " + missing, "no such file");
    const QString text = dir.filePath("libtext.so");
    {
      QFile file(text);
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write("not a shared library\n");
    }
    expectError([&] { loadPlugin(text.toStdString()); }, "plugin " + text,
                "cannot load it as a shared library");
    expectError([&] { loadPlugin(dir.path().toStdString()); }, "plugin " + dir.path(),
                "not a file");
    const QString noEntry = brokenPlugin("no_entry");
    expectError([&] { loadPlugin(noEntry.toStdString()); }, "plugin " + noEntry,
                "not a Towerbench plugin");
    const QString abi = brokenPlugin("abi");
    expectError([&] { loadPlugin(abi.toStdString()); }, "plugin " + abi,
                QString("built for plugin ABI %1, but this Towerbench loads plugin ABI %2")
                    .arg(TOWERBENCH_PLUGIN_ABI + 1000)
                    .arg(TOWERBENCH_PLUGIN_ABI));
    const QString throws = brokenPlugin("throws");
    expectError([&] { loadPlugin(throws.toStdString()); }, "plugin " + throws,
                "its registration failed: its licence file " + throws + ".licence is missing");
    const QString twice = brokenPlugin("twice");
    expectError([&] { loadPlugin(twice.toStdString()); }, "plugin " + twice,
                "its registration failed: cannot register callback type \"twice_probe\": the "
                "plugin registers it twice");
    QCOMPARE(registeredTypes(), before);

    // loadPlugins reports each and goes on with the next.
    const std::vector<PluginFailure> failures =
        loadPlugins({missing.toStdString(), noEntry.toStdString(), TB_EXAMPLE_PLUGIN}, false);
    QCOMPARE(failures.size(), size_t(2));
    QCOMPARE(QString::fromStdString(failures[0].path), missing);
    QCOMPARE(QString::fromStdString(failures[1].path), noEntry);
  }

  void exceptionsAndTheRegistryAreSharedWithThePlugin() {
    // The plugin's code throws tbench::InputError; this program catches it by that type: one
    // set of engine type_info, taken from the program (tb_plugin_host). And what a plugin
    // registers through the registry's functions reaches the program's registry.
    void* library = dlopen(brokenPlugin("throws").toUtf8().constData(), RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(library != nullptr, dlerror());
    auto registerFunction =
        reinterpret_cast<void (*)(PluginContext&)>(dlsym(library, "towerbench_plugin_register"));
    QVERIFY(registerFunction != nullptr);
    std::unique_ptr<ComponentRegistry> staging = ComponentRegistry::global().emptyCopy();
    PluginContext context{*staging, "throws"};
    bool caught = false;
    try {
      registerFunction(context);
    } catch (const InputError& e) {
      caught = QString(e.what()).contains("licence file throws.licence is missing");
    }
    QVERIFY(caught);
    QCOMPARE(staging->typeNames("callback"), std::vector<std::string>{"throws_probe"});
    staging.reset();
    dlclose(library);
  }

  void theCliListsAndTrainsWithThePlugin() {
    Result r = runCli({"--plugin", TB_EXAMPLE_PLUGIN, "types", "model"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("linear: A linear classifier (softmax regression), from the example "
                            "plugin [plugin " +
                            examplePlugin() + "]"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("bias (boolean): Learn a bias per output; default true"),
             qPrintable(r.out));

    r = runCli({"validate", exampleProject()});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("$.model.type: unknown value \"linear\""), qPrintable(r.err));

    QTemporaryDir dir;
    const QString runDir = dir.filePath("run");
    r = runCli({"train", exampleProject(), "--plugin", TB_EXAMPLE_PLUGIN, "--run-dir", runDir});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    std::ifstream in((runDir + "/stats.json").toStdString());
    const nlohmann::json stats = nlohmann::json::parse(in);
    QCOMPARE(stats.size(), size_t(2));  // two epochs
    QVERIFY(stats[1]["weight_norm"].get<double>() > 0);
    QVERIFY(stats[1]["cost"].get<double>() < stats[0]["cost"].get<double>());
  }

  void theCliGoesOnWithoutPluginsThatFail() {
    QTemporaryDir dir;
    const QString missing = dir.filePath("libmissing.so");
    const Result r =
        runCli({"types", "callback", "--plugin", missing, "--plugin", brokenPlugin("no_entry"),
                "--plugin", brokenPlugin("clash"), "--plugin", TB_EXAMPLE_PLUGIN});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("towerbench-cli: plugin " + missing + ": no such file"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("plugin " + brokenPlugin("no_entry") + ": not a Towerbench plugin"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("plugin " + brokenPlugin("clash") +
                            ": registers callback "
                            "\"model_saver\", which is already registered (built-in)"),
             qPrintable(r.err));
    QVERIFY2(r.out.contains("weight_norm: "), qPrintable(r.out));
    QVERIFY2(!r.out.contains("clash_probe"), qPrintable(r.out));
  }

  void theCliFindsPluginsInTheFolders() {
    QTemporaryDir folder;
    QTemporaryDir data;
    QVERIFY(QFile::link(TB_EXAMPLE_PLUGIN, folder.filePath("libexample_plugin.so")));
    QVERIFY(QFile::link(TB_EXAMPLE_PLUGIN, folder.filePath("not-a-plugin.txt")));  // not *.so
    Result r = runCli({"types", "model"}, [&](QProcessEnvironment& env) {
      env.insert("TOWERBENCH_PLUGIN_PATH", "/nonexistent:" + folder.path());
    });
    QVERIFY2(r.exitCode == 0 && r.out.contains("linear: "), qPrintable(r.err));
    QVERIFY2(r.err.isEmpty() || !r.err.contains("towerbench-cli: plugin"), qPrintable(r.err));

    // The user's folder: $XDG_DATA_HOME/towerbench/plugins.
    QVERIFY(QDir(data.path()).mkpath("towerbench/plugins"));
    QVERIFY(
        QFile::link(TB_EXAMPLE_PLUGIN, data.filePath("towerbench/plugins/libexample_plugin.so")));
    auto userFolder = [&](QProcessEnvironment& env) { env.insert("XDG_DATA_HOME", data.path()); };
    r = runCli({"types", "model"}, userFolder);
    QVERIFY2(r.exitCode == 0 && r.out.contains("linear: "), qPrintable(r.err));
    // The same file given with --plugin and found in the folder loads once, without a clash.
    r = runCli({"types", "model", "--plugin", TB_EXAMPLE_PLUGIN}, userFolder);
    QVERIFY2(r.exitCode == 0 && !r.err.contains("already registered"), qPrintable(r.err));
    r = runCli({"types", "model", "--no-plugin-folders"}, userFolder);
    QVERIFY2(r.exitCode == 0 && !r.out.contains("linear: "), qPrintable(r.out));

    // In-process: the folders in order, and the plugins of one.
    qputenv("TOWERBENCH_PLUGIN_PATH", QString("/a::" + folder.path()).toUtf8());
    qputenv("XDG_DATA_HOME", data.path().toUtf8());
    const std::vector<std::string> folders = pluginFolders();
    qunsetenv("TOWERBENCH_PLUGIN_PATH");
    qunsetenv("XDG_DATA_HOME");
    QCOMPARE(folders,
             (std::vector<std::string>{"/a", folder.path().toStdString(),
                                       data.filePath("towerbench/plugins").toStdString()}));
    QCOMPARE(pluginsIn(folder.path().toStdString()),
             std::vector<std::string>{folder.filePath("libexample_plugin.so").toStdString()});
    QVERIFY(pluginsIn("/nonexistent").empty());
  }
};

QTEST_GUILESS_MAIN(TestPlugins)
#include "test_Plugins.moc"
