// Input is never silently changed (issue 14, item 4), typed into the real window's project
// form offscreen with the real registry: a number out of its key's bounds or not a number is
// flagged at its field and not written (never coerced), an integer list with a bad element is
// flagged (not truncated), the JSON tab shows a syntax error above the text with its line and
// column, paths are checked while they are typed, and Start refuses what the fields refused.
#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/MainWindow.h"
#include "app/gui/editor/JsonPath.h"
#include "app/gui/editor/JsonTextPage.h"
#include "app/gui/editor/ProjectEditor.h"
#include "tests/support/TestMain.h"
#include "tests/support/WindowTest.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_InputChecks {

using namespace tbench;
using namespace tbench::gui;

namespace {

QString writeProject(const QTemporaryDir& dir, const std::function<void(nlohmann::json&)>& edit) {
  // The scalar printer stays as the project has it: these runs never start.
  return tbench::testing::writeProjectFrom(dir, "project.json", [&](nlohmann::json& doc) {
    doc.erase("monitors");
    if (edit) edit(doc);
  });
}

template <typename T>
T* child(QWidget& window, const QString& name) {
  auto* widget = window.findChild<T*>(name);
  if (!widget) qFatal("no widget %s", qPrintable(name));
  return widget;
}

/// Replaces the text of `edit` by typing `text`, as a user does.
void retype(QLineEdit* edit, const QString& text) {
  edit->setFocus();
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Delete);
  QTest::keyClicks(edit, text);
}

/// The message shown under a field ("" when hidden).
QString issueOf(QWidget& window, const QString& field) {
  auto* label = child<QLabel>(window, field + ".issue");
  return label->isVisibleTo(&window) ? label->text() : QString();
}

}  // namespace

