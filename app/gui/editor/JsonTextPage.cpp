#include "app/bridge/ProjectViews.h"
#include "app/gui/editor/JsonTextPage.h"

#include <QFontDatabase>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include "app/gui/editor/JsonPath.h"
#include "widgets/Palette.h"

namespace tbench::gui {

void fitListHeight(QListWidget* list, int maxRows) {
  const int rows = qBound(1, list->count(), maxRows);
  const int rowHeight = list->count() > 0 ? list->sizeHintForRow(0) : list->fontMetrics().height();
  list->setFixedHeight(rows * rowHeight + 2 * list->frameWidth() + 4);
}

JsonTextPage::JsonTextPage(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  syntaxError_ = new QLabel(this);
  syntaxError_->setObjectName("json.syntaxError");
  syntaxError_->setWordWrap(true);
  syntaxError_->setTextFormat(Qt::RichText);
  syntaxError_->setStyleSheet(ui::Palette::errorText() + QStringLiteral(" font-weight: bold;"));
  syntaxError_->hide();
  layout->addWidget(syntaxError_);
  connect(syntaxError_, &QLabel::linkActivated, this, [this] { goToSyntaxError(); });
  editor_ = new QPlainTextEdit(this);
  editor_->setObjectName("json");
  editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setTabChangesFocus(false);
  layout->addWidget(editor_, 1);
  summary_ = new QLabel(this);
  summary_->setObjectName("json.summary");
  layout->addWidget(summary_);
  issues_ = new QListWidget(this);
  issues_->setObjectName("json.issues");
  issues_->setStyleSheet(QStringLiteral("QListWidget { %1 }").arg(ui::Palette::errorText()));
  layout->addWidget(issues_);

  connect(editor_, &QPlainTextEdit::textChanged, this, [this] {
    if (!settingText_) emit textEdited();
  });
  connect(issues_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { locate(item->data(Qt::UserRole).toString()); });
  connect(issues_, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { locate(item->data(Qt::UserRole).toString()); });
}

QString JsonTextPage::text() const { return editor_->toPlainText(); }

void JsonTextPage::setText(const QString& text) {
  if (text == editor_->toPlainText()) return;
  const QScopedValueRollback<bool> guard(settingText_, true);
  const int scroll = editor_->verticalScrollBar()->value();
  const int position = editor_->textCursor().position();
  QTextCursor all(editor_->document());
  all.select(QTextCursor::Document);
  all.insertText(text);  // one step on the undo stack, unlike setPlainText
  QTextCursor cursor(editor_->document());
  cursor.setPosition(qMin(position, editor_->document()->characterCount() - 1));
  editor_->setTextCursor(cursor);
  editor_->verticalScrollBar()->setValue(scroll);
}

void JsonTextPage::showStart() {
  editor_->setTextCursor(QTextCursor(editor_->document()));
  editor_->verticalScrollBar()->setValue(0);
  editor_->horizontalScrollBar()->setValue(0);
}

void JsonTextPage::setIssues(const bridge::ProjectIssueViews& issues, int parseErrorOffset) {
  parseErrorOffset_ = parseErrorOffset;
  issues_->clear();
  for (const bridge::ProjectIssueView& issue : issues) {
    auto* item = new QListWidgetItem(issue.path + QStringLiteral(": ") + issue.message, issues_);
    item->setData(Qt::UserRole, issue.path);
    item->setToolTip(tr("Click to go to %1").arg(issue.path));
  }
  fitListHeight(issues_, 8);
  issues_->setVisible(!issues.isEmpty());
  summary_->setText(issues.isEmpty() ? tr("The project is valid.")
                                     : tr("%n problem(s):", nullptr, int(issues.size())));
}

void JsonTextPage::setSyntaxError(const QString& message, int offset) {
  QList<QTextEdit::ExtraSelection> marks;
  if (message.isEmpty()) {
    syntaxError_->clear();
    syntaxError_->hide();
    editor_->setExtraSelections(marks);
    return;
  }
  parseErrorOffset_ = offset;
  syntaxError_->setText(
      tr("Syntax error at %1 <a href=\"#error\">Go there</a>").arg(message.toHtmlEscaped()));
  syntaxError_->show();
  QTextEdit::ExtraSelection line;
  line.cursor = QTextCursor(editor_->document());
  line.cursor.setPosition(qBound(0, offset, editor_->document()->characterCount() - 1));
  line.format.setBackground(ui::Palette::error().lighter(185));
  line.format.setProperty(QTextFormat::FullWidthSelection, true);
  marks.append(line);
  editor_->setExtraSelections(marks);
  if (!editor_->hasFocus()) moveCursorTo(offset, /*focus=*/false);
}

QString JsonTextPage::syntaxError() const {
  return syntaxError_->isVisible() || !syntaxError_->text().isEmpty()
             ? QTextDocumentFragment::fromHtml(syntaxError_->text()).toPlainText()
             : QString();
}

void JsonTextPage::locate(const QString& path) {
  const QString text = editor_->toPlainText();
  if (withoutRoot(path).isEmpty() && parseErrorOffset_ >= 0) {
    moveCursorTo(parseErrorOffset_);
    return;
  }
  // Follows the keys of the path in the text; indices are not counted (a key of the third
  // callback may be found in the first), but the cursor lands in the right object.
  int position = 0;
  for (const JsonPathStep& step : parseJsonPath(path)) {
    if (step.key.isEmpty()) continue;
    const int found = text.indexOf(QLatin1Char('"') + step.key + QLatin1Char('"'), position);
    if (found < 0) break;
    position = found + 1;
  }
  moveCursorTo(qMax(0, position - 1));
}

void JsonTextPage::moveCursorTo(int offset, bool focus) {
  QTextCursor cursor(editor_->document());
  cursor.setPosition(qBound(0, offset, editor_->document()->characterCount() - 1));
  editor_->setTextCursor(cursor);
  editor_->ensureCursorVisible();
  if (focus) editor_->setFocus();
}

}  // namespace tbench::gui
