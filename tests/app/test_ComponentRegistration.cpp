// A callback type registered from this file alone (no engine file changes): it validates,
// builds, runs, appears in the window's form with its default and help, and is listed by
// `towerbench-cli types`. Also: what registration refuses.

#include <QAction>
#include <QListWidget>
#include <QSpinBox>
#include <QtTest>
#include <sstream>

#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/cli/TypesCommand.h"
#include "app/gui/editor/ProjectEditor.h"
#include "engine/project/ProjectBuilder.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/registry/ComponentFactories.h"
#include "engine/train/TrainConfig.h"
#include "tests/support/TestMain.h"

using namespace tbench;

namespace {

/// Counts its triggers and puts how many it has seen as "epoch_note/count".
class EpochNote : public Callback {
 public:
  EpochNote(std::string text, int64_t every) : text_(std::move(text)), every_(every) {}
  std::string text_;
  int64_t every_;
  int triggers = 0;

 private:
  void onTriggerEpoch() override {
    if (context().epochNum() % every_ != 0) return;
    ++triggers;
    context().monitors().putScalar("epoch_note/count", triggers);
  }
};

std::vector<std::shared_ptr<EpochNote>>& built() {
  static std::vector<std::shared_ptr<EpochNote>> notes;
  return notes;
}

ComponentType epochNoteType() {
  ComponentType type;
  type.name = "epoch_note";
  type.summary = "Notes every k-th epoch (registered by test_ComponentRegistration)";
  type.keys = {
      key::string("text", "epoch done").label("Text").help("What the note says"),
      key::integer("every", 2).label("Every k epochs").help("Notes every k-th epoch").atLeast(1)};
  type.origin = "test_ComponentRegistration";
  return type;
}

void registerEpochNote() {
  registerCallback(ComponentRegistry::global(), epochNoteType(),
                   [](const Settings& s, CallbackBuildContext&) -> CallbackPtr {
                     auto note = std::make_shared<EpochNote>(s.string("text"), s.integer("every"));
                     built().push_back(note);
                     return note;
                   });
}

nlohmann::json tinyProject(const nlohmann::json& callbacks) {
  return {{"format", 1},
          {"name", "registration"},
          {"model", {{"type", "mlp"}, {"hidden", {8}}}},
          {"data", {{"train", {{"type", "synthetic"}, {"num_samples", 64}}}, {"batch_size", 16}}},
          {"max_epoch", 4},
          {"steps_per_epoch", 2},
          {"callbacks", callbacks},
          {"trainer", {{"strategy", "simple"}}}};
}

}  // namespace

