#pragma once
// RunFollower: a run the window did not start, followed through its run directory: a
// distributed run's rank 0 (launched by the window as child processes) or a run started by
// torchrun, SLURM or the CLI elsewhere (File ▸ Follow Run Directory…). Every kPollMs it reads
//   scalars.jsonl   what was appended since (engine/monitors/ScalarStream.h): every scalar,
//                   throttled; only whole lines, the offset remembered. At most kMaxReadBytes
//                   a poll: a file already long (a run of millions of lines followed late)
//                   is read in pieces, the next one as soon as the event loop is free, so
//                   the window stays responsive and memory holds one piece. A file that
//                   shrank or whose first bytes changed (rewritten or replaced: a new run
//                   in this directory, or the rewrite of a resumed run that dropped the
//                   values after its checkpoint: Note [A resumed stream]) is read again from
//                   its start, the lines it had given skipped (the dropped ones stay on
//                   the charts until the run is followed again)
//   stats.json      only while there is no scalars.jsonl (older runs): entries not seen yet,
//                   one point per epoch
//   run.json        the state, epoch, global step, plan (engine/run/RunStatus.h)
// and reports new points (metricsRead), the status when it changes (statusChanged) and, once,
// that the run ended (run.json no longer "running", or "running" with its process gone from
// this host on two polls: unknown; only after the rest of scalars.jsonl). Damaged
// lines and files are skipped and reported once (problem), never fatal. Qt only; GUI thread.

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include "app/bridge/BridgeTypes.h"

namespace tbench::gui {

/// What run.json says, as far as the window shows it.
struct FollowedStatus {
  bool present = false;                                ///< run.json was read
  bridge::RunState state = bridge::RunState::Unknown;  ///< as run.json records it
  qint64 epoch = 0;                                    ///< epochs done
  qint64 globalStep = 0;                               ///< steps done
  qint64 maxEpoch = 0;
  qint64 stepsPerEpoch = 0;
  QString error;  ///< a failed run's error
  friend bool operator==(const FollowedStatus& a, const FollowedStatus& b) {
    return a.present == b.present && a.state == b.state && a.epoch == b.epoch &&
           a.globalStep == b.globalStep && a.maxEpoch == b.maxEpoch &&
           a.stepsPerEpoch == b.stepsPerEpoch && a.error == b.error;
  }
};

class RunFollower : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 500;
  /// Most bytes of scalars.jsonl read by one poll (about 60,000 lines).
  static constexpr qint64 kMaxReadBytes = 4 << 20;

  explicit RunFollower(QObject* parent = nullptr);

  /// Follows `runDir` from its beginning (reads what is there at once, then every kPollMs).
  void follow(const QString& runDir);
  /// Stops polling (what was read stays read).
  void stop();
  bool isFollowing() const { return timer_.isActive(); }
  QString runDir() const { return runDir_; }
  const FollowedStatus& status() const { return status_; }
  /// Reads what is new now (the timer's work; public for tests and for a last read).
  void poll();

 signals:
  void metricsRead(const bridge::MetricSamples& samples);
  void statusChanged(const FollowedStatus& status);
  /// run.json left Running (or was not Running when first read): `state` is its state.
  void ended(bridge::RunState state);
  /// A damaged line or file, said once per file.
  void problem(const QString& message);

 private:
  /// Reads the next piece of scalars.jsonl; true when more of it is there to read.
  bool readStream(bridge::MetricSamples& out);
  void readStats(bridge::MetricSamples& out);
  /// Reads run.json into status_ (poll() says what changed).
  void readStatus();

  QString runDir_;
  QTimer timer_;
  QTimer catchUp_;  // the next piece of a long scalars.jsonl, once the event loop is free
  qint64 streamOffset_ = 0;
  QByteArray streamHead_;   // the file's first bytes (up to kHeadBytes): a new file differs
  QByteArray partial_;      // a last line without its newline yet
  quint64 streamFile_ = 0;  // the file's inode: a file replaced (a resume's rewrite) differs
  QSet<quint64> given_;     // the lines given (hashes of name, step, time)
  bool replaced_ = false;   // the file was replaced: a line given before is not given again
  qsizetype statsPoints_ = 0;
  QHash<QString, qint64> statsSteps_;  // the last step stats.json gave per scalar
  bool usingStream_ = false;
  bool endedSeen_ = false;  // run.json says the run ended (or its writer is gone)
  int deadPolls_ = 0;       // polls in a row that saw "running" with its process gone
  bool endedSent_ = false;
  QStringList reported_;  // files whose damage was reported
  FollowedStatus status_;
};

}  // namespace tbench::gui
