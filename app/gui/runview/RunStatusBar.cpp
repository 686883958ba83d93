#include "app/gui/runview/RunStatusBar.h"

#include <QLabel>
#include <QProgressBar>
#include <algorithm>
#include <cmath>

namespace tbench::gui {

RunStatusBar::RunStatusBar(QWidget* parent) : QStatusBar(parent) {
  setObjectName("runStatusBar");
  state_ = new QLabel(tr("Idle"), this);
  state_->setObjectName("runStateLabel");
  position_ = new QLabel(this);
  position_->setObjectName("runPositionLabel");
  bar_ = new QProgressBar(this);
  bar_->setObjectName("runProgressBar");
  bar_->setRange(0, 1000);
  bar_->setValue(0);
  bar_->setMaximumWidth(220);
  bar_->setTextVisible(true);
  bar_->setFormat("%p%");
  rate_ = new QLabel(this);
  rate_->setObjectName("runRateLabel");
  eta_ = new QLabel(this);
  eta_->setObjectName("runEtaLabel");
  addPermanentWidget(state_);
  addPermanentWidget(position_);
  addPermanentWidget(bar_);
  addPermanentWidget(rate_);
  addPermanentWidget(eta_);
}

void RunStatusBar::setState(bridge::RunState state) {
  using bridge::RunState;
  if (state == RunState::Starting || state == RunState::Idle) {
    bar_->setValue(0);
    position_->clear();
    rate_->clear();
    eta_->clear();
    hasProgress_ = false;
    last_ = bridge::RunProgress();
  }
  current_ = state;
  showState();
  if (bridge::hasEnded(state) || state == RunState::Unknown) eta_->clear();
  showPause();
}

void RunStatusBar::showPause() {
  // Issue 37: a paused run had kept showing its last rate and ETA, as if it still ran.
  if (current_ != bridge::RunState::Paused) return;
  rate_->setText(tr("paused"));
  eta_->clear();
}

void RunStatusBar::showState() {
  using bridge::RunState;
  const RunState state = current_;
  const QString where = hasProgress_
                            ? tr(" at step %1 (epoch %2)").arg(last_.globalStep).arg(last_.epoch)
                            : tr(" before the first step");
  QString text;
  switch (state) {
    case RunState::Paused:
      text = hasProgress_ ? tr("Paused at step %1").arg(last_.globalStep) : tr("Paused");
      break;
    case RunState::Stopping:
      text = tr("Stopping…");
      break;
    case RunState::Finished:
      text = tr("Finished") + where;
      break;
    case RunState::Stopped:
      text = tr("Stopped") + where;
      break;
    case RunState::Failed:
      text = tr("Failed") + where;
      break;
    case RunState::Unknown:
      text = tr("Ended without a record (process gone)") + where;
      break;
    default:
      text = bridge::toString(state);
      text[0] = text[0].toUpper();
  }
  state_->setText(text);
}

void RunStatusBar::setSweep(const QString& text, int percent) {
  if (!bridge::hasEnded(current_) && current_ != bridge::RunState::Idle) return;  // a run's
  if (percent < 0) {
    if (!sweepShown_) return;
    sweepShown_ = false;  // the sweep's queue ended: the last run's state again
    if (!hasProgress_) bar_->setValue(0);
    showState();
    return;
  }
  sweepShown_ = true;
  state_->setText(text);
  position_->clear();
  rate_->clear();
  eta_->clear();
  bar_->setValue(std::clamp(percent, 0, 100) * 10);
}

void RunStatusBar::reset() {
  setState(bridge::RunState::Idle);
  clearMessage();
}

void RunStatusBar::setProgress(const bridge::RunProgress& p) {
  last_ = p;
  hasProgress_ = true;
  if (current_ != bridge::RunState::Running) showState();  // "Paused at step N" follows
  position_->setText(tr("epoch %1/%2 · step %3/%4 · global step %5")
                         .arg(p.epoch)
                         .arg(p.maxEpoch)
                         .arg(p.stepInEpoch)
                         .arg(p.stepsPerEpoch)
                         .arg(p.globalStep));
  const qint64 total = p.maxEpoch * p.stepsPerEpoch;
  bar_->setValue(total > 0 ? int(std::min<qint64>(1000, p.globalStep * 1000 / total)) : 0);
  if (p.stepsPerSecond > 0) {
    QString rate = tr("%1 it/s").arg(p.stepsPerSecond, 0, 'f', p.stepsPerSecond < 10 ? 2 : 1);
    // The engine's own count once it has one, else what the run said at its start.
    const qint64 samples = p.samplesPerStep > 0 ? p.samplesPerStep : samplesPerStep_;
    if (samples > 0) {
      rate += tr(" · %1 samples/s").arg(p.stepsPerSecond * samples, 0, 'f', 0);
    }
    rate_->setText(rate);
  }
  if (p.etaSeconds >= 0) eta_->setText(tr("ETA %1").arg(formatDuration(p.etaSeconds)));
  showPause();
}

QString RunStatusBar::formatDuration(double seconds) {
  const qint64 s = qint64(std::llround(std::max(0.0, seconds)));
  if (s >= 3600) return QString("%1h %2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar('0'));
  if (s >= 60) return QString("%1m %2s").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
  return QString("%1s").arg(s);
}

QString RunStatusBar::stateText() const { return state_->text(); }
QString RunStatusBar::positionText() const { return position_->text(); }
QString RunStatusBar::rateText() const { return rate_->text(); }
QString RunStatusBar::etaText() const { return eta_->text(); }
int RunStatusBar::progressPercent() const { return bar_->value() / 10; }

}  // namespace tbench::gui
