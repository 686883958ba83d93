// The component registry as every reader sees it: the key reference in docs/PROJECT-FORMAT.md
// is what `towerbench-cli types --markdown` generates, every built-in type's defaults make a
// valid project, and every key the writer writes is described.

#include <QtTest>
#include <fstream>
#include <sstream>

#include "engine/project/JsonReader.h"
#include "engine/project/ProjectJson.h"
#include "engine/project/ProjectStructure.h"
#include "engine/project/registry/ComponentListings.h"
#include "engine/project/registry/ComponentRegistry.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_Registry {

using namespace tbench;
using nlohmann::json;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Where the component of `kind` sits in a minimal project document.
json* placeFor(json& doc, const std::string& kind) {
  if (kind == "model") return &doc["model"];
  if (kind == "data") return &doc["data"]["train"];
  if (kind == "optimizer") return &doc["optimizer"];
  if (kind == "strategy") return &doc["trainer"];
  if (kind == "callback") {
    doc["callbacks"] = json::array({json::object()});
    return &doc["callbacks"][0];
  }
  return nullptr;
}

}  // namespace

class TestRegistry : public QObject {
  Q_OBJECT

 private slots:
  void generatedReferenceIsUpToDate() {
    const std::string page = readFile(TB_SOURCE_DIR "/docs/PROJECT-FORMAT.md");
    const std::string begin = "<!-- BEGIN GENERATED KEY REFERENCE -->\n";
    const std::string end = "<!-- END GENERATED KEY REFERENCE -->";
    const size_t from = page.find(begin);
    const size_t to = page.find(end);
    QVERIFY2(from != std::string::npos && to != std::string::npos && from < to,
             "docs/PROJECT-FORMAT.md has lost its GENERATED KEY REFERENCE markers");
    auto trimmed = [](std::string text) {
      while (!text.empty() && text.back() == '\n') text.pop_back();
      return text;
    };
    const std::string checkedIn = page.substr(from + begin.size(), to - from - begin.size());
    QVERIFY2(trimmed(checkedIn) == trimmed(keyReferenceMarkdown()),
             "docs/PROJECT-FORMAT.md's key reference is out of date: run "
             "scripts/update-key-reference.sh");
  }

  void everyBuiltInTypeValidatesWithItsDefaults() {
    const ComponentRegistry& registry = ComponentRegistry::global();
    int checked = 0;
    for (const std::string& kind : registry.kindNames()) {
      for (const ComponentType* type : registry.types(kind)) {
        json doc = {{"format", 1},
                    {"name", "defaults"},
                    {"model", json::object()},
                    {"data", {{"train", {{"type", "synthetic"}}}, {"validation", json::object()}}}};
        json* place = placeFor(doc, kind);
        if (place == nullptr) continue;  // monitors: booleans of "monitors"
        (*place)[registry.kind(kind).typeKey] = type->name;
        // A callback of the GAN trainer needs a GAN model.
        if (type->name == "gan_samples") doc["model"]["type"] = "dcgan";
        for (const KeyDescription& k : type->keys) {
          if (!k.requiredKey) continue;  // a required key has no default: give one
          (*place)[k.name] = k.type == ValueType::File ? "/nonexistent/file" : "validation_error";
        }
        const auto issues = validateProjectJson(doc);
        std::string text;
        for (const auto& issue : issues) text += issue.toString() + "\n";
        QVERIFY2(issues.empty(), (kind + " " + type->name + ":\n" + text).c_str());
        ++checked;
      }
    }
    QVERIFY(checked >= 20);
  }

  void everyWrittenKeyIsDescribed() {
    Project project;
    project.data.hasValidation = true;
    project.init.checkpoint = "/some/model.pt";
    project.schedule.enabled = true;
    project.schedule.points = {{0, 0.1}};
    const json doc = projectToJson(project);
    auto describedIn = [](const std::string& path, const std::string& key) {
      if (const auto object = objectAt(path)) {
        for (const auto& k : object->keys) {
          if (k.name == key) return true;
        }
      }
      if (const ComponentSlot* slot = slotAt(path)) {
        const auto keys = ComponentRegistry::global().allKeys(slot->kind);
        return std::find(keys.begin(), keys.end(), key) != keys.end();
      }
      return false;
    };
    const std::vector<std::string> containers = {"model",     "data",     "optimizer", "schedule",
                                                 "callbacks", "monitors", "init",      "trainer"};
    for (const auto& item : doc.items()) {
      const bool container =
          std::find(containers.begin(), containers.end(), item.key()) != containers.end();
      QVERIFY2(container || describedIn("", item.key()), item.key().c_str());
    }
    for (const char* path : {"model", "optimizer", "trainer", "data.train", "data.validation",
                             "monitors", "init", "schedule.learning_rate"}) {
      json node = doc;
      for (const auto& step : parseJsonPath(path)) node = node.at(step.key);
      for (const auto& item : node.items()) {
        QVERIFY2(describedIn(path, item.key()), (std::string(path) + "." + item.key()).c_str());
      }
    }
    for (const auto& item : doc["data"].items()) {
      const bool source = item.key() == "train" || item.key() == "validation";
      QVERIFY2(source || describedIn("data", item.key()), item.key().c_str());
    }
  }

  void helpSaysConstraintsAndDefault() {
    const auto keys = ComponentRegistry::global().keysOf("model", "convnet");
    const auto kernel = std::find_if(keys.begin(), keys.end(),
                                     [](const auto& k) { return k.name == "kernel_size"; });
    QVERIFY(kernel != keys.end());
    QCOMPARE(kernel->fullHelp(), std::string("Convolution kernel size, odd (>= 1); default 5"));
    const auto dropout =
        std::find_if(keys.begin(), keys.end(), [](const auto& k) { return k.name == "dropout"; });
    QCOMPARE(dropout->constraintText(), std::string("in [0, 1)"));
  }
};

}  // namespace test_Registry

TB_TEST_MAIN(test_Registry::TestRegistry)
#include "test_Registry.moc"
