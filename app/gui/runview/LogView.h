#pragma once
// LogView: the run's log lines as they arrive (the engine's log.log, mirrored by the bridge),
// warnings and errors coloured, capped at kMaxLines so a chatty run never grows the window's
// memory. Follows the end unless the user scrolled up. GUI thread only.

#include <QPlainTextEdit>

namespace tbench::gui {

class LogView : public QPlainTextEdit {
  Q_OBJECT

 public:
  static constexpr int kMaxLines = 20000;

  explicit LogView(QWidget* parent = nullptr);

  void appendLines(const QStringList& lines);
  /// A line of the window's own (not from the engine), e.g. "run failed: ...".
  void appendNote(const QString& line);
  /// Lines appended so far, including dropped ones.
  qint64 lineCount() const { return lineCount_; }

 private:
  qint64 lineCount_ = 0;
};

}  // namespace tbench::gui
