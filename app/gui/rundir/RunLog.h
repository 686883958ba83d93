#pragma once
// What a run's log.log says about how the run went, read with Qt only. The engine's logger
// (engine/core/Logging.cpp) writes lines "[MMDD HH:MM:SS LVL] message" with LVL one of INF,
// WRN, ERR, appending across resumes. The lines this reader relies on:
//
//   command: <command line>              first line of every CLI start (also of a resume)
//   started from the GUI                 first line of a start from the window
//   resuming from <file> at epoch E, global step G
//   training N epochs of S steps on T tower(s)
//   training stopped at epoch E, global step G: <reason>     (a stop, Ctrl-C, StopTraining)
//   [ERR] training failed: <what>                            (the run threw)
//
// Only the last start (the lines after the last "command:" / "started from the GUI") tells how
// the current attempt went. A normal end writes no line of its own.

#include <QDateTime>
#include <QString>

namespace tbench::gui {

struct RunLogSummary {
  bool exists = false;
  QString error;               ///< the file exists but cannot be read
  QDateTime firstLineTime;     ///< time of the log's first line (the run's start); may be invalid
  QString command;             ///< the first start's command (or "started from the GUI")
  QDateTime lastStartTime;     ///< time of the last start line; may be invalid
  QDateTime lastLineTime;      ///< time of the last timestamped line; may be invalid
  qint64 resumedAtEpoch = -1;  ///< the last start resumed at this epoch; -1 when it did not
  qint64 epochsPlanned = -1;   ///< N of the last start's "training N epochs", -1 when absent
  bool stopped = false;        ///< the last start logged "training stopped at ..."
  bool failed = false;         ///< the last start logged "training failed: ..."
  QString endMessage;          ///< the stop or failure line's message
};

/// The name of the log file inside a run directory.
inline constexpr const char* kLogFileName = "log.log";

/// Reads a log.log. Reads at most the first line and the last megabyte, so a long log costs
/// little. The year, which the log does not write, is taken from the file's modification time
/// (a line dated after it belongs to the year before).
RunLogSummary readRunLog(const QString& path);

}  // namespace tbench::gui
