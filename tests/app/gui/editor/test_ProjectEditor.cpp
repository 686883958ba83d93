// The project editor panel: loading real projects into the form, form edits rewriting the
// document (and only the keys they concern), JSON edits reaching the form after the debounce,
// problems shown next to their fields, callbacks, the schedule and its preview, the trainer
// section kept for the devices panel. The project services are fakes: a small validator that
// knows a few rules of the engine's.

#include <qcustomplot.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QtTest>
#include <memory>

#include "app/bridge/ProjectServices.h"
#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/JsonPath.h"
#include "app/gui/editor/JsonText.h"
#include "app/gui/editor/ProjectEditor.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_ProjectEditor {

using namespace tbench;
using namespace tbench::gui;

namespace {

QString projectText(const QString& name) {
  QFile file(QStringLiteral(TB_SOURCE_DIR "/projects/") + name);
  if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(file.fileName()));
  return QString::fromUtf8(file.readAll());
}

/// A few of the engine's rules, reported at the engine's paths.
bridge::ProjectIssueViews fakeValidate(const QString& text) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &error);
  if (error.error != QJsonParseError::NoError) {
    const QString before = text.left(error.offset);
    return {{"$", QStringLiteral("syntax error at line %1, column %2")
                      .arg(before.count('\n') + 1)
                      .arg(before.size() - before.lastIndexOf('\n'))}};
  }
  const QJsonObject root = doc.object();
  bridge::ProjectIssueViews issues;
  for (const QString& key : root.keys()) {
    if (key == "optimzer")
      issues.append(
          bridge::ProjectIssueView{"$.optimzer", "unknown key (did you mean \"optimizer\"?)"});
  }
  const QJsonValue batch = valueAt(root, "data.batch_size");
  if (batch.isDouble() && batch.toInteger() < 1) {
    issues.append(bridge::ProjectIssueView{
        "$.data.batch_size", QStringLiteral("must be >= 1, got %1").arg(batch.toInteger())});
  }
  if (valueAt(root, "model.type").toString() == "convnet" &&
      valueAt(root, "model").toObject().contains("hidden")) {
    issues.append(
        bridge::ProjectIssueView{"$.model.hidden", "not a setting of model type \"convnet\""});
  }
  const QJsonArray callbacks = root.value("callbacks").toArray();
  for (int i = 0; i < callbacks.size(); ++i) {
    const QJsonObject callback = callbacks[i].toObject();
    const QString type = callback.value("type").toString();
    if ((type == "min_saver" || type == "max_saver") &&
        callback.value("stat").toString().isEmpty()) {
      issues.append(
          bridge::ProjectIssueView{QStringLiteral("$.callbacks[%1].stat").arg(i), "required"});
    }
  }
  const QJsonArray devices = valueAt(root, "trainer.devices").toArray();
  for (int i = 0; i < devices.size(); ++i) {
    if (devices[i].toString() != "cpu") {
      issues.append(bridge::ProjectIssueView{
          QStringLiteral("$.trainer.devices[%1]").arg(i),
          QStringLiteral("unknown device \"%1\" (available: cpu)").arg(devices[i].toString())});
    }
  }
  return issues;
}

/// fakeValidate's issues and, for a valid document, a learning-rate curve from its rate.
bridge::ProjectSummaryView fakeAnalyze(const QString& text) {
  bridge::ProjectSummaryView summary;
  summary.issues = fakeValidate(text);
  if (!summary.valid()) return summary;
  const QJsonObject root = QJsonDocument::fromJson(text.toUtf8()).object();
  const double rate = valueAt(root, "optimizer.learning_rate").toDouble(1e-3);
  summary.learningRateCurve = {{0, rate}, {100, rate / 10}, {200, rate / 100}};
  summary.startingLearningRate = rate;
  return summary;
}

