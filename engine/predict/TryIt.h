#pragma once
// "Try it": a checkpoint's classifier on one input, as NVIDIA DIGITS' "Classify One" shows it.
//
// The network is rebuilt from the checkpoint alone (restoreNetwork, ModelExport.h). The input is
//  - an image file (PNG or JPEG): converted to the model's channels, resized as an
//    image_folder training source does (its "resize" mode and "mean"/"std" normalisation), or,
//    for other sources, stretched to the model's size with PIL's bilinear filter (the result's
//    note says so) and scaled to [0, 1];
//  - a dataset sample: sample `index` of the checkpoint project's "validation" or "train"
//    source, opened with the checkpoint's data facts (as validation is), its true class known;
//  - a CSV row: data row `index` (0-based, after skipped lines and header) of a table with the
//    training table's columns (read with the training source's settings, nothing held out).
// The outputs are softmax probabilities of the classes (the model's "logits" inference output).
// Errors (InputError): a regression checkpoint ("this model predicts targets, not classes"),
// an image for a table model, a CSV row for an image model, an index out of range (the count
// named), and everything restoreNetwork and the readers refuse. Any thread; no shared state.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/callbacks/MonitorSink.h"

namespace tbench {

struct TryItInput {
  enum class Kind { ImageFile, DatasetSample, CsvRow };
  Kind kind = Kind::ImageFile;
  std::string path;                  ///< ImageFile, CsvRow
  std::string split = "validation";  ///< DatasetSample: "validation" or "train"
  int64_t index = 0;                 ///< DatasetSample: the sample; CsvRow: the row
};

struct TryItClass {
  int64_t index = 0;
  std::string name;
  double probability = 0;
};

struct TryItResult {
  std::vector<std::string> classNames;  ///< every class ("0", "1", ... when unnamed)
  std::vector<double> probabilities;    ///< one per class, summing to 1
  std::vector<TryItClass> top;          ///< the `topN` most probable, highest first
  ImageData input;                      ///< the input as the model saw it (empty for rows)
  std::vector<double> features;         ///< a table row's features as the model saw them
  int64_t trueClass = -1;               ///< a dataset sample's or CSV row's label; else -1
  std::string note;                     ///< what was done to the input ("resized from ...")
};

/// Runs the checkpoint at `checkpointPath` on `input` (see the file comment); `topN` >= 1.
TryItResult tryCheckpoint(const std::string& checkpointPath, const TryItInput& input,
                          int64_t topN = 5);

}  // namespace tbench