class TestComponentRegistration : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { registerEpochNote(); }

  void validates() {
    QVERIFY(validateProjectJson(tinyProject({{{"type", "epoch_note"}}})).empty());
    const auto issues = validateProjectJson(tinyProject({{{"type", "epoch_note"}, {"every", 0}}}));
    QCOMPARE(issues.size(), size_t{1});
    QCOMPARE(issues[0].toString(), std::string("$.callbacks[0].every: must be >= 1, got 0"));
    const auto foreign =
        validateProjectJson(tinyProject({{{"type", "epoch_note"}, {"stat", "cost"}}}));
    QCOMPARE(foreign.size(), size_t{1});
    QCOMPARE(foreign[0].toString(),
             std::string("$.callbacks[0].stat: not a setting of callback type \"epoch_note\""));
    // The writer writes its keys, defaults included; they read back.
    const Project p = projectFromJson(tinyProject({{{"type", "epoch_note"}, {"every", 3}}}));
    const nlohmann::json written = projectToJson(p)["callbacks"][0];
    QCOMPARE(written.dump(), std::string(R"({"every":3,"text":"epoch done","type":"epoch_note"})"));
  }

  void buildsAndRuns() {
    built().clear();
    const Project p = projectFromJson(
        tinyProject({{{"type", "epoch_note"}, {"every", 2}, {"text", "half way"}}}));
    BuiltRun run = buildRun(p, "");
    launchTrainWithConfig(run.config, *run.trainer);
    QCOMPARE(built().size(), size_t{1});
    QCOMPARE(built()[0]->text_, std::string("half way"));
    QCOMPARE(built()[0]->triggers, 2);  // epochs 2 and 4 of 4
  }

  void appearsInTheForm() {
    bridge::ProjectServices services = bridge::makeProjectServices();
    gui::ProjectEditor editor(services);
    QVERIFY(
        editor.setDocument(QString::fromStdString(tinyProject({{{"type", "epoch_note"}}}).dump())));
    QAction* add = editor.findChild<QAction*>("callbacks.add.epoch_note");
    QVERIFY(add != nullptr);
    QVERIFY(add->toolTip().contains("Notes every k-th epoch"));
    auto* list = editor.findChild<QListWidget*>("callbacks");
    QVERIFY(list != nullptr);
    list->setCurrentRow(0);
    auto* every = editor.findChild<QSpinBox*>("callback.every");
    QVERIFY(every != nullptr);
    QVERIFY(every->isVisibleTo(&editor));
    QCOMPARE(every->value(), 2);  // the registered default, the key being absent
    QCOMPARE(every->minimum(), 1);
    QVERIFY2(every->toolTip().contains("Notes every k-th epoch") &&
                 every->toolTip().contains("default 2"),
             qPrintable(every->toolTip()));
    // Another type's field is hidden while this one is selected.
    auto* keep = editor.findChild<QSpinBox*>("callback.max_to_keep");
    QVERIFY(keep != nullptr && !keep->isVisibleTo(&editor));
  }

  void isListedByTheCli() {
    cli::CliArgs args;
    args.command = "types";
    args.kind = "callback";
    std::ostringstream out, err;
    QCOMPARE(cli::runTypes(args, out, err), 0);
    const std::string text = out.str();
    QVERIFY2(text.find("epoch_note: Notes every k-th epoch") != std::string::npos, text.c_str());
    QVERIFY(text.find("[test_ComponentRegistration]") != std::string::npos);
    QVERIFY(text.find("every (integer): Notes every k-th epoch (>= 1); default 2") !=
            std::string::npos);
    args.kind = "gadget";
    QCOMPARE(cli::runTypes(args, out, err), 2);
    QVERIFY(err.str().find("unknown kind \"gadget\"") != std::string::npos);
  }

  void aMonitorRegisteredLaterIsAKeyOfMonitors() {
    ComponentType type;
    type.name = "late_monitor";
    type.summary = "Registered after projects were read";
    type.onByDefault = false;
    type.origin = "test_ComponentRegistration";
    registerMonitor(ComponentRegistry::global(), type,
                    [](bool) -> TrainingMonitorPtr { return nullptr; });
    Project p = projectFromJson(tinyProject(nlohmann::json::array()));
    QVERIFY(!p.monitorOn("late_monitor"));
    p.monitors["late_monitor"] = true;
    const nlohmann::json written = projectToJson(p);
    QCOMPARE(written["monitors"]["late_monitor"], nlohmann::json(true));
    const auto issues = validateProjectJson(written);
    QVERIFY2(issues.empty(), issues.empty() ? "" : issues[0].toString().c_str());
    QVERIFY(projectFromJson(written).monitorOn("late_monitor"));
  }

  void aCallbackThatIsNotAnObjectIsReported() {
    const auto issues = validateProjectJson(tinyProject({42, {{"type", "throughput"}}}));
    QCOMPARE(issues.size(), size_t{1});
    QCOMPARE(issues[0].toString(),
             std::string("$.callbacks[0]: expected an object, found number 42"));
  }

  void registrationRefusesClashesAndBadDescriptions() {
    auto factory = [](const Settings&, CallbackBuildContext&) -> CallbackPtr { return nullptr; };
    ComponentType clash = epochNoteType();
    clash.name = "progress_bar";
    clash.origin = "a plugin";
    try {
      registerCallback(ComponentRegistry::global(), clash, factory);
      QFAIL("a clashing name was accepted");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("taken by a built-in type") != std::string::npos,
               e.what());
    }
    ComponentType twice = epochNoteType();
    twice.name = "epoch_note_2";
    twice.keys.push_back(key::integer("every", 1));
    QVERIFY_THROWS_EXCEPTION(InputError,
                             registerCallback(ComponentRegistry::global(), twice, factory));
    ComponentType badDefault = epochNoteType();
    badDefault.name = "epoch_note_3";
    badDefault.keys[1] = key::integer("every", 0).atLeast(1);
    try {
      registerCallback(ComponentRegistry::global(), badDefault, factory);
      QFAIL("a default out of its own range was accepted");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("the default of \"every\" (0) is out of >= 1") !=
                   std::string::npos,
               e.what());
    }
    ComponentType common = epochNoteType();
    common.kind = "data";
    common.name = "tiny";
    common.keys = {key::integer("limit", 0)};  // every data source has it already
    QVERIFY_THROWS_EXCEPTION(
        InputError, registerDataSource(ComponentRegistry::global(), common, DataSourceMaker()));
    QVERIFY(ComponentRegistry::global().find("callback", "epoch_note_2") == nullptr);
    QVERIFY(ComponentRegistry::global().find("data", "tiny") == nullptr);
  }
};

TB_TEST_MAIN(TestComponentRegistration)
#include "test_ComponentRegistration.moc"
