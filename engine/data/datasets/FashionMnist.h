#pragma once
// Image classification data from IDX files (MNIST format), and Fashion-MNIST found where
// Debian's dataset-fashion-mnist package puts it.
//
// Two classes share this file pair because FashionMnist is only IdxClassificationData with
// the file names of a split filled in.
//
// Datapoints are {image, label}: image float32 [1, H, W] scaled to [0, 1], label an int64
// scalar (0-dim) tensor. They are views into one tensor holding the whole set, so producing
// one is cheap; they are read-only for the consumer (clone before modifying in place).
//
// The constructor validates at the boundary: it reads the image header and the whole (small)
// label file, checks that the counts agree and that every label is in range, and throws
// InputError naming the file and byte offset. resetState() loads the images: the whole image
// file is read and validated even with a limit.

#include <torch/arg.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/data/DataFlow.h"
#include "engine/data/datasets/TensorData.h"
#include "engine/data/formats/IdxFile.h"

namespace tbench {

class IdxClassificationData : public TensorData {
 public:
  struct Options {
    /// Use only the first `limit` samples; 0 = all (a larger limit also means all).
    TORCH_ARG(int64_t, limit) = 0;
    /// With shuffle, pass k visits the samples in an order drawn from mixSeed(seed, k).
    TORCH_ARG(bool, shuffle) = false;
    TORCH_ARG(uint64_t, seed) = 0;
    /// Labels must lie in [0, numClasses); 0 = infer it as the largest label in the file + 1.
    TORCH_ARG(int64_t, numClasses) = 0;
  };

  /// `imagesPath`: IDX file of type 0x08 with 3 dimensions (count, rows, columns).
  /// `labelsPath`: IDX file of an integer type with 1 dimension (count). Either may be gzip.
  IdxClassificationData(std::string imagesPath, std::string labelsPath);
  IdxClassificationData(std::string imagesPath, std::string labelsPath, Options options);

  std::optional<int64_t> size() const override { return numSamples_; }
  /// Known from construction on.
  int64_t numClasses() const { return numClasses_; }
  /// The shape of one image: {1, H, W}.
  std::vector<int64_t> imageShape() const { return {1, rows_, columns_}; }
  const std::string& imagesPath() const { return imagesPath_; }
  const std::string& labelsPath() const { return labelsPath_; }
  /// The labels in use (after `limit`), int64 [N]. Available from construction on.
  const torch::Tensor& labels() const { return labels_; }
  /// The images in use, float32 [N, 1, H, W] in [0, 1]. Undefined before resetState().
  const torch::Tensor& images() const { return images_; }

 protected:
  /// Reads the images; the samples are (images[i], labels[i]) (TensorData).
  void onResetState() override;

 private:
  std::string imagesPath_;
  std::string labelsPath_;
  Options options_;
  IdxHeader imagesHeader_;
  int64_t rows_ = 0;
  int64_t columns_ = 0;
  int64_t numSamples_ = 0;
  int64_t numClasses_ = 0;
  torch::Tensor labels_;
  torch::Tensor images_;
};

/// Fashion-MNIST (60000 training and 10000 test images of 28x28, 10 classes).
class FashionMnist : public IdxClassificationData {
 public:
  /// Where Debian's dataset-fashion-mnist package installs the files.
  static constexpr const char* kDefaultDir = "/usr/share/datasets/fashion-mnist";

  /// `split` is "train" or "test"; `dir` empty means kDefaultDir. The files are
  /// {train,t10k}-{images-idx3,labels-idx1}-ubyte, uncompressed or with .gz. Throws
  /// InputError for an unknown split or a missing directory or file. `options.numClasses`
  /// must be 0 or 10.
  explicit FashionMnist(const std::string& split);
  FashionMnist(const std::string& split, const std::string& dir);
  FashionMnist(const std::string& split, const std::string& dir, Options options);

  const std::string& split() const { return split_; }
  /// "T-shirt/top", "Trouser", ... indexed by label.
  static const std::vector<std::string>& classNames();
  /// The (images, labels) paths of `split` in `dir` (empty: kDefaultDir), preferring the
  /// uncompressed file when both exist. Throws InputError naming what was tried.
  static std::pair<std::string, std::string> findFiles(const std::string& split,
                                                       const std::string& dir);

 private:
  FashionMnist(std::string split, std::pair<std::string, std::string> files, Options options);
  std::string split_;
};

}  // namespace tbench
