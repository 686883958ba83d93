#pragma once
// RunView: how the live run (RunSession) shows in the window. It makes the run's panels (the
// live plots, the images, the log, the run controls, the status bar; MainWindow places them)
// and the curves of earlier runs (RunCurves), puts the session's signals on them, enables the
// Run menu's actions for the run's state, keeps Run History and the Learned tab on the run
// going, and empties it all for the next run. Nothing here starts a run (RunCommands does).
// Qt only; GUI thread.

#include <QObject>
#include <QString>

#include "app/bridge/BridgeTypes.h"

class QAction;
class QWidget;

namespace tbench::ui {
class ImagePanel;
class LivePlotWidget;
}  // namespace tbench::ui

namespace tbench::gui {

class ConfusionPanel;
class LogView;
class RunControls;
class RunCurves;
class RunHistoryPanel;
class RunSession;
class RunStatusBar;

/// The Run menu's actions a run's state enables (MainWindowMenus.cpp makes them).
struct RunActions {
  QAction* start = nullptr;
  QAction* stop = nullptr;
  QAction* pause = nullptr;
  QAction* saveNow = nullptr;
  QAction* learningRate = nullptr;
};

class RunView : public QObject {
  Q_OBJECT

 public:
  /// The panels are children of `window`; `actions` become the run controls' buttons.
  RunView(RunSession* session, const RunActions& actions, QWidget* window);

  /// Run History follows the runs this view shows (their siblings, the live one) and styles
  /// their curves; the Learned tab shows an in-process run's confusion matrix. Before a run.
  void setHistory(RunHistoryPanel* history, ConfusionPanel* confusion);

  ui::LivePlotWidget* plots() const { return plots_; }
  ui::ImagePanel* images() const { return images_; }
  LogView* log() const { return log_; }
  RunStatusBar* statusBar() const { return status_; }
  RunControls* controls() const { return controls_; }
  RunCurves* curves() const { return curves_; }

  /// Empties the plots, images, status bar and learning-rate field of the last run.
  void clear();
  /// A run is about to start: clears the view; the rate field shows `learningRate` (NaN: the
  /// run's own arrives with its first step); a resumed run's curves so far (`resumedRunDir`)
  /// come back, for its live points to continue.
  void beginRun(double learningRate, const QString& resumedRunDir = QString());
  /// The runs checked in Run History, overlaid on the plots.
  void showOverlays();
  /// Gives every run on the plots its Run History name and colour.
  void styleRuns();
  /// Loads the images `runDir` wrote into the Images panel (not during a run).
  void showImagesOf(const QString& runDir);
  /// Run ▸ Set Learning Rate…: asks for a rate (what is typed, else the engine's, else
  /// `projectRate`) and sends it to the in-process run.
  void askLearningRate(double projectRate);

 signals:
  /// A run's first image (not the Learned tab's): the Images tab should come up.
  void firstImage();
  /// A run of this window's failed: `detail` is its message.
  void failed(const QString& detail);
  /// A message for the user (title, text), shown by the window.
  void problem(const QString& title, const QString& text);

 private:
  void onStateChanged(bridge::RunState state);
  void onStarted(const QString& runDir, qint64 stepsPerEpoch, qint64 samplesPerStep);
  void onMetrics(const bridge::MetricSamples& samples);
  void onEnded(bridge::RunState state, const QString& detail);

  RunSession* session_;
  RunActions actions_;
  QWidget* window_;
  ui::LivePlotWidget* plots_;
  ui::ImagePanel* images_;
  LogView* log_;
  RunStatusBar* status_;
  RunControls* controls_;
  RunCurves* curves_;
  RunHistoryPanel* history_ = nullptr;
  ConfusionPanel* confusion_ = nullptr;
};

}  // namespace tbench::gui
