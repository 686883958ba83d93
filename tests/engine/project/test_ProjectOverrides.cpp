// Command-line overrides (`--set json.path=value`) applied to a project document.

#include <QtTest>
#include <nlohmann/json.hpp>

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ProjectOverrides {

using nlohmann::json;
using namespace tbench;

namespace {

const char* kMinimalProject =
    R"({"format": 1, "name": "minimal", "model": {}, "data": {"train": {}}})";

QString dump(const json& doc) { return QString::fromStdString(doc.dump(2)); }

}  // namespace

class TestProjectOverrides : public QObject {
  Q_OBJECT

 private slots:
  void overridesSetValues() {
    json doc = json::parse(kMinimalProject);
    applyProjectOverride(doc, "data.batch_size=64");
    QCOMPARE(doc["data"]["batch_size"].get<int>(), 64);
    applyProjectOverride(doc, "$.data.shuffle=false");
    QCOMPARE(doc["data"]["shuffle"], json(false));
    applyProjectOverride(doc, "name=foo");  // not JSON: taken as a string
    QCOMPARE(doc["name"], json("foo"));
    applyProjectOverride(doc, "description=\"42\"");
    QCOMPARE(doc["description"], json("42"));
    applyProjectOverride(doc, "trainer.devices=[\"cpu\"]");  // creates "trainer"
    QCOMPARE(dump(doc["trainer"]), dump(json{{"devices", {"cpu"}}}));
    applyProjectOverride(doc, "trainer.devices[0]=cuda");
    QCOMPARE(doc["trainer"]["devices"][0], json("cuda"));
    applyProjectOverride(doc, "trainer.devices[0]=cpu");
    applyProjectOverride(doc, "schedule.learning_rate.points=[[0, 0.5]]");  // two levels created
    QCOMPARE(doc["schedule"]["learning_rate"]["points"][0][1], json(0.5));
    applyProjectOverride(doc,
                         "callbacks=[{\"type\": \"progress_bar\"}, {\"type\": \"throughput\"}]");
    applyProjectOverride(doc, "callbacks[0].type=estimated_time_left");
    QCOMPARE(doc["callbacks"][0]["type"], json("estimated_time_left"));
    applyProjectOverride(doc, "optimizer.learning_rate=1e-2");

    const Project p = projectFromJson(doc);
    QCOMPARE(p.name, std::string("foo"));
    QCOMPARE(p.data.batchSize, int64_t{64});
    QCOMPARE(p.data.shuffle, false);
    QCOMPARE(p.trainer.strings("devices"), (std::vector<std::string>{"cpu"}));
    QCOMPARE(p.callbacks[0].type, std::string("estimated_time_left"));
    QCOMPARE(p.optimizer.number("learning_rate"), 0.01);
    QVERIFY(p.schedule.enabled);
  }

  void badOverridesAreInputErrors_data() {
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no =") << "data.batch_size"
                          << "expected PATH=VALUE";
    QTest::newRow("empty path") << "=3"
                                << "nothing to set";
    QTest::newRow("only $.") << "$.=3"
                             << "nothing to set";
    QTest::newRow("empty key") << "data..batch_size=3"
                               << "empty key";
    QTest::newRow("bad index") << "callbacks[x].type=a"
                               << "bad array index";
    QTest::newRow("unclosed index") << "callbacks[0=a"
                                    << "bad array index";
    QTest::newRow("junk after index") << "callbacks[0]type=a"
                                      << "expected \".\" or \"[\"";
    QTest::newRow("through a string") << "name.first=a"
                                      << "$.name is string \"minimal\", not an object";
    QTest::newRow("index into object") << "data[0]=a"
                                       << "$.data is an object, not an array";
    QTest::newRow("index into a missing key") << "data.train.x[0]=a"
                                              << "$.data.train.x is null, not an array";
    QTest::newRow("index too large") << "callbacks[3].type=a"
                                     << "index 3 is out of range ($.callbacks has 1 elements)";
  }
  void badOverridesAreInputErrors() {
    QFETCH(QString, assignment);
    QFETCH(QString, expected);
    json doc = json::parse(kMinimalProject);
    doc["callbacks"] = {{{"type", "throughput"}}};
    const json before = doc;
    try {
      applyProjectOverride(doc, assignment.toStdString());
      QFAIL("accepted");
    } catch (const InputError& e) {
      const QString message = e.what();
      QVERIFY2(message.startsWith("override \"" + assignment + "\": "), e.what());
      QVERIFY2(message.contains(expected), e.what());
    }
    QCOMPARE(dump(doc), dump(before));  // untouched
  }
};

}  // namespace test_ProjectOverrides

TB_TEST_APPLESS_MAIN(test_ProjectOverrides::TestProjectOverrides)
#include "test_ProjectOverrides.moc"
