#include "app/gui/runview/LogView.h"
#include "widgets/Palette.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QScrollBar>
#include <QTextCharFormat>

namespace tbench::gui {
namespace {

QColor colourOf(const QString& line) {
  // The engine's lines start "[MMDD hh:mm:ss LVL] ".
  const QString head = line.left(24);
  if (head.contains(QLatin1String(" ERR]"))) return ui::Palette::error();
  if (head.contains(QLatin1String(" WRN]"))) return ui::Palette::warning();
  return {};
}

}  // namespace

LogView::LogView(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName("logView");
  setReadOnly(true);
  setMaximumBlockCount(kMaxLines);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setPlaceholderText(tr("The run's log appears here."));
}

void LogView::appendLines(const QStringList& lines) {
  QScrollBar* bar = verticalScrollBar();
  const bool atEnd = bar->value() >= bar->maximum() - 2;
  QTextCursor cursor(document());
  cursor.movePosition(QTextCursor::End);
  for (const QString& line : lines) {
    QTextCharFormat format;
    const QColor colour = colourOf(line);
    if (colour.isValid()) format.setForeground(colour);
    if (!document()->isEmpty()) cursor.insertBlock();
    cursor.insertText(line, format);
    ++lineCount_;
  }
  if (atEnd) bar->setValue(bar->maximum());
}

void LogView::appendNote(const QString& line) {
  appendLines({QDateTime::currentDateTime().toString("hh:mm:ss") + "  " + line});
}

}  // namespace tbench::gui
