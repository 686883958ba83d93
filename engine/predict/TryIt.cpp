#include "engine/predict/TryIt.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

#include "engine/callbacks/ImageGrid.h"
#include "engine/core/Check.h"
#include "engine/data/ImageAugment.h"
#include "engine/data/formats/ImageDecode.h"
#include "engine/input/Batch.h"
#include "engine/predict/ModelExport.h"
#include "engine/project/ProjectBuilder.h"

namespace tbench {

namespace {

bool isTable(const ImageShape& shape) { return shape.channels == 1 && shape.height == 1; }

/// `image` as the training source would give it, [1, C, H, W].
torch::Tensor imageInput(const RestoredNetwork& net, const std::string& path, std::string& note) {
  const ImageShape shape = net.context.input;
  if (isTable(shape)) {
    throw InputError(str("this model reads table rows of ", shape.width, " features, not images; ",
                         net.project.data.train.type == "csv" ? "choose a CSV row or " : "choose ",
                         "a dataset sample"));
  }
  TB_CHECK(shape.channels == 1 || shape.channels == 3, "the model takes ", shape.channels,
           " channels");
  DecodedImage image = decodeImageFile(path);
  const int64_t height = image.height;
  const int64_t width = image.width;
  convertChannels(image, shape.channels);
  Normalization normalization;
  const ComponentSpec& train = net.project.data.train;
  if (train.type == "image_folder" && train.at("size").get<int64_t>() > 0) {
    if (train.at("resize").get<std::string>() == "stretch") {
      image = resizeBilinear(image, shape.height, shape.width);
    } else {
      image = resizeShorterSideAndCrop(image, shape.height);
    }
  } else if (height != shape.height || width != shape.width) {
    // The model was trained on images of their own size (size 0) or on data that is not an
    // image folder: stretched to what it takes, and said so.
    image = resizeBilinear(image, shape.height, shape.width);
    note = str("stretched from ", width, "x", height, " to ", shape.width, "x", shape.height);
  }
  if (train.type == "image_folder") {
    normalization = {train.at("mean").get<std::vector<double>>(),
                     train.at("std").get<std::vector<double>>()};
  } else {
    // Other sources' inputs are not known to be pixels: the file's are given in [0, 1].
    note += str(note.empty() ? "" : "; ", "pixels given in [0, 1], as the ", train.type,
                " source's images are assumed to be");
  }
  TB_CHECK(image.height == shape.height && image.width == shape.width, path, ": the image is ",
           image.width, "x", image.height, " after resizing, the model takes ", shape.width, "x",
           shape.height);
  torch::Tensor out = torch::empty({1, shape.channels, shape.height, shape.width});
  writeFloatCHW(image, AugmentDraw{}, normalization, out.data_ptr<float>());
  return out;
}

/// Datapoint `index` of `source`, with the number of datapoints in the message when short.
Datapoint nthDatapoint(const OpenedSource& source, int64_t index, const std::string& what) {
  if (!(index >= 0)) throw InputError(str(what, ": the index must be >= 0, got ", index));
  source.flow->resetState();
  DataPass pass = source.flow->pass();
  Datapoint point;
  int64_t seen = 0;
  while (pass.next(point)) {
    if (seen++ == index) return point;
  }
  throw InputError(str(what, " has ", seen, " samples (0..", seen - 1, "); there is no ", index));
}

OpenedSource openForTrying(const RestoredNetwork& net, const ComponentSpec& spec) {
  OpenRequest request;
  request.seed = net.project.seed;
  request.training = &net.facts;
  return openDataSource(spec, request, net.project.baseDir);
}

}  // namespace

TryItResult tryCheckpoint(const std::string& checkpointPath, const TryItInput& input,
                          int64_t topN) {
  if (!(topN >= 1)) throw InputError(str("top-N must be >= 1, got ", topN));
  const RestoredNetwork net = restoreNetwork(readCheckpointFile(checkpointPath));
  const int64_t classes = net.context.numClasses;
  if (classes <= 0) throw InputError("this model predicts targets, not classes");
  TryItResult result;
  torch::Tensor x;
  switch (input.kind) {
    case TryItInput::Kind::ImageFile:
      x = imageInput(net, input.path, result.note);
      break;
    case TryItInput::Kind::DatasetSample: {
      if (!(input.split == "validation" || input.split == "train"))
        throw InputError(
            str("the split is \"validation\" or \"train\", not \"", input.split, "\""));
      const bool validation = input.split == "validation";
      if (validation && !net.project.data.hasValidation) {
        throw InputError("the checkpoint's project has no validation data; choose \"train\"");
      }
      const ComponentSpec& spec = validation ? net.project.data.validation : net.project.data.train;
      const Datapoint point =
          nthDatapoint(openForTrying(net, spec), input.index, "data." + input.split);
      x = point.at(0).unsqueeze(0).to(torch::kFloat32);
      result.trueClass = point.at(1).item<int64_t>();
      break;
    }
    case TryItInput::Kind::CsvRow: {
      if (net.project.data.train.type != "csv") {
        throw InputError(str("this model was trained on \"", net.project.data.train.type,
                             "\" data, not a CSV table; choose an image or a dataset sample"));
      }
      ComponentSpec spec = net.project.data.train;
      spec.set("path", input.path).set("split", "train").set("test_fraction", 0.0);
      const Datapoint point = nthDatapoint(openForTrying(net, spec), input.index, input.path);
      x = point.at(0).unsqueeze(0).to(torch::kFloat32);
      result.trueClass = point.at(1).item<int64_t>();
      break;
    }
  }
  const std::vector<InputSpec> specs = net.model->inputs();
  if (!(specs.size() == 2))
    throw InputError(
        str("model type \"", net.project.model.type, "\" does not take an input and a label"));
  torch::Tensor label = torch::full({1}, std::max<int64_t>(result.trueClass, 0), torch::kInt64);
  torch::NoGradGuard noGrad;
  TowerContext tower(0, Device::parse("cpu"), false);
  const auto outputs = net.model->inferenceOutputs(tower, *net.net, Batch(specs, {x, label}));
  const auto logits = outputs.find("logits");
  if (logits == outputs.end()) {
    throw InputError(str("model type \"", net.project.model.type, "\" gives no class scores"));
  }
  const torch::Tensor probs =
      torch::softmax(logits->second.to(torch::kFloat64), 1).reshape({-1}).contiguous();
  TB_CHECK(probs.size(0) == classes, "the model gives ", probs.size(0), " scores for ", classes,
           " classes");
  result.classNames = net.facts.classNames;
  if (static_cast<int64_t>(result.classNames.size()) != classes) {
    result.classNames.clear();
    for (int64_t k = 0; k < classes; ++k) result.classNames.push_back(std::to_string(k));
  }
  result.probabilities.assign(probs.data_ptr<double>(), probs.data_ptr<double>() + classes);
  std::vector<int64_t> order(classes);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return result.probabilities[a] > result.probabilities[b];
  });
  for (int64_t i = 0; i < std::min(topN, classes); ++i) {
    const int64_t k = order[i];
    result.top.push_back({k, result.classNames[k], result.probabilities[k]});
  }
  if (isTable(net.context.input)) {
    const torch::Tensor row = x.reshape({-1}).to(torch::kFloat64).contiguous();
    result.features.assign(row.data_ptr<double>(), row.data_ptr<double>() + row.numel());
  } else {
    double low = x.min().item<double>();
    double high = x.max().item<double>();
    if (!(high > low)) high = low + 1;
    result.input = imageGrid(x, ImageGridOptions().range(low, high).padding(0));
  }
  return result;
}

}  // namespace tbench
