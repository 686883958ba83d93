#pragma once
// A sweep as the engine keeps it, for the window (Qt types, RunDirectoryViews.h): its state
// file, its default directory, checking a sweep file, and the queue's requests (pause, run a
// trial next, cancel one). Never throws.

#include <QByteArray>
#include <QString>

#include "app/bridge/ProjectViews.h"
#include "app/bridge/RunDirectoryViews.h"

namespace tbench::bridge {

/// The sweep-state.json of `sweepDir` read by the engine (readSweepState). Never throws.
SweepStateView readSweepStateView(const QString& sweepDir);

/// The engine's default sweep directory of a sweep file (sweeps/<name> beside it), the CLI's.
QString defaultSweepDir(const QString& sweepFile);

/// Pauses or resumes the sweep in `sweepDir` (its queue starts no trial while paused).
bool setSweepPaused(const QString& sweepDir, bool paused, QString* error);

/// Checks the sweep document `sweepJson` as if saved at `sweepPath` (its "project" is relative
/// to that file's folder): its keys, then every trial's project. Never throws.
SweepCheckView checkSweep(const QByteArray& sweepJson, const QString& sweepPath);

/// Asks the queue of the sweep in `sweepDir` to start trial `trial` before its other pending
/// ones (control.json's run_first).
bool runSweepTrialNext(const QString& sweepDir, qint64 trial, QString* error);

/// Asks the queue of the sweep in `sweepDir` to cancel trial `trial` (control.json's cancel).
bool cancelSweepTrial(const QString& sweepDir, qint64 trial, QString* error);

}  // namespace tbench::bridge
