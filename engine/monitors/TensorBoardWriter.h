#pragma once
// TensorBoardWriter: writes every scalar and image put during training to a TensorBoard event
// file, <dir>/events.out.tfevents.<unix time>.<hostname> (tensorpack's TFEventWriter).
//
// The file is a sequence of TFRecords, each an Event protocol buffer (tensorboard/event.proto,
// encoded by hand: the engine does not link libprotobuf):
// first {file_version: "brain.Event:2"}, then one Event per value put, stamped with the global
// step and wall time of the put. Scalars are Summary.Value.simple_value (a float: doubles are
// rounded to TensorBoard's precision), images are Summary.Value.image with PNG bytes.
// A TFRecord is
//   uint64 length, uint32 masked CRC-32C of the length, data, uint32 masked CRC-32C of the data
// (little-endian; see Crc32c.h).
//
// The file is opened at the first value or in beforeTrain, whichever comes first, and a new
// file is started by every training run. Records go through a stdio buffer and are flushed at
// the end of every epoch and closed after training, so TensorBoard sees a run's values an
// epoch at a time. A file that cannot be opened or written is logged once, as an error naming
// the path, and training goes on without TensorBoard output for the rest of the run, which then
// ends failed, naming the file and the first step it lacks (Note [Records that cannot be
// written], TrainingMonitor.h).
//
// Called on the engine thread.

#include <cstdio>
#include <string>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

class TensorBoardWriter : public TrainingMonitor {
 public:
  /// The file_version of the first record of every event file.
  static constexpr const char* kFileVersion = "brain.Event:2";

  /// Writes into `dir` (created if needed), or into the run directory when `dir` is empty.
  explicit TensorBoardWriter(std::string dir = "");
  ~TensorBoardWriter() override;
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  void processScalar(const std::string& name, double value, const MetricStamp& stamp) override;
  /// Throws CheckError for an image encodePng rejects (see PngEncoder.h).
  void processImage(const std::string& name, const ImageData& image,
                    const MetricStamp& stamp) override;

  /// The event file of the current or last run (also when it could not be created); empty
  /// before the first one.
  const std::string& path() const { return path_; }

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override;
  void onTriggerEpoch() override { flush(); }
  void onAfterTrain() override;

  /// Whether records can be written, opening the file on first use.
  bool ready() { return file_ != nullptr || (!failed_ && open()); }
  bool open();
  /// Appends a framed record to the file.
  void write(const std::string& record);
  void flush();
  void close();
  /// Logs `reason` once and stops writing for the rest of the run.
  void fail(const std::string& reason);

  std::string dir_;
  std::string path_;
  std::FILE* file_ = nullptr;
  bool failed_ = false;
  std::string failure_;      ///< why the file stopped being written
  int64_t failedFrom_ = 0;   ///< the first global step whose values are not in it
  int64_t flushedStep_ = 0;  ///< the newest step whose values were flushed
  int64_t lastStep_ = 0;     ///< the newest step put
  std::string event_;        ///< the Event being encoded; kept so that its capacity is reused
  std::string record_;       ///< the record being written; likewise
};

}  // namespace tbench
