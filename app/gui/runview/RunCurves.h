#pragma once
// RunCurves: the curves of run directories on the window's plots, the one way the window draws
// a run it did not see live: a run resumed (its curves so far, continued by the live points),
// the runs Run History overlays, and a sweep's trials (drawn as they grow). A run's points are
// its stats.json and scalars.jsonl as the engine reads them (readScalarSeries), under its run
// id, with its steps per epoch from run.json for the epoch axis. GUI thread.

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <functional>

namespace tbench::ui {
class LivePlotWidget;
}

namespace tbench::gui {

class RunCurves : public QObject {
  Q_OBJECT

 public:
  /// `liveRunId` says which run's points arrive live (its id; empty: none): that run is never
  /// drawn from its files here.
  RunCurves(ui::LivePlotWidget* plots, std::function<QString()> liveRunId,
            QObject* parent = nullptr);
  /// Puts the curves `runDir` wrote so far on the plots, under its id (a resumed run's).
  void plotSoFar(const QString& runDir);
  /// Shows the runs `runDirs` (Run History's overlays), each read once; hides the others shown
  /// by earlier calls.
  void showOverlays(const QStringList& runDirs);
  /// Shows a sweep's trials `runDirs`, named `names`: each run's points new since the last call
  /// are appended (stats.json grows an epoch at a time), a new run gets the first colour no run
  /// on the plots has; trials no longer listed are hidden.
  void showTrials(const QStringList& runDirs, const QStringList& names);
  /// The plots were cleared: every run is read again, whole, when next shown.
  void forget();

 signals:
  /// A run's curves could not be read whole: the reader's message, naming the file.
  void note(const QString& text);

 private:
  /// Appends the points of `runDir` after the first `drawn`; returns how many it has.
  qsizetype appendFrom(const QString& runDir, qsizetype drawn);

  ui::LivePlotWidget* plots_;
  std::function<QString()> liveRunId_;
  QSet<QString> overlaid_;                 // run ids whose stats.json is on the plots
  QHash<QString, qsizetype> trialPoints_;  // sweep trials' run ids -> points on the plots
};

}  // namespace tbench::gui
