#include "engine/data/datasets/ImageFolderData.h"

#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/data/MultiThreadMapData.h"
#include "engine/data/PassOrder.h"
#include "engine/data/SeededRng.h"
#include "engine/data/datasets/HoldOut.h"

namespace tbench {

namespace fs = std::filesystem;

namespace {

bool isImageName(const fs::path& path) {
  std::string extension = path.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".png" || extension == ".jpg" || extension == ".jpeg";
}

bool isHidden(const fs::path& path) {
  const std::string name = path.filename().string();
  return !name.empty() && name[0] == '.';
}

/// The sorted image files under one class folder, sub-folders included.
std::vector<std::string> imagesUnder(const fs::path& classDir) {
  std::vector<std::string> files;
  const auto options = fs::directory_options::follow_directory_symlink |
                       fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(classDir, options);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && isHidden(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && isImageName(it->path())) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The seed of file `index`'s augmentations in pass `pass`.
uint64_t sampleSeed(uint64_t seed, uint64_t pass, int64_t index) {
  // Salted, so that it differs from the stream PassOrder shuffles pass `pass` with.
  return mixSeed(mixSeed(seed, pass) ^ 0xA076D1F2C3B4E5D6ull, static_cast<uint64_t>(index));
}

/// The file order of ImageFolderData: one datapoint {int64 [file index, pass index]} per file
/// of the part, in PassOrder's order.
class FileOrder : public DataFlow {
 public:
  FileOrder(std::vector<int64_t> files, bool shuffle, uint64_t seed)
      : files_(std::move(files)), order_(shuffle, seed) {}
  std::optional<int64_t> size() const override { return static_cast<int64_t>(files_.size()); }

 protected:
  void startPass() override {
    order_.start(files_.size());
    pass_ = passes_++;
  }
  bool nextPoint(Datapoint& out) override {
    int64_t i = 0;
    if (!order_.next(i)) return false;
    torch::Tensor item = torch::empty({2}, torch::kInt64);
    item.data_ptr<int64_t>()[0] = files_[static_cast<size_t>(i)];
    item.data_ptr<int64_t>()[1] = static_cast<int64_t>(pass_);
    out.assign(1, std::move(item));
    return true;
  }

 private:
  std::vector<int64_t> files_;
  PassOrder order_;
  uint64_t passes_ = 0;
  uint64_t pass_ = 0;
};

void checkOptions(const std::string& dir, const ImageFolderData::Options& o) {
  auto bad = [&](const std::string& what) { throw InputError(str(dir, ": ", what)); };
  if (o.channels() != 1 && o.channels() != 3) {
    bad(str("channels must be 1 (grey) or 3 (RGB), got ", o.channels()));
  }
  if (o.size() < 0) bad(str("size must be >= 0, got ", o.size()));
  if (o.workers() < 0) bad(str("workers must be >= 0, got ", o.workers()));
  if (!(o.testFraction() >= 0 && o.testFraction() < 1)) {
    bad(str("test_fraction must be in [0, 1), got ", o.testFraction()));
  }
  const Normalization& n = o.normalization();
  for (const auto* list : {&n.mean, &n.std}) {
    if (list->size() > 1 && static_cast<int64_t>(list->size()) != o.channels()) {
      bad(str(list == &n.mean ? "mean" : "std", " has ", list->size(), " values for ", o.channels(),
              " channels (give 1 or ", o.channels(), ")"));
    }
  }
  for (double s : n.std) {
    if (!(s > 0)) bad(str("std values must be > 0, got ", s));
  }
  if (o.augment().cropPadding < 0) bad("random_crop_padding must be >= 0");
  if (!(o.augment().jitter >= 0 && o.augment().jitter < 1)) bad("jitter must be in [0, 1)");
}

}  // namespace

ImageFolderListing scanImageFolder(const std::string& dir) {
  ImageFolderListing listing;
  try {
    if (!fs::is_directory(dir)) {
      throw InputError(str(dir, fs::exists(dir) ? ": not a directory" : ": no such directory"));
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (entry.is_directory() && !isHidden(entry.path())) {
        listing.classNames.push_back(entry.path().filename().string());
      }
    }
    std::sort(listing.classNames.begin(), listing.classNames.end());
    if (listing.classNames.size() < 2) {
      throw InputError(str(dir, ": ", listing.classNames.size(),
                           " class folder(s); an image folder holds one sub-folder per class, at "
                           "least two (",
                           dir, "/<class>/<image>.png)"));
    }
    for (size_t k = 0; k < listing.classNames.size(); ++k) {
      const fs::path classDir = fs::path(dir) / listing.classNames[k];
      std::vector<std::string> files = imagesUnder(classDir);
      if (files.empty()) {
        throw InputError(str(classDir.string(),
                             ": no images (.png, .jpg or .jpeg) in this class "
                             "folder"));
      }
      listing.labels.insert(listing.labels.end(), files.size(), static_cast<int64_t>(k));
      listing.files.insert(listing.files.end(), std::make_move_iterator(files.begin()),
                           std::make_move_iterator(files.end()));
    }
  } catch (const fs::filesystem_error& e) {
    throw InputError(str(dir, ": cannot be scanned (", e.what(), ")"));
  }
  return listing;
}

ImageFolderData::ImageFolderData(std::string dir, Options options)
    : dir_(std::move(dir)), options_(std::move(options)) {
  checkOptions(dir_, options_);
  listing_ = scanImageFolder(dir_);
  const auto count = static_cast<int64_t>(listing_.files.size());
  part_ = holdOutIndices(count, options_.testFraction(), options_.splitSeed(), options_.test());
  if (part_.empty()) {
    throw InputError(str(dir_, ": the held-out part is empty (test_fraction ",
                         options_.testFraction(), " of ", count, " images)"));
  }
  if (options_.limit() > 0 && options_.limit() < static_cast<int64_t>(part_.size())) {
    part_.resize(static_cast<size_t>(options_.limit()));
  }
  if (options_.size() > 0) {
    height_ = width_ = options_.size();
  } else {
    // Every image must have the size of the first readable one.
    for (int64_t index : part_) {
      try {
        const ImageInfo info = readImageInfo(listing_.files[static_cast<size_t>(index)]);
        height_ = info.height;
        width_ = info.width;
        break;
      } catch (const InputError& e) {
        if (options_.onError() == OnError::Fail) throw;
        skip(index, e.what());
      }
    }
    if (height_ == 0) throw InputError(str(dir_, ": no image could be read"));
  }
  for (int64_t k = 0; k < numClasses(); ++k) labelTensors_.push_back(torch::tensor(k));

  const int64_t workers = options_.workers();
  auto order = std::make_shared<FileOrder>(part_, options_.shuffle(), options_.seed());
  pipeline_ = std::make_shared<MultiThreadMapData>(
      order, workers,
      [this](Datapoint item) {
        const int64_t* values = item[0].data_ptr<int64_t>();
        return load(values[0], static_cast<uint64_t>(values[1]));
      },
      MultiThreadMapOptions()
          .bufferSize(std::max<int64_t>(64, 8 * workers))
          .ordered(options_.ordered())
          .mayDrop(true));
}

ImageFolderData::~ImageFolderData() { pass_.reset(); }

std::vector<std::string> ImageFolderData::files() const {
  std::vector<std::string> files;
  for (int64_t index : part_) files.push_back(listing_.files[static_cast<size_t>(index)]);
  return files;
}

int64_t ImageFolderData::skippedFiles() const {
  std::lock_guard<std::mutex> lock(skippedMutex_);
  return static_cast<int64_t>(skipped_.size());
}

void ImageFolderData::skip(int64_t fileIndex, const std::string& reason) const {
  size_t count = 0;
  {
    std::lock_guard<std::mutex> lock(skippedMutex_);
    if (!skipped_.insert(fileIndex).second) return;  // logged the first time only
    count = skipped_.size();
  }
  TB_LOG(Warning) << "image folder " << dir_ << ": skipping " << reason << " (" << count
                  << (count == 1 ? " file" : " files") << " skipped)";
}

std::optional<Datapoint> ImageFolderData::load(int64_t fileIndex, uint64_t pass) const {
  const std::string& path = listing_.files[static_cast<size_t>(fileIndex)];
  DecodedImage image;
  try {
    image = decodeImageFile(path);
    convertChannels(image, options_.channels());
    if (options_.size() > 0) {
      image = options_.resize() == Resize::Stretch
                  ? resizeBilinear(image, options_.size(), options_.size())
                  : resizeShorterSideAndCrop(image, options_.size());
    } else if (image.height != height_ || image.width != width_) {
      throw InputError(str(path, ": the image is ", image.width, "x", image.height,
                           ", the "
                           "folder's first is ",
                           width_, "x", height_, " (set a size to resize them all)"));
    }
  } catch (const InputError& e) {
    if (options_.onError() == OnError::Fail) throw;
    skip(fileIndex, e.what());
    return std::nullopt;
  }
  const AugmentOptions& augment = options_.augment();
  const AugmentDraw draw = augment.any()
                               ? drawAugment(augment, sampleSeed(options_.seed(), pass, fileIndex))
                               : AugmentDraw{};
  torch::Tensor pixels = torch::empty({image.channels, image.height, image.width}, torch::kFloat32);
  writeFloatCHW(image, draw, options_.normalization(), pixels.data_ptr<float>());
  return Datapoint{
      std::move(pixels),
      labelTensors_[static_cast<size_t>(listing_.labels[static_cast<size_t>(fileIndex)])]};
}

void ImageFolderData::onResetState() { pipeline_->resetState(); }

void ImageFolderData::startPass() { pass_.emplace(pipeline_->pass()); }

bool ImageFolderData::nextPoint(Datapoint& out) { return pass_->next(out); }

void ImageFolderData::endPass() { pass_.reset(); }

std::vector<int64_t> ImageFolderData::classCounts() const {
  std::vector<int64_t> counts(listing_.classNames.size(), 0);
  for (int64_t index : part_)
    ++counts[static_cast<size_t>(listing_.labels[static_cast<size_t>(index)])];
  return counts;
}

}  // namespace tbench
