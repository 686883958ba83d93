#pragma once
// RunStatusBar: the window's status bar while a run goes: state, epoch and step, a progress bar
// over the whole run, steps/s (and samples/s) and the estimated time left. GUI thread only.

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
  QLabel* state_;
  QLabel* position_;
  QProgressBar* bar_;
  QLabel* rate_;
  QLabel* eta_;
  qint64 samplesPerStep_ = 0;
};

}  // namespace tbench::gui