bridge::ProjectServices fakeServices() {
  bridge::ProjectServices services;
  services.catalog = bridge::componentCatalog();  // the engine's registry: the form's fields
  services.analyze = fakeAnalyze;
  // The engine writes every default; this one writes run_root, enough to see it was used.
  services.canonicalize = [](const QString& text, QString* error) {
    const bridge::ProjectIssueViews issues = fakeValidate(text);
    if (!issues.isEmpty()) {
      *error = issues.first().path + ": " + issues.first().message;
      return QString();
    }
    QJsonObject root = QJsonDocument::fromJson(text.toUtf8()).object();
    if (!root.contains("run_root")) root.insert("run_root", "train_log");
    return QString::fromUtf8(QJsonDocument(root).toJson(QJsonDocument::Compact));
  };
  return services;
}

template <typename T>
T* field(const ProjectEditor& editor, const QString& name) {
  T* widget = editor.findChild<T*>(name);
  if (widget == nullptr) qFatal("no widget named %s", qPrintable(name));
  return widget;
}

QLabel* issueLabel(const ProjectEditor& editor, const QString& fieldName) {
  return field<QLabel>(editor, fieldName + ".issue");
}

}  // namespace

class ProjectEditorTest : public QObject {
  Q_OBJECT

 private slots:
  void validateOnCopiesTheTrainingSourceAsTheRegistrySays() {
    ProjectEditor editor(fakeServices());
    QVERIFY(editor.setDocument(
        R"({"format": 1, "name": "v", "model": {"type": "mlp"},
            "data": {"train": {"type": "fashion-mnist", "limit": 100}}})"));
    field<QCheckBox>(editor, "data.validation")->click();
    QJsonObject root = QJsonDocument::fromJson(editor.document().toUtf8()).object();
    // The validation slot's own default: the held-out split.
    QCOMPARE(valueAt(root, "data.validation.split").toString(), QStringLiteral("test"));
    QCOMPARE(valueAt(root, "data.validation.limit").toInt(), 100);

    QVERIFY(editor.setDocument(
        R"({"format": 1, "name": "v", "model": {"type": "mlp"},
            "data": {"train": {"type": "synthetic", "sample_seed": 5}}})"));
    field<QCheckBox>(editor, "data.validation")->click();
    root = QJsonDocument::fromJson(editor.document().toUtf8()).object();
    // The type's "held_out_by" seed: the same patterns, other samples. No split key.
    QCOMPARE(valueAt(root, "data.validation.sample_seed").toInt(), 6);
    QVERIFY(!root.value("data").toObject().value("validation").toObject().contains("split"));
  }

  void pathsReadAndWriteNestedValues() {
    QJsonObject root{{"callbacks", QJsonArray{QJsonObject{{"type", "throughput"}}}}};
    root = applyEdit(root, {"data.train.num_samples", 512});
    root = applyEdit(root, {"$.callbacks[0].every_k_steps", 3});
    QCOMPARE(valueAt(root, "$.data.train.num_samples").toInteger(), 512);
    QCOMPARE(valueAt(root, "callbacks[0].every_k_steps").toInteger(), 3);
    root = applyEdit(root, removal("data.train"));
    QCOMPARE(root.value("data").toObject(), QJsonObject());
    // An index past the end changes nothing.
    QCOMPARE(applyEdit(root, {"callbacks[5].type", "x"}), root);
    QCOMPARE(pathPattern("callbacks[12].scalars[0]"), QStringLiteral("callbacks[].scalars[]"));
  }

