#pragma once
// The image transforms of ImageFolderData, on decoded 8-bit images (ImageDecode.h), written as
// plain loops so that they run on MultiThreadMapData's workers without LibTorch's intra-op
// threads.
//
// Resizing follows PIL's Image.resize(..., BILINEAR) exactly (the triangle filter widened by
// the scale when shrinking, 22-bit fixed-point coefficients, horizontal pass first), and the
// crop offsets follow torchvision's Resize(size) + CenterCrop(size), so a folder reads as
// torchvision's ImageFolder with those transforms reads it.
//
// The training augmentations of one sample are drawn from one seed (AugmentDraw): the same
// seed gives the same image on any thread, in any order.

#include <cstdint>
#include <vector>

#include "engine/data/formats/ImageDecode.h"

namespace tbench {

/// `image` resized to height x width with PIL's bilinear filter (a copy when the size is equal).
DecodedImage resizeBilinear(const DecodedImage& image, int64_t height, int64_t width);

/// The centre height x width window of `image` (torchvision's CenterCrop: the offsets are
/// round-half-even((H - height) / 2) and likewise for the width). The window lies inside.
DecodedImage centerCrop(const DecodedImage& image, int64_t height, int64_t width);

/// torchvision's Resize(size) then CenterCrop(size): the shorter side scaled to `size` (the
/// longer to int(size * longer / shorter)), then the centre size x size square.
DecodedImage resizeShorterSideAndCrop(const DecodedImage& image, int64_t size);

/// The training augmentations, all off by default.
struct AugmentOptions {
  /// Random crop of the image's own size from the image padded with this many zero pixels on
  /// every side (torchvision's RandomCrop(size, padding)); 0: off.
  int64_t cropPadding = 0;
  /// Mirror left-right with probability 1/2.
  bool horizontalFlip = false;
  /// Brightness and contrast factors drawn from [1 - jitter, 1 + jitter]; 0: off.
  double jitter = 0;
  bool any() const { return cropPadding > 0 || horizontalFlip || jitter > 0; }
};

/// One sample's random choices.
struct AugmentDraw {
  /// Output pixel (y, x) shows input pixel (y + shiftY, x' + shiftX), x' = x or, flipped,
  /// width - 1 - x; each shift is in [-cropPadding, cropPadding].
  int64_t shiftY = 0;
  int64_t shiftX = 0;
  bool flip = false;
  float brightness = 1;
  float contrast = 1;
};

/// The choices for a sample whose seed is `seed`. Every choice is drawn, whatever is off, so
/// that turning one augmentation on or off leaves the others' draws as they were.
AugmentDraw drawAugment(const AugmentOptions& options, uint64_t seed);

/// Per-channel normalisation: a channel's value v in [0, 1] becomes (v - mean) / std. Empty
/// lists mean 0 and 1; a list of one value applies to every channel.
struct Normalization {
  std::vector<double> mean;
  std::vector<double> std;
};

/// Writes `image` as float32 CHW into `out` (channels * height * width values): each byte
/// divided by 255, moved and mirrored as `draw` says (pixels from outside the image are 0),
/// brightness v * b and contrast (v - m) * c + m around the image's mean level m, each clamped
/// to [0, 1], then normalised.
void writeFloatCHW(const DecodedImage& image, const AugmentDraw& draw,
                   const Normalization& normalization, float* out);

}  // namespace tbench
