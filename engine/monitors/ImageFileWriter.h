#pragma once
// ImageFileWriter: writes every image put during training as a PNG file in the run directory,
//   <dir>/images/<name>/epoch-<E>-step-<S>.png
// (tensorpack's DumpTensorAsImage files; TensorBoard gets the same images from
// TensorBoardWriter). E and S are the epoch and global step of the put; an image put twice at
// the same step replaces the first. <name> is the image's name made safe as a folder name
// (sanitizedImageName); two names that sanitize alike get "-2", "-3", ... so that neither
// overwrites the other. The window's image panel reads these folders back for past runs.
//
// Each file is written atomically (AtomicFile.h). A file that cannot be written is logged
// once, as an error naming the path, and no more images are written in that run; training goes
// on. A malformed image (see PngEncoder.h) throws CheckError. Engine thread.

#include <map>
#include <set>
#include <string>

#include "engine/monitors/TrainingMonitor.h"

namespace tbench {

/// `name` as a single path component: letters, digits, '.', '-' and '_' kept, every other
/// byte (a '/' of "gan/samples", spaces, non-ASCII) becomes '_'; leading dots become '_'
/// (no hidden folders, no "." or ".."), and an empty name is "image".
std::string sanitizedImageName(const std::string& name);

class ImageFileWriter : public TrainingMonitor {
 public:
  /// The folder under the directory that holds one sub-folder per image name.
  static constexpr const char* kFolder = "images";

  /// Writes under `dir`/images, or under the run directory's when `dir` is empty.
  explicit ImageFileWriter(std::string dir = "");

  void processImage(const std::string& name, const ImageData& image,
                    const MetricStamp& stamp) override;

  /// The file an image put as `name` at `stamp` goes to (after the first put of `name`, its
  /// folder is fixed for the run).
  std::string pathFor(const std::string& name, const MetricStamp& stamp);
  /// Files written so far in this run.
  int64_t written() const { return written_; }

 private:
  void onSetupGraph() override;
  void onBeforeTrain() override;

  std::string dir_;
  std::map<std::string, std::string> folders_;  ///< image name -> its folder name
  std::set<std::string> taken_;                 ///< folder names in use
  bool failed_ = false;
  int64_t written_ = 0;
};

}  // namespace tbench
