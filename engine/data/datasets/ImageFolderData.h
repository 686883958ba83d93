#pragma once
// ImageFolderData: labelled images in class folders, as torchvision's ImageFolder reads them:
//
//   dir/<class>/<file>.png|.jpg|.jpeg      (extensions in any case; files in sub-folders too)
//
// Classes are the sub-folders' names, sorted (byte order); their files sorted by path; other
// files are ignored, and so are folders whose name starts with "." (.ipynb_checkpoints). A
// class folder without images is an error, and so are fewer than two classes.
//
// Datapoints are {image float32 [C, H, W] (H = W = size), label int64 0-dim}. Each image is
// decoded (ImageDecode.h), converted to `channels`, brought to `size` (ImageAugment.h: the
// shorter side scaled and the centre cropped, or stretched; size 0 keeps the images' size,
// which must then be the same for all), augmented (training only) and normalised. Decoding runs
// on `workers` threads (MultiThreadMapData over the file list); `ordered` keeps the file order.
//
// Reproducibility: pass k visits the files in the order of PassOrder (shuffled from
// mixSeed(seed, k) when shuffling), and the augmentations of file i in pass k are drawn from a
// seed of (seed, k, i) alone, so a run gives the same tensors with any number of workers.
//
// A corrupt or unreadable image (or one of another size when size is 0) is fatal with its path
// (onError Fail), or skipped (Skip): logged once with its path, counted (skippedFiles()), and
// the pass is shorter than size() says by the files skipped.
//
// The constructor scans the folder (and with size 0 reads the first image's header), throwing
// InputError naming the path; images are read during the passes.

#include <torch/arg.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/data/ImageAugment.h"

namespace tbench {

/// A scanned image folder: the class names and every image with its label.
struct ImageFolderListing {
  std::vector<std::string> classNames;
  std::vector<std::string> files;  ///< paths, class by class, sorted
  std::vector<int64_t> labels;     ///< the class of each file
};

/// Scans `dir` (see ImageFolderData). Throws InputError naming the folder at fault.
ImageFolderListing scanImageFolder(const std::string& dir);

class ImageFolderData : public DataFlow {
 public:
  enum class Resize { ShorterSideAndCrop, Stretch };
  enum class OnError { Fail, Skip };

  struct Options {
    /// 1 (grey) or 3 (RGB); images are converted.
    TORCH_ARG(int64_t, channels) = 3;
    /// Output side; 0 keeps the images' size (then all must have the same).
    TORCH_ARG(int64_t, size) = 0;
    TORCH_ARG(Resize, resize) = Resize::ShorterSideAndCrop;
    TORCH_ARG(Normalization, normalization) = {};
    /// Training augmentations (off by default; the project layer sets them for the training
    /// source only).
    TORCH_ARG(AugmentOptions, augment) = {};
    /// Decoding threads; 0 decodes on the thread that reads the flow.
    TORCH_ARG(int64_t, workers) = 2;
    /// Keep the file order (deterministic); false: images come as they are decoded.
    TORCH_ARG(bool, ordered) = true;
    TORCH_ARG(OnError, onError) = OnError::Fail;
    /// The part of the folder (HoldOut.h): the held-out part when `test`, else the rest.
    TORCH_ARG(bool, test) = false;
    TORCH_ARG(double, testFraction) = 0;
    TORCH_ARG(uint64_t, splitSeed) = 0;
    /// Use only the first `limit` files of the part; 0 = all.
    TORCH_ARG(int64_t, limit) = 0;
    TORCH_ARG(bool, shuffle) = false;
    /// The order's and the augmentations' seed.
    TORCH_ARG(uint64_t, seed) = 0;
  };

  ImageFolderData(std::string dir, Options options);
  ~ImageFolderData() override;

  /// The files of the part read (skipped files included).
  std::optional<int64_t> size() const override { return static_cast<int64_t>(part_.size()); }
  const std::vector<std::string>& classNames() const { return listing_.classNames; }
  int64_t numClasses() const { return static_cast<int64_t>(listing_.classNames.size()); }
  /// {C, H, W}: what every image becomes ({C, size, size} when a size is set).
  std::vector<int64_t> sampleShape() const { return {options_.channels(), height_, width_}; }
  /// The paths of the files read (the part), in the folder's order.
  std::vector<std::string> files() const;
  /// The files of the part in each class (skipped files included).
  std::vector<int64_t> classCounts() const;
  /// Distinct files skipped so far (OnError::Skip).
  int64_t skippedFiles() const;

  /// File `fileIndex` of the listing as pass `pass` gives it (nullopt: skipped; throws
  /// InputError naming the file when failing). Thread-safe.
  std::optional<Datapoint> load(int64_t fileIndex, uint64_t pass) const;

 protected:
  void onResetState() override;
  void startPass() override;
  bool nextPoint(Datapoint& out) override;
  void endPass() override;

 private:
  void skip(int64_t fileIndex, const std::string& reason) const;

  std::string dir_;
  Options options_;
  ImageFolderListing listing_;
  std::vector<int64_t> part_;  // indices into the listing, sorted
  int64_t height_ = 0, width_ = 0;
  std::vector<torch::Tensor> labelTensors_;  // one shared 0-dim tensor per class
  DataFlowPtr pipeline_;                     // the file order, then the decoding workers
  std::optional<DataPass> pass_;
  mutable std::mutex skippedMutex_;  // guards skipped_
  mutable std::set<int64_t> skipped_;
};

}  // namespace tbench
