#pragma once
// RunStatusBar: the window's status bar while a run goes: state, epoch and step, a progress bar
// over the whole run, steps/s (and samples/s) and the estimated time left. It never shows what
// is no longer true: a run that was stopped reads "Stopped at step N (epoch E)" (only a run that
// reached its last step reads "Finished"), one that failed "Failed at step N", and reset() (a
// project opened) takes the last run's figures away. Rates come from the engine, which leaves
// paused time out. GUI thread only.

#include <QStatusBar>

#include "app/bridge/BridgeTypes.h"

class QLabel;
class QProgressBar;

namespace tbench::gui {

class RunStatusBar : public QStatusBar {
  Q_OBJECT

 public:
  explicit RunStatusBar(QWidget* parent = nullptr);

  void setState(bridge::RunState state);
  /// Idle, with nothing of the last run.
  void reset();
  /// While no run of the window is active: the sweep in the Sweeps tab (`text`, `percent` of
  /// its trials ended); percent < 0: no sweep runs (back to the run's state). Issue 35: the bar
  /// said "Idle 0%" while a sweep trained.
  void setSweep(const QString& text, int percent);
  /// Samples per step of the current run, for samples/s (0: not shown).
  void setSamplesPerStep(qint64 samples) { samplesPerStep_ = samples; }
  void setProgress(const bridge::RunProgress& progress);
  /// "1h 02m", "3m 05s", "12s".
  static QString formatDuration(double seconds);

  QString stateText() const;
  QString positionText() const;
  QString rateText() const;
  QString etaText() const;
  int progressPercent() const;

 private:
  /// While paused: "paused" instead of a rate, no ETA.
  void showPause();
  void showState();

  QLabel* state_;
  QLabel* position_;
  QProgressBar* bar_;
  QLabel* rate_;
  QLabel* eta_;
  qint64 samplesPerStep_ = 0;
  bool hasProgress_ = false;
  bool sweepShown_ = false;
  bridge::RunProgress last_;  // the latest progress of the current run
  bridge::RunState current_ = bridge::RunState::Idle;
};

}  // namespace tbench::gui
