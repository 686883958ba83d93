// The image-folder data source ("image_folder"): description, check and factory.

#include <algorithm>

#include "engine/data/datasets/HoldOut.h"
#include "engine/data/datasets/ImageFolderData.h"
#include "engine/project/builtin/Builtin.h"
#include "engine/project/registry/ComponentFactories.h"

namespace tbench {

namespace {

// Measured on the 2-core machines with bench_image_folder (60,000 Fashion-MNIST PNGs, random
// crop + flip + normalise, batch 128, medians of 3 epochs, nothing else running), samples/s
// by workers: 0: 52.8k, 1: 48.8k, 2: 90.1k, 3: 82.2k, 4: 82.3k. Training through QueueInput is
// compute-bound with any of them (MLP 177-210 steps/s with 0 workers, 212-226 with 2; ConvNet
// 13-14 with 0, 1 or 2), so 2 costs nothing there and doubles the loading headroom.
constexpr int64_t kDefaultWorkers = 2;

ImageFolderData::Options imageFolderOptions(const Settings& s, const OpenRequest& request) {
  // Augmentations are for the training split of the training source only.
  const bool training = request.training == nullptr && s.string("split") == "train";
  AugmentOptions augment;
  if (training) {
    augment.cropPadding = s.integer("random_crop_padding");
    augment.horizontalFlip = s.boolean("horizontal_flip");
    augment.jitter = s.number("jitter");
  }
  return ImageFolderData::Options()
      .channels(s.integer("channels"))
      .size(s.integer("size"))
      .resize(s.string("resize") == "stretch" ? ImageFolderData::Resize::Stretch
                                              : ImageFolderData::Resize::ShorterSideAndCrop)
      .normalization({s.numbers("mean"), s.numbers("std")})
      .augment(augment)
      .workers(s.integer("workers"))
      .ordered(s.boolean("ordered"))
      .onError(s.string("on_error") == "skip" ? ImageFolderData::OnError::Skip
                                              : ImageFolderData::OnError::Fail)
      .test(s.string("split") == "test")
      .testFraction(s.number("test_fraction"))
      .splitSeed(s.seed("split_seed"))
      .limit(s.integer("limit"))
      .shuffle(request.shuffle)
      .seed(request.seed);
}

std::string listed(const std::vector<std::string>& names) {
  return "[" + joinedText(names, ", ") + "]";
}

OpenedSource openImageFolder(const Settings& s, const OpenRequest& request) {
  auto flow = std::make_shared<ImageFolderData>(s.string("dir"), imageFolderOptions(s, request));
  if (request.training != nullptr && !request.training->classNames.empty() &&
      request.training->classNames != flow->classNames()) {
    throw InputError(str(s.string("dir"), ": the class folders ", listed(flow->classNames()),
                         " differ from the training data's classes ",
                         listed(request.training->classNames)));
  }
  const auto shape = flow->sampleShape();
  OpenedSource opened;
  opened.flow = flow;
  opened.image = ImageShape{shape[0], shape[1], shape[2]};
  opened.numClasses = flow->numClasses();
  opened.facts.classNames = flow->classNames();
  opened.facts.classCounts = flow->classCounts();
  return opened;
}

/// The images a source reads, from a directory scan; 0 when the folder cannot be read.
int64_t countImages(const Settings& s) {
  try {
    const auto total = static_cast<int64_t>(scanImageFolder(s.string("dir")).files.size());
    const auto held = static_cast<int64_t>(
        holdOutIndices(total, s.number("test_fraction"), s.seed("split_seed"), true).size());
    const int64_t part = s.string("split") == "test" ? held : total - held;
    const int64_t limit = s.integer("limit");
    return limit > 0 ? std::min(limit, part) : part;
  } catch (const InputError&) {
    return 0;  // a preview; validation of the run reports the folder
  }
}

void checkImageFolder(const Settings& s, CheckContext& context) {
  if (!context.invalid("channels") && s.integer("channels") == 2) {
    context.report("channels", "must be 1 (grey) or 3 (RGB)");
  }
  if (!context.invalid("split") && !context.invalid("test_fraction") &&
      s.string("split") == "test" && s.number("test_fraction") == 0) {
    context.report("split",
                   "\"test\" reads the held-out part, and test_fraction is 0: set test_fraction "
                   "(e.g. 0.2, with the same value and split_seed in the training source), or "
                   "set split to \"train\" to read a validation folder of its own");
  }
  const int64_t channels = s.integer("channels");
  for (const char* name : {"mean", "std"}) {
    if (context.invalid(name) || context.invalid("channels")) continue;
    const size_t n = s.numbers(name).size();
    if (n > 1 && static_cast<int64_t>(n) != channels) {
      context.report(name, str("has ", n, " values for ", channels, " channel(s): give one value, ",
                               "or one per channel"));
    }
  }
}

}  // namespace

void registerBuiltinImageData(ComponentRegistry& registry) {
  ComponentType imageFolder = describe(
      "image_folder",
      "Images in class folders, dir/<class>/<image>.png|.jpg (torchvision's ImageFolder)",
      {key::directory("dir")
           .label("Directory")
           .help("The folder with one sub-folder of PNG or JPEG images per class")
           .required()
           .notEmpty(),
       key::integer("channels", 3)
           .label("Channels")
           .help("1: grey, 3: RGB; images are converted")
           .atLeast(1)
           .atMost(3),
       key::integer("size", 0)
           .label("Size")
           .help("Side of the square images the model sees")
           .atLeast(0)
           .zeroMeans("the images' own size (all must be equal)"),
       key::choice("resize", "center_crop", {"center_crop", "stretch"})
           .label("Resize")
           .help("center_crop: the shorter side to size, then the centre square; stretch: both "
                 "sides to size"),
       key::numbers("mean", {})
           .label("Mean")
           .help("Subtracted per channel from pixels in [0, 1], e.g. \"0.5\" or \"0.485, 0.456, "
                 "0.406\"; [] for 0")
           .atLeast(0)
           .atMost(1),
       key::numbers("std", {})
           .label("Std")
           .help("Divides each channel after the mean, e.g. \"0.5\"; [] for 1")
           .greaterThan(0),
       key::integer("random_crop_padding", 0)
           .label("Random crop padding")
           .help("Training: crop at a random offset of up to this many pixels, zero-padded")
           .atLeast(0)
           .zeroMeans("off"),
       key::boolean("horizontal_flip", false)
           .label("Horizontal flip")
           .help("Training: mirror half of the images left-right"),
       key::number("jitter", 0.0)
           .label("Jitter")
           .help("Training: brightness and contrast factors drawn from [1 - j, 1 + j]")
           .atLeast(0)
           .below(1)
           .zeroMeans("off"),
       key::integer("workers", kDefaultWorkers)
           .label("Decoding threads")
           .help("Threads that decode and transform the images")
           .atLeast(0)
           .zeroMeans("decode on the data thread"),
       key::boolean("ordered", true)
           .label("Keep order")
           .help("Images come in file order, whatever the threads (deterministic); off: as "
                 "they are decoded"),
       key::choice("on_error", "fail", {"fail", "skip"})
           .label("On a bad image")
           .help("fail: stop with its path; skip: leave it out, with a warning naming it"),
       key::choice("split", "train", {"train", "test"})
           .label("Split")
           .help("train: the folder less the held-out part; test: the held-out part"),
       key::number("test_fraction", 0.0)
           .label("Test fraction")
           .help("The part of the images held out for split \"test\"")
           .atLeast(0)
           .below(1)
           .zeroMeans("hold out nothing"),
       key::seed("split_seed", 0)
           .label("Split seed")
           .help("Which images are held out (the same in the training and validation "
                 "source)")});
  imageFolder.check = checkImageFolder;
  registerDataSource(registry, imageFolder, {openImageFolder, countImages});
}

}  // namespace tbench