  void sectionsStackWhenTwoColumnsDoNotFit() {
    ProjectEditor editor(fakeServices());
    QString error;
    QVERIFY2(editor.setDocument(projectText("fashion-mnist-convnet.json"), &error),
             qPrintable(error));
    const auto section = [&](const QString& title) {
      for (QGroupBox* box : editor.findChildren<QGroupBox*>()) {
        if (box->title() == title) return box;
      }
      qFatal("no section %s", qPrintable(title));
      return static_cast<QGroupBox*>(nullptr);
    };
    auto* scroll = field<QScrollArea>(editor, "form");
    const auto settle = [&](int width) {
      editor.resize(width, 800);
      QApplication::processEvents();
      QApplication::processEvents();
    };
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));

    settle(1400);  // room for both columns: Data beside General
    QCOMPARE(section("Data")->y(), section("General")->y());
    QVERIFY(section("Data")->x() > section("General")->x());
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());

    settle(480);  // a narrow dock: one column, Data below the left column, no sideways scrolling
    QVERIFY(section("Data")->y() > section("General")->y());
    QCOMPARE(section("Data")->x(), section("General")->x());
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());

    settle(1400);  // and back
    QCOMPARE(section("Data")->y(), section("General")->y());
  }

  void textHasStableOrderAndCompactArrays() {
    const QJsonObject root{
        {"seed", 7},
        {"name", "p"},
        {"format", 1},
        {"optimizer", QJsonObject{{"eps", 1e-8}, {"type", "adam"}, {"learning_rate", 0.0003}}},
        {"model", QJsonObject{{"hidden", QJsonArray{256, 128}}, {"type", "mlp"}}},
        {"zzz", true}};
    const QString text = toProjectText(root);
    QCOMPARE(text, QStringLiteral("{\n"
                                  "  \"format\": 1,\n"
                                  "  \"name\": \"p\",\n"
                                  "  \"model\": {\n"
                                  "    \"type\": \"mlp\",\n"
                                  "    \"hidden\": [256, 128]\n"
                                  "  },\n"
                                  "  \"optimizer\": {\n"
                                  "    \"type\": \"adam\",\n"
                                  "    \"learning_rate\": 0.0003,\n"
                                  "    \"eps\": 1e-08\n"
                                  "  },\n"
                                  "  \"seed\": 7,\n"
                                  "  \"zzz\": true\n"
                                  "}\n"));
    QCOMPARE(parseJsonObject(text).object, root);
    const ParsedJson broken = parseJsonObject("{\n  \"a\": 1,\n  oops\n}");
    QVERIFY(!broken.ok);
    QVERIFY2(broken.error.startsWith("line 3, column"), qPrintable(broken.error));
  }

  void loadingAProjectFillsTheForm() {
    ProjectEditor editor(fakeServices());
    QSignalSpy validity(&editor, &ProjectEditor::validityChanged);
    QString error;
    QVERIFY2(editor.setDocument(projectText("synthetic-mlp.json"), &error), qPrintable(error));
    QCOMPARE(validity.count(), 1);
    QVERIFY(editor.isValid());
    QVERIFY(!editor.isModified());

    QCOMPARE(field<QLineEdit>(editor, "name")->text(), QStringLiteral("synthetic-mlp"));
    QVERIFY(field<QLineEdit>(editor, "description")->text().startsWith("Four noisy 8x8 patterns"));
    QCOMPARE(field<QLineEdit>(editor, "description")->cursorPosition(), 0);  // its beginning shows
    QCOMPARE(field<QLineEdit>(editor, "seed")->text(), QStringLiteral("7"));
    QCOMPARE(field<QLineEdit>(editor, "run_root")->text(), QStringLiteral("train_log"));
    QCOMPARE(field<QComboBox>(editor, "model.type")->currentText(), QStringLiteral("mlp"));
    QCOMPARE(field<QLineEdit>(editor, "model.hidden")->text(), QStringLiteral("64"));
    QVERIFY(field<QLineEdit>(editor, "model.hidden")->isVisibleTo(&editor));
    QVERIFY(!field<QSpinBox>(editor, "model.conv1_channels")->isVisibleTo(&editor));
    QCOMPARE(field<QSpinBox>(editor, "data.batch_size")->value(), 64);
    QCOMPARE(field<QComboBox>(editor, "data.train.type")->currentText(),
             QStringLiteral("synthetic"));
    QCOMPARE(field<QSpinBox>(editor, "data.train.num_samples")->value(), 2048);
    QCOMPARE(field<QLineEdit>(editor, "data.train.noise")->text(), QStringLiteral("2"));
    QVERIFY(!field<QLineEdit>(editor, "data.train.dir")->isVisibleTo(&editor));
    QVERIFY(field<QCheckBox>(editor, "data.validation")->isChecked());
    QCOMPARE(field<QSpinBox>(editor, "data.validation.num_samples")->value(), 512);
    QCOMPARE(field<QLineEdit>(editor, "data.validation.sample_seed")->text(), QStringLiteral("2"));
    QCOMPARE(field<QComboBox>(editor, "optimizer.type")->currentText(), QStringLiteral("sgd"));
    QCOMPARE(field<QLineEdit>(editor, "optimizer.learning_rate")->text(), QStringLiteral("0.05"));
    QCOMPARE(field<QLineEdit>(editor, "optimizer.momentum")->text(), QStringLiteral("0.9"));
    QVERIFY(field<QLineEdit>(editor, "optimizer.momentum")->isEnabledTo(&editor));
    QVERIFY(!field<QLineEdit>(editor, "optimizer.beta1")->isEnabledTo(&editor));
    QVERIFY(!field<QCheckBox>(editor, "schedule")->isChecked());
    QCOMPARE(field<QSpinBox>(editor, "max_epoch")->value(), 3);
    QCOMPARE(field<QListWidget>(editor, "callbacks")->count(), 4);
    QVERIFY(field<QListWidget>(editor, "callbacks")->item(3)->text().contains("min_saver"));
    QVERIFY(field<QCheckBox>(editor, "monitors.tensorboard")->isChecked());  // absent: default

    // The canonical text, written with two-space indent in the documented key order.
    const QString text = editor.document();
    QVERIFY2(text.startsWith("{\n  \"format\": 1,\n  \"name\": \"synthetic-mlp\",\n"),
             qPrintable(text));
    QVERIFY(text.contains("\"run_root\": \"train_log\""));
    QCOMPARE(field<QPlainTextEdit>(editor, "json")->toPlainText(), text);
  }

  void formEditsChangeTheDocumentAndModifiedFlag() {
    ProjectEditor editor(fakeServices());
    editor.setDocument(projectText("synthetic-mlp.json"));
    QSignalSpy modified(&editor, &ProjectEditor::modifiedChanged);
    QSignalSpy changed(&editor, &ProjectEditor::documentChanged);
    auto* batch = field<QSpinBox>(editor, "data.batch_size");
    batch->setValue(32);
    QCOMPARE(valueAt(editor.object(), "data.batch_size").toInteger(), 32);
    QVERIFY(editor.document().contains("\"batch_size\": 32"));
    QVERIFY(field<QPlainTextEdit>(editor, "json")->toPlainText().contains("\"batch_size\": 32"));
    QVERIFY(editor.isModified());
    QCOMPARE(modified.count(), 1);
    QCOMPARE(changed.count(), 1);
    batch->setValue(64);  // back to the saved document
    QVERIFY(!editor.isModified());
    QCOMPARE(modified.count(), 2);

    // Scientific notation; "1e-" is not a number yet, so the "1" before it stays written.
    auto* rate = field<QLineEdit>(editor, "optimizer.learning_rate");
    rate->selectAll();
    QTest::keyClicks(rate, "1e-");
    QCOMPARE(valueAt(editor.object(), "optimizer.learning_rate").toDouble(), 1.0);
    QCOMPARE(rate->text(), QStringLiteral("1e-"));
    QTest::keyClicks(rate, "4");
    QCOMPARE(valueAt(editor.object(), "optimizer.learning_rate").toDouble(), 1e-4);
    QCOMPARE(rate->text(), QStringLiteral("1e-4"));  // not rewritten under the cursor
    editor.setUnmodified();
    QVERIFY(!editor.isModified());

    // A seed beyond 32 bits.
    auto* seed = field<QLineEdit>(editor, "seed");
    seed->selectAll();
    QTest::keyClicks(seed, "9223372036854775807");
    QCOMPARE(valueAt(editor.object(), "seed").toInteger(), Q_INT64_C(9223372036854775807));
    QVERIFY(editor.document().contains("\"seed\": 9223372036854775807"));
  }

  void validationWaitsForTheEditsToPause() {
    auto calls = std::make_shared<int>(0);
    bridge::ProjectServices services = fakeServices();
    services.analyze = [calls](const QString& text) {
      ++*calls;
      return fakeAnalyze(text);
    };
    ProjectEditor editor(services);
    editor.setDocument(projectText("synthetic-mlp.json"));
    QCOMPARE(*calls, 1);  // at once when loading
    auto* batch = field<QSpinBox>(editor, "data.batch_size");
    for (int value : {65, 66, 67}) batch->setValue(value);
    QCOMPARE(*calls, 1);
    QTRY_COMPARE(*calls, 2);  // once for the three edits
    QTest::qWait(400);
    QCOMPARE(*calls, 2);
    // Start validates now: the document analysed already is not parsed again.
    editor.validateNow();
    QCOMPARE(*calls, 2);
    QCOMPARE(editor.summary().startingLearningRate,
             valueAt(editor.object(), "optimizer.learning_rate").toDouble());
  }

  void jsonEditsReachTheFormAfterTheDebounce() {
    ProjectEditor editor(fakeServices());
    editor.setDocument(projectText("synthetic-mlp.json"));
    auto* json = field<QPlainTextEdit>(editor, "json");
    auto* batch = field<QSpinBox>(editor, "data.batch_size");
    json->setPlainText(json->toPlainText().replace("\"batch_size\": 64", "\"batch_size\": 16"));
    QCOMPARE(batch->value(), 64);  // not before the debounce
    QTRY_COMPARE(batch->value(), 16);
    QVERIFY(editor.isModified());

    // Text that does not parse disables the form and says where.
    json->setPlainText("{\n  \"name\": \"x\",\n  \"model\": \n");
    QTRY_VERIFY(editor.hasParseError());
    QVERIFY(!batch->isEnabledTo(&editor));
    QVERIFY(field<QLabel>(editor, "form.parseError")->isVisibleTo(&editor));
    QVERIFY(field<QLabel>(editor, "form.parseError")->text().contains("line 4"));
    QCOMPARE(editor.issues().size(), 1);
    QCOMPARE(editor.issues().first().path, QStringLiteral("$"));
    QVERIFY(!editor.isValid());
    QCOMPARE(editor.document(), json->toPlainText());  // kept as typed, for saving
    QVERIFY(!editor.setTrainerSection(QJsonObject{{"strategy", "simple"}}));

    json->setPlainText(projectText("fashion-mnist-mlp.json"));
    QTRY_VERIFY(!editor.hasParseError());
    QVERIFY(batch->isEnabledTo(&editor));
    QCOMPARE(batch->value(), 128);
    QCOMPARE(field<QComboBox>(editor, "data.train.type")->currentText(),
             QStringLiteral("fashion-mnist"));
    QTRY_VERIFY(editor.isValid());
  }

  void switchingTypesDropsTheKeysOfTheOldType() {
    ProjectEditor editor(fakeServices());
    editor.setDocument(projectText("synthetic-mlp.json"));
    auto* type = field<QComboBox>(editor, "model.type");
    type->setCurrentText("convnet");
    const QJsonObject model = editor.object().value("model").toObject();
    QCOMPARE(model.value("type").toString(), QStringLiteral("convnet"));
    QVERIFY(!model.contains("hidden"));
    QVERIFY(!editor.document().contains("\"hidden\""));
    QVERIFY(field<QSpinBox>(editor, "model.conv1_channels")->isVisibleTo(&editor));
    QVERIFY(!field<QLineEdit>(editor, "model.hidden")->isVisibleTo(&editor));
    field<QSpinBox>(editor, "model.fc_width")->setValue(512);
    QCOMPARE(valueAt(editor.object(), "model.fc_width").toInteger(), 512);
    type->setCurrentText("mlp");  // the mlp's layers come back, the convnet's width goes
    QCOMPARE(valueAt(editor.object(), "model.hidden").toArray(), QJsonArray{64});
    QVERIFY(!editor.object().value("model").toObject().contains("fc_width"));

    auto* optimizer = field<QComboBox>(editor, "optimizer.type");
    optimizer->setCurrentText("adam");
    QVERIFY(!editor.object().value("optimizer").toObject().contains("momentum"));
    QVERIFY(!field<QLineEdit>(editor, "optimizer.momentum")->isEnabledTo(&editor));
    QVERIFY(field<QLineEdit>(editor, "optimizer.eps")->isEnabledTo(&editor));
    QCOMPARE(field<QLineEdit>(editor, "optimizer.eps")->text(), QStringLiteral("1e-08"));

    // A validation source, removed and put back as it was.
    auto* validateOn = field<QCheckBox>(editor, "data.validation");
    const QJsonValue validation = valueAt(editor.object(), "data.validation");
    validateOn->setChecked(false);
    QVERIFY(!editor.object().value("data").toObject().contains("validation"));
    QVERIFY(!field<QSpinBox>(editor, "data.validation.num_samples")->isVisibleTo(&editor));
    validateOn->setChecked(true);
    QCOMPARE(valueAt(editor.object(), "data.validation"), validation);
  }

  void callbacksAreAddedMovedAndRemoved() {
    ProjectEditor editor(fakeServices());
    editor.setDocument(projectText("synthetic-mlp.json"));
    auto* list = field<QListWidget>(editor, "callbacks");
    list->setCurrentRow(0);
    field<QToolButton>(editor, "callbacks.add")
        ->menu()
        ->findChild<QAction*>("callbacks.add.max_saver")
        ->trigger();
    QJsonArray callbacks = editor.object().value("callbacks").toArray();
    QCOMPARE(callbacks.size(), 5);
    QCOMPARE(callbacks[1].toObject(), (QJsonObject{{"type", "max_saver"}}));
    QCOMPARE(list->currentRow(), 1);

    // Its stat is required: the message shows under the stat field of the selected callback.
    auto* stat = field<QLineEdit>(editor, "callback.stat");
    QVERIFY(stat->isVisibleTo(&editor));
    QVERIFY(!field<QLineEdit>(editor, "callback.scalars")->isVisibleTo(&editor));
    QTRY_VERIFY(issueLabel(editor, "callback.stat")->isVisibleTo(&editor));
    QCOMPARE(issueLabel(editor, "callback.stat")->text(), QStringLiteral("required"));
    QVERIFY(!list->item(1)->icon().isNull());
    QTest::keyClicks(stat, "validation_cost");
    QCOMPARE(valueAt(editor.object(), "callbacks[1].stat").toString(),
             QStringLiteral("validation_cost"));
    QTRY_VERIFY(!issueLabel(editor, "callback.stat")->isVisibleTo(&editor));
    QVERIFY(list->item(1)->icon().isNull());

    // Settings of another row edit that row.
    list->setCurrentRow(0);
    auto* scalars = field<QLineEdit>(editor, "callback.scalars");
    QCOMPARE(scalars->text(), QStringLiteral("cost, train_error"));
    scalars->selectAll();
    QTest::keyClicks(scalars, "cost");
    QCOMPARE(valueAt(editor.object(), "callbacks[0].scalars").toArray(), QJsonArray{"cost"});

    field<QToolButton>(editor, "callbacks.down")->click();
    callbacks = editor.object().value("callbacks").toArray();
    QCOMPARE(callbacks[0].toObject().value("type").toString(), QStringLiteral("max_saver"));
    QCOMPARE(callbacks[1].toObject().value("type").toString(), QStringLiteral("progress_bar"));
    QCOMPARE(list->currentRow(), 1);
    field<QToolButton>(editor, "callbacks.remove")->click();
    callbacks = editor.object().value("callbacks").toArray();
    QCOMPARE(callbacks.size(), 4);
    for (const QJsonValue& callback : callbacks) {
      QVERIFY(callback.toObject().value("type").toString() != "progress_bar");
    }
    QCOMPARE(list->count(), 4);
  }

  void absentCallbacksShowTheDefaultsAndAreWrittenOnChange() {
    ProjectEditor editor(fakeServices());
    QJsonObject root = QJsonDocument::fromJson(projectText("synthetic-mlp.json").toUtf8()).object();
    root.remove("callbacks");
    editor.setDocument(QString::fromUtf8(QJsonDocument(root).toJson()));
    auto* list = field<QListWidget>(editor, "callbacks");
    QCOMPARE(list->count(), 3);
    QVERIFY(field<QLabel>(editor, "callbacks.default")->isVisibleTo(&editor));
    QVERIFY(!editor.object().contains("callbacks"));
    list->setCurrentRow(0);
    auto* scalars = field<QLineEdit>(editor, "callback.scalars");
    scalars->selectAll();
    QTest::keyClicks(scalars, "cost, train_error");
    const QJsonArray callbacks = editor.object().value("callbacks").toArray();
    QCOMPARE(callbacks.size(), 3);
    QCOMPARE(valueAt(editor.object(), "callbacks[0].scalars").toArray(),
             (QJsonArray{"cost", "train_error"}));
    QCOMPARE(valueAt(editor.object(), "callbacks[2].type").toString(),
             QStringLiteral("throughput"));
    QVERIFY(!field<QLabel>(editor, "callbacks.default")->isVisibleTo(&editor));
  }

  void problemsShowNextToTheirFields() {
    ProjectEditor editor(fakeServices());
    QJsonObject root = QJsonDocument::fromJson(projectText("synthetic-mlp.json").toUtf8()).object();
    root = applyEdit(root, {"data.batch_size", 0});
    root = applyEdit(root, {"trainer.devices", QJsonArray{"cuda:9"}});
    QString error;
    QVERIFY(!editor.setDocument(QString::fromUtf8(QJsonDocument(root).toJson()), &error));
    QVERIFY2(error.contains("$.data.batch_size: must be >= 1, got 0"), qPrintable(error));

    auto* batch = field<QSpinBox>(editor, "data.batch_size");
    QCOMPARE(batch->value(), 0);  // the real value, not the spin box's minimum
    QLabel* label = issueLabel(editor, "data.batch_size");
    QVERIFY(label->isVisibleTo(&editor));
    QCOMPARE(label->text(), QStringLiteral("must be >= 1, got 0"));
    QVERIFY(batch->toolTip().startsWith("must be >= 1, got 0"));
    QVERIFY(batch->styleSheet().contains("border"));

    // The trainer has no field here: its problem is listed at the top and leads to the text.
    auto* summary = field<QListWidget>(editor, "issues");
    QVERIFY(summary->isVisibleTo(&editor));
    QCOMPARE(summary->count(), 1);
    QVERIFY(summary->item(0)->text().startsWith("$.trainer.devices[0]: unknown device"));
    emit summary->itemClicked(summary->item(0));
    QCOMPARE(field<QTabWidget>(editor, "tabs")->currentIndex(), 1);
    const QTextCursor cursor = field<QPlainTextEdit>(editor, "json")->textCursor();
    QVERIFY(field<QPlainTextEdit>(editor, "json")
                ->toPlainText()
                .mid(cursor.position())
                .startsWith("\"devices\""));

    editor.showTab(0);
    batch->setValue(8);
    QTRY_VERIFY(!label->isVisibleTo(&editor));
    QVERIFY2(!batch->styleSheet().contains("border"), qPrintable(batch->styleSheet()));
    QVERIFY(!batch->toolTip().contains("must be"));
    QCOMPARE(editor.issues().size(), 1);

    // An issue of a field of the other type (hidden) goes to the list too.
    field<QPlainTextEdit>(editor, "json")
        ->setPlainText(editor.document().replace("\"type\": \"mlp\"", "\"type\": \"convnet\""));
    QTRY_COMPARE(summary->count(), 2);
    QVERIFY(summary->item(0)->text().startsWith("$.model.hidden"));
  }

  void trainerSectionIsKeptForTheDevicesPanel() {
    ProjectEditor editor(fakeServices());
    editor.setDocument(projectText("synthetic-mlp.json"));
    QCOMPARE(editor.trainerSection(),
             (QJsonObject{{"strategy", "simple"}, {"devices", QJsonArray{"cpu"}}}));
    const QJsonObject replicated{
        {"strategy", "sync_replicated"}, {"devices", QJsonArray{"cpu", "cpu"}}, {"average", true}};
    QSignalSpy changed(&editor, &ProjectEditor::documentChanged);
    QVERIFY(editor.setTrainerSection(replicated));
    QCOMPARE(editor.trainerSection(), replicated);
    QVERIFY(editor.isModified());
    QCOMPARE(changed.count(), 1);
    QVERIFY(editor.document().contains("\"strategy\": \"sync_replicated\""));

    field<QSpinBox>(editor, "data.batch_size")->setValue(32);
    field<QComboBox>(editor, "model.type")->setCurrentText("convnet");
    field<QCheckBox>(editor, "monitors.json")->setChecked(false);
    QCOMPARE(editor.trainerSection(), replicated);
    QCOMPARE(
        QJsonDocument::fromJson(editor.document().toUtf8()).object().value("trainer").toObject(),
        replicated);

    QVERIFY(editor.setTrainerSection({}));
    QVERIFY(!editor.object().contains("trainer"));
  }

  void scheduleEditsAndPreview() {
    ProjectEditor editor(fakeServices());
    QVERIFY(editor.setDocument(projectText("fashion-mnist-convnet.json")));
    auto* plot = field<QCustomPlot>(editor, "schedule.preview");
    QCOMPARE(plot->graph(0)->data()->size(), 3);
    QCOMPARE(plot->graph(0)->data()->at(1)->key, 100.0);
    QCOMPARE(plot->graph(0)->data()->at(1)->value, 1e-4);
    QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);

    auto* enabled = field<QCheckBox>(editor, "schedule");
    QVERIFY(enabled->isChecked());
    auto* table = field<QTableWidget>(editor, "schedule.learning_rate.points");
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->item(1, 0)->text(), QStringLiteral("5"));
    QCOMPARE(table->item(1, 1)->text(), QStringLiteral("0.0003"));
    table->item(1, 1)->setText("2e-4");
    QCOMPARE(valueAt(editor.object(), "schedule.learning_rate.points[1][1]").toDouble(), 2e-4);
    field<QPushButton>(editor, "schedule.learning_rate.points.add")->click();
    QCOMPARE(valueAt(editor.object(), "schedule.learning_rate.points").toArray().size(), 4);
    QCOMPARE(valueAt(editor.object(), "schedule.learning_rate.points[3][0]").toInteger(), 9);
    QVERIFY(editor.document().contains(
        "\"points\": [[0, 0.001], [5, 0.0002], [8, 0.0001], [9, 1e-05]]"));

    const QJsonValue schedule = editor.object().value("schedule");
    enabled->setChecked(false);
    QVERIFY(!editor.object().contains("schedule"));
    QVERIFY(!table->isEnabledTo(&editor));
    enabled->setChecked(true);
    QCOMPARE(editor.object().value("schedule"), schedule);

    // The preview follows the document once it is validated, and clears when it is invalid.
    auto* rate = field<QLineEdit>(editor, "optimizer.learning_rate");
    rate->selectAll();
    QTest::keyClicks(rate, "0.1");
    QTRY_COMPARE(plot->graph(0)->data()->at(0)->value, 0.1);
    auto* json = field<QPlainTextEdit>(editor, "json");
    json->setPlainText(json->toPlainText().replace("\"batch_size\": 128", "\"batch_size\": 0"));
    QTRY_COMPARE(plot->graph(0)->data()->size(), 0);
    QVERIFY(field<QLabel>(editor, "schedule.preview.note")->isVisibleTo(&editor));
  }

  void initCheckpointAddsAndRemovesInit() {
    ProjectEditor editor(fakeServices());
    editor.setDocument(projectText("synthetic-mlp.json"));
    auto* checkpoint = field<QLineEdit>(editor, "init.checkpoint");
    auto* ignore = field<QLineEdit>(editor, "init.ignore");
    QVERIFY(!ignore->isEnabled());
    QTest::keyClicks(checkpoint, "runs/a/model-96.pt");
    QCOMPARE(valueAt(editor.object(), "init.checkpoint").toString(),
             QStringLiteral("runs/a/model-96.pt"));
    QVERIFY(ignore->isEnabled());
    QTest::keyClicks(ignore, "fc2., fc3.weight");
    QCOMPARE(valueAt(editor.object(), "init.ignore").toArray(), (QJsonArray{"fc2.", "fc3.weight"}));
    checkpoint->clear();
    emit checkpoint->textEdited(QString());
    QVERIFY(!editor.object().contains("init"));
  }
};

}  // namespace test_ProjectEditor

TB_TEST_MAIN(test_ProjectEditor::ProjectEditorTest)
#include "test_ProjectEditor.moc"
