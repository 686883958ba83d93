#include "engine/data/datasets/FashionMnist.h"

#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "engine/core/Check.h"
#include "engine/data/SeededRng.h"

namespace tbench {
namespace {

std::string byteOffset(const IdxHeader& header, int64_t offset) {
  return str("byte offset ", offset, header.compressed ? " (decompressed)" : "");
}

bool isIntegerType(uint8_t typeCode) {
  return typeCode == 0x08 || typeCode == 0x09 || typeCode == 0x0B || typeCode == 0x0C;
}

const char* kInstallHint =
    "install Debian's package (`apt-get install dataset-fashion-mnist`) or set the \"dir\" "
    "field of the data source in the project to a directory holding the IDX files";

}  // namespace

IdxClassificationData::IdxClassificationData(std::string imagesPath, std::string labelsPath)
    : IdxClassificationData(std::move(imagesPath), std::move(labelsPath), Options()) {}

IdxClassificationData::IdxClassificationData(std::string imagesPath, std::string labelsPath,
                                             Options options)
    : TensorData(options.shuffle(), options.seed()),
      imagesPath_(std::move(imagesPath)),
      labelsPath_(std::move(labelsPath)),
      options_(options) {
  if (options_.limit() < 0) {
    throw InputError(
        str(imagesPath_, ": limit must be 0 (all samples) or positive, got ", options_.limit()));
  }
  if (options_.numClasses() < 0) {
    throw InputError(str(labelsPath_, ": numClasses must be 0 (infer) or positive, got ",
                         options_.numClasses()));
  }

  imagesHeader_ = readIdxHeader(imagesPath_);
  if (imagesHeader_.typeCode != 0x08) {
    throw InputError(str(imagesPath_, ": unsupported image element type at ",
                         byteOffset(imagesHeader_, 2), ": expected ", idxTypeName(0x08), ", found ",
                         idxTypeName(imagesHeader_.typeCode)));
  }
  if (imagesHeader_.dims.size() != 3) {
    throw InputError(
        str(imagesPath_, ": wrong number of dimensions at ", byteOffset(imagesHeader_, 3),
            ": expected 3 (images, rows, columns), found ", imagesHeader_.dims.size()));
  }
  rows_ = imagesHeader_.dims[1];
  columns_ = imagesHeader_.dims[2];

  // The label file is small (one byte per sample), so it is read and checked right away.
  const IdxArray labels = readIdxFile(labelsPath_);
  const IdxHeader& labelsHeader = labels.header;
  if (!isIntegerType(labelsHeader.typeCode)) {
    throw InputError(str(labelsPath_, ": unsupported label element type at ",
                         byteOffset(labelsHeader, 2), ": expected an integer type such as ",
                         idxTypeName(0x08), ", found ", idxTypeName(labelsHeader.typeCode)));
  }
  if (labelsHeader.dims.size() != 1) {
    throw InputError(str(labelsPath_, ": wrong number of dimensions at ",
                         byteOffset(labelsHeader, 3), ": expected 1 (the label count), found ",
                         labelsHeader.dims.size()));
  }
  const int64_t count = imagesHeader_.dims[0];
  if (labelsHeader.dims[0] != count) {
    throw InputError(str("image and label counts differ: ", imagesPath_, " holds ", count,
                         " images (", byteOffset(imagesHeader_, 4), "), ", labelsPath_, " holds ",
                         labelsHeader.dims[0], " labels (", byteOffset(labelsHeader, 4), ")"));
  }

  const torch::Tensor all = labels.data.to(torch::kInt64);
  const int64_t elementSize = idxElementSize(labelsHeader.typeCode);
  auto reportLabel = [&](const torch::Tensor& bad, const std::string& expected) {
    const int64_t index = bad.nonzero().flatten()[0].item<int64_t>();
    throw InputError(str(labelsPath_, ": label ", all[index].item<int64_t>(), " of sample ", index,
                         " at ",
                         byteOffset(labelsHeader, labelsHeader.headerBytes + index * elementSize),
                         " is out of range: expected ", expected));
  };
  if (options_.numClasses() > 0) {
    const int64_t k = options_.numClasses();
    const torch::Tensor bad = (all < 0).logical_or(all >= k);
    if (bad.any().item<bool>()) reportLabel(bad, str("0 to ", k - 1, " (", k, " classes)"));
    numClasses_ = k;
  } else {
    const torch::Tensor bad = all < 0;
    if (bad.any().item<bool>()) reportLabel(bad, "a non-negative class index");
    numClasses_ = all.max().item<int64_t>() + 1;
  }

  numSamples_ = options_.limit() > 0 ? std::min(options_.limit(), count) : count;
  labels_ = all.narrow(0, 0, numSamples_).clone();
}

void IdxClassificationData::onResetState() {
  IdxArray array = readIdxFile(imagesPath_);
  if (array.dims != imagesHeader_.dims) {
    throw InputError(str(imagesPath_, ": the file changed since it was opened: its header at ",
                         byteOffset(array.header, 4), " now has other dimensions"));
  }
  // One float tensor for the whole set; datapoints are views into it.
  images_ = array.data.narrow(0, 0, numSamples_).unsqueeze(1).to(torch::kFloat32).div_(255.0f);
  setTensors({images_, labels_});
}

FashionMnist::FashionMnist(const std::string& split) : FashionMnist(split, "", Options()) {}

FashionMnist::FashionMnist(const std::string& split, const std::string& dir)
    : FashionMnist(split, dir, Options()) {}

FashionMnist::FashionMnist(const std::string& split, const std::string& dir, Options options)
    : FashionMnist(split, findFiles(split, dir), options) {}

FashionMnist::FashionMnist(std::string split, std::pair<std::string, std::string> files,
                           Options options)
    : IdxClassificationData(std::move(files.first), std::move(files.second),
                            options.numClasses() == 0 ? options.numClasses(10) : options),
      split_(std::move(split)) {
  if (numClasses() != 10) {
    throw InputError(str("Fashion-MNIST has 10 classes, but numClasses is set to ", numClasses()));
  }
}

const std::vector<std::string>& FashionMnist::classNames() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                                 "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                                 "Bag",         "Ankle boot"};
  return names;
}

std::pair<std::string, std::string> FashionMnist::findFiles(const std::string& split,
                                                            const std::string& dir) {
  namespace fs = std::filesystem;
  std::string prefix;
  if (split == "train") {
    prefix = "train";
  } else if (split == "test") {
    prefix = "t10k";
  } else {
    throw InputError(
        str("unknown Fashion-MNIST split \"", split, "\": expected \"train\" or \"test\""));
  }
  const fs::path root = dir.empty() ? fs::path(kDefaultDir) : fs::path(dir);
  std::error_code error;
  if (!fs::is_directory(root, error)) {
    throw InputError(str("Fashion-MNIST directory ", root.string(),
                         fs::exists(root, error) ? " is not a directory" : " does not exist", ": ",
                         kInstallHint));
  }
  auto find = [&](const std::string& name, const char* what) {
    const fs::path plain = root / name;
    const fs::path gz = root / (name + ".gz");
    for (const fs::path& candidate : {plain, gz}) {
      if (fs::is_regular_file(candidate, error)) return candidate.string();
    }
    throw InputError(str("Fashion-MNIST ", split, " ", what, " not found: tried ", plain.string(),
                         " and ", gz.string(), "; ", kInstallHint));
  };
  std::string images = find(prefix + "-images-idx3-ubyte", "images");
  std::string labels = find(prefix + "-labels-idx1-ubyte", "labels");
  return {std::move(images), std::move(labels)};
}

}  // namespace tbench
