#include "app/gui/run/LaunchedRun.h"

#include <QRegularExpression>
#include <QTimer>

namespace tbench::gui {

QString RankState::stateText() const {
  if (state != bridge::RunState::Failed) return bridge::toString(state);
  return exitStatus >= 0 ? LaunchedRun::tr("failed (status %1)").arg(exitStatus)
                         : LaunchedRun::tr("failed (ended with launch)");
}

LaunchedRun::LaunchedRun(QObject* parent)
    : QObject(parent), process_(new CliProcess(CliProcess::Lifetime::StopsWithWindow, this)) {
  graceTimer_.setSingleShot(true);
  graceTimer_.setInterval(kStopGraceMs);
  connect(&graceTimer_, &QTimer::timeout, this, [this] {
    if (!isActive()) return;
    emit logLines({tr("the ranks did not stop within %1 s: killed").arg(kStopGraceMs / 1000)});
    process_->kill();
  });
  connect(process_, &CliProcess::lines, this, [this](const QStringList& lines) {
    for (const QString& line : lines) handleLine(line);
    emit logLines(lines);
  });
  connect(process_, &CliProcess::finished, this, [this](int exitStatus) {
    graceTimer_.stop();
    exitCode_ = exitStatus;
    for (RankState& r : ranks_) {
      if (!bridge::hasEnded(r.state)) {
        r.state = exitCode_ == 0 ? bridge::RunState::Finished
                  : stopping_    ? bridge::RunState::Stopped
                                 : bridge::RunState::Failed;
      }
    }
    emit ranksChanged();
    emit finished(exitCode_);
  });
}

LaunchedRun::~LaunchedRun() {
  // The window never leaves ranks behind: closing it during a run stops them first (it asks),
  // and this is the last resort (CliProcess's destructor). Its owner may be half destroyed: no
  // signal goes out.
  blockSignals(true);
}

bool LaunchedRun::isActive() const { return process_->isRunning(); }

bool LaunchedRun::start(const QString& cli, const QString& projectPath, const QString& runDir,
                        int processes, QString* error, bool resume) {
  if (isActive()) {
    if (error) *error = tr("a launched run is still active");
    return false;
  }
  if (const QString problem = CliProcess::cliProblem(cli); !problem.isEmpty()) {
    if (error) *error = problem;
    return false;
  }
  graceTimer_.stop();
  ranks_.clear();
  for (int r = 0; r < processes; ++r) ranks_.append(RankState{r});
  stopping_ = false;
  exitCode_ = -1;
  QStringList arguments = {"launch",    "--nproc-per-node", QString::number(processes),
                           projectPath, "--run-dir",        runDir};
  if (resume) arguments << "--resume";
  emit logLines({QStringLiteral("$ %1 %2").arg(cli, arguments.join(' '))});
  if (!process_->start(cli, arguments, error)) {
    exitCode_ = CliProcess::kExitCannotStart;
    return false;
  }
  emit ranksChanged();
  return true;
}

void LaunchedRun::stop() {
  if (!isActive() || stopping_) return;
  stopping_ = true;
  process_->terminate();  // SIGTERM: launch forwards it to every rank
  graceTimer_.start();    // stopped when this run ends: never fires on a later one
}

QString LaunchedRun::rankSummary() const {
  QStringList parts;
  for (const RankState& r : ranks_) parts << tr("rank %1 %2").arg(r.rank).arg(r.stateText());
  return parts.join(QStringLiteral(" · "));
}

RankState& LaunchedRun::rankAt(int rank) {
  for (RankState& r : ranks_)
    if (r.rank == rank) return r;
  ranks_.append(RankState{rank});
  return ranks_.back();
}

void LaunchedRun::handleLine(const QString& line) {
  static const QRegularExpression rankLine(QStringLiteral("^\\[rank (\\d+)\\] (.*)$"));
  static const QRegularExpression exitLine(
      QStringLiteral("^launch: rank (\\d+) exited with status (\\d+)"));
  if (const auto m = rankLine.match(line); m.hasMatch()) {
    RankState& r = rankAt(m.captured(1).toInt());
    r.lastLine = m.captured(2);
    if (r.state == bridge::RunState::Starting) {
      r.state = bridge::RunState::Running;
      emit ranksChanged();
    }
    return;
  }
  if (const auto m = exitLine.match(line); m.hasMatch()) {
    RankState& r = rankAt(m.captured(1).toInt());
    const int status = m.captured(2).toInt();
    r.exitStatus = status;
    r.state = status == 0                          ? bridge::RunState::Finished
              : status == CliProcess::kExitStopped ? bridge::RunState::Stopped
                                                   : bridge::RunState::Failed;
    emit ranksChanged();
  }
}

}  // namespace tbench::gui