class TestInputChecks : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { tbench::testing::prepareWindowTests(settingsDir_); }

  void numbersOutOfBoundsAreFlaggedNotCoerced() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(writeProject(dir, {})));
    auto* rate = child<QLineEdit>(window, "optimizer.learning_rate");
    QCOMPARE(rate->text(), QStringLiteral("0.05"));

    retype(rate, "-0.01");
    QCOMPARE(rate->text(), QStringLiteral("-0.01"));  // the minus sign is kept
    QCOMPARE(issueOf(window, "optimizer.learning_rate"), QStringLiteral("must be > 0"));
    QCOMPARE(valueAt(window.editor()->object(), "optimizer.learning_rate").toDouble(), 0.05);
    QVERIFY(rate->toolTip().startsWith("must be > 0"));
    QTest::keyClick(rate, Qt::Key_Return);  // leaving the field keeps the text and the flag
    QCOMPARE(rate->text(), QStringLiteral("-0.01"));
    QCOMPARE(issueOf(window, "optimizer.learning_rate"), QStringLiteral("must be > 0"));

    // Start refuses what a field refused, naming it.
    action(window, "actionStart")->trigger();
    auto* box = window.findChild<QMessageBox*>("messageBox");
    QVERIFY(box);
    QVERIFY2(box->text().contains("$.optimizer.learning_rate: must be > 0"),
             qPrintable(box->text()));
    box->close();
    QVERIFY(window.runs()->state() == bridge::RunState::Idle);

    retype(rate, "abc");
    QCOMPARE(issueOf(window, "optimizer.learning_rate"), QStringLiteral("\"abc\" is not a number"));
    retype(rate, "1e-3");
    QCOMPARE(issueOf(window, "optimizer.learning_rate"), QString());
    QCOMPARE(valueAt(window.editor()->object(), "optimizer.learning_rate").toDouble(), 1e-3);
  }

  // Qt's spin box puts the last valid value back when the field is left holding a number
  // below its minimum; the form's keeps the text and flags it.
  void integersBelowTheirMinimumAreFlaggedNotPutBack() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(writeProject(dir, {})));
    auto* batch = child<QSpinBox>(window, "data.batch_size");
    QCOMPARE(batch->value(), 64);
    batch->setFocus();
    batch->selectAll();
    QTest::keyClick(batch, Qt::Key_Delete);
    QTest::keyClicks(batch, "0");
    QCOMPARE(batch->text(), QStringLiteral("0"));
    QCOMPARE(issueOf(window, "data.batch_size"), QStringLiteral("must be >= 1"));
    QCOMPARE(valueAt(window.editor()->object(), "data.batch_size").toInteger(), 64);
    QTest::keyClick(batch, Qt::Key_Return);                           // Enter does not put 64 back
    child<QLineEdit>(window, "optimizer.learning_rate")->setFocus();  // nor does leaving
    QCOMPARE(batch->text(), QStringLiteral("0"));
    QCOMPARE(issueOf(window, "data.batch_size"), QStringLiteral("must be >= 1"));
    action(window, "actionStart")->trigger();
    auto* box = window.findChild<QMessageBox*>("messageBox");
    QVERIFY(box);
    QVERIFY2(box->text().contains("$.data.batch_size: must be >= 1"), qPrintable(box->text()));
    box->close();
    QVERIFY(window.runs()->state() == bridge::RunState::Idle);
    // The document's value replaces a flagged text, even the same value as before.
    QVERIFY(window.openProject(window.projectPath()));
    QCOMPARE(batch->text(), QStringLiteral("64"));
    QCOMPARE(issueOf(window, "data.batch_size"), QString());
    batch->setFocus();
    batch->selectAll();
    QTest::keyClick(batch, Qt::Key_Delete);
    QTest::keyClicks(batch, "0");
    QCOMPARE(issueOf(window, "data.batch_size"), QStringLiteral("must be >= 1"));
    // A valid number clears the flag and is written.
    batch->setFocus();
    batch->selectAll();
    QTest::keyClick(batch, Qt::Key_Delete);
    QTest::keyClicks(batch, "32");
    QCOMPARE(issueOf(window, "data.batch_size"), QString());
    QCOMPARE(valueAt(window.editor()->object(), "data.batch_size").toInteger(), 32);
  }

  void integerListsWithABadElementAreFlaggedNotTruncated() {
    QTemporaryDir dir;
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(writeProject(dir, {})));
    auto* hidden = child<QLineEdit>(window, "model.hidden");
    QCOMPARE(hidden->text(), QStringLiteral("64"));

    // Pasted: the document keeps its value.
    QGuiApplication::clipboard()->setText(QStringLiteral("256, abc"));
    hidden->setFocus();
    hidden->selectAll();
    QTest::keySequence(hidden, QKeySequence::Paste);
    QCOMPARE(hidden->text(), QStringLiteral("256, abc"));
    QCOMPARE(issueOf(window, "model.hidden"),
             QStringLiteral("element 2, \"abc\", is not an integer"));
    QCOMPARE(valueAt(window.editor()->object(), "model.hidden").toArray(), QJsonArray{64});

    // Typed: "256" is a list while it is being typed, and is written; what follows is flagged,
    // not read as [256] (the field says so until the text is fixed).
    retype(hidden, "256, abc");
    QCOMPARE(hidden->text(), QStringLiteral("256, abc"));
    QCOMPARE(issueOf(window, "model.hidden"),
             QStringLiteral("element 2, \"abc\", is not an integer"));
    QTest::keyClick(hidden, Qt::Key_Return);  // leaving the field keeps the text and the flag
    QCOMPARE(hidden->text(), QStringLiteral("256, abc"));
    QVERIFY(hidden->toolTip().startsWith("element 2"));

    retype(hidden, "256, 0");  // the key's bounds apply to every element
    QCOMPARE(issueOf(window, "model.hidden"), QStringLiteral("element 2, \"0\", must be >= 1"));

    retype(hidden, "256, 128");
    QCOMPARE(issueOf(window, "model.hidden"), QString());
    QCOMPARE(valueAt(window.editor()->object(), "model.hidden").toArray(), (QJsonArray{256, 128}));
  }

  void theJsonSyntaxErrorIsShownAboveTheTextWithItsPlace() {
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.json");
    {
      QFile file(path);
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write("{\n  \"format\": 1,\n  \"name\" \"broken\"\n}\n");
    }
    MainWindow window;
    window.setAsker([](auto&&...) { return QMessageBox::Discard; });
    window.resize(1280, 800);
    window.show();
    QVERIFY(window.openProject(path));
    window.editor()->showTab(1);
    auto* banner = child<QLabel>(window, "json.syntaxError");
    auto* text = child<QPlainTextEdit>(window, "json");
    QVERIFY(banner->isVisibleTo(&window));
    auto* page = window.findChild<JsonTextPage*>();
    QVERIFY2(page->syntaxError().contains("line 3, column"), qPrintable(page->syntaxError()));
    // Above the text, so no scroll bar hides it, and the cursor is on the line.
    QVERIFY(banner->geometry().bottom() <= text->geometry().top());
    QCOMPARE(text->textCursor().block().blockNumber(), 2);

    // Typing a fix removes the banner once the text parses.
    text->setFocus();
    QTextCursor cursor = text->textCursor();
    cursor.setPosition(text->document()->findBlockByNumber(2).position() + 8);
    text->setTextCursor(cursor);
    QTest::keyClicks(text, ":");
    window.editor()->validateNow();
    QVERIFY2(!banner->isVisibleTo(&window), qPrintable(banner->text()));

    // A new error while typing: shown, and "Go there" moves the cursor to it.
    cursor.movePosition(QTextCursor::Start);
    text->setTextCursor(cursor);
    QTest::keyClicks(text, "x");
    window.editor()->validateNow();
    QVERIFY(banner->isVisibleTo(&window));
    QVERIFY2(page->syntaxError().contains("line 1, column"), qPrintable(page->syntaxError()));
    cursor.movePosition(QTextCursor::End);
    text->setTextCursor(cursor);
    emit banner->linkActivated("#error");
    QCOMPARE(text->textCursor().block().blockNumber(), 0);
  }

  void pathsAreCheckedWhileTyped() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("images/train"));
    {
      QFile file(dir.filePath("labels.bin"));
      QVERIFY(file.open(QIODevice::WriteOnly));
    }
    MainWindow window;
    tbench::testing::showDiscarding(window);
    QVERIFY(window.openProject(writeProject(dir, [](nlohmann::json& doc) {
      doc["data"]["train"] = {{"type", "fashion-mnist"}, {"dir", "/nonexistent/fashion"}};
      doc["data"].erase("validation");
    })));
    auto* path = child<QLineEdit>(window, "data.train.dir");
    // A loaded path is checked at once.
    QCOMPARE(issueOf(window, "data.train.dir"),
             QStringLiteral("no such directory: /nonexistent/fashion"));

    retype(path, "images/train");  // relative to the project file's folder
    QCOMPARE(issueOf(window, "data.train.dir"), QString());
    QCOMPARE(valueAt(window.editor()->object(), "data.train.dir").toString(),
             QStringLiteral("images/train"));
    retype(path, "labels.bin");
    QCOMPARE(issueOf(window, "data.train.dir"),
             QStringLiteral("not a directory: %1").arg(dir.filePath("labels.bin")));
    retype(path, "images/tra");
    QCOMPARE(issueOf(window, "data.train.dir"),
             QStringLiteral("no such directory: %1").arg(dir.filePath("images/tra")));

    // Start is refused before any run directory is made.
    action(window, "actionStart")->trigger();
    QVERIFY(window.findChild<QMessageBox*>("messageBox"));
    QVERIFY(window.runs()->state() == bridge::RunState::Idle);
    QVERIFY(!QDir(dir.filePath("runs")).exists());

    // The run root is made by the run: a missing one is fine, a file is not.
    auto* root = child<QLineEdit>(window, "run_root");
    retype(root, "not-yet");
    QCOMPARE(issueOf(window, "run_root"), QString());
    retype(root, "labels.bin");
    QCOMPARE(issueOf(window, "run_root"),
             QStringLiteral("not a directory: %1").arg(dir.filePath("labels.bin")));
  }

 private:
  static QAction* action(QWidget& window, const char* name) {
    auto* a = window.findChild<QAction*>(name);
    if (!a) qFatal("no action %s", name);
    return a;
  }

  QTemporaryDir settingsDir_;
};

}  // namespace test_InputChecks

TB_TEST_MAIN(test_InputChecks::TestInputChecks)
#include "test_InputChecks.moc"
