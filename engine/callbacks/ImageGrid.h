#pragma once
// imageGrid: a batch of images as one picture (torchvision's make_grid, tensorpack's
// stack_patches), for MonitorSink::putImage.
//
//   ImageData grid = imageGrid(samples, ImageGridOptions().range(-1, 1).columns(8));
//   context().monitors().putImage("samples", grid);
//
// The input is a float tensor [N, C, H, W] with C = 1 (grey) or 3 (RGB), on any device. Each
// value is clamped to [low, high] and mapped linearly onto 0..255, rounding half up
// (floor((v - low) / (high - low) * 255 + 0.5)); NaN becomes 0. The N images are laid out
// row-major in `columns` columns (0: ceil(sqrt(N)); never more than N) and as many rows as
// needed, with `padding` pixels of `padValue` between cells and around the border; cells past
// the last image are padValue too. The result is H' x W' x C bytes, HWC, with
//   W' = columns * W + (columns + 1) * padding,  H' = rows * H + (rows + 1) * padding.
// Any thread; no state.

#include <torch/types.h>

#include <cstdint>

#include "engine/callbacks/MonitorSink.h"

namespace tbench {

struct ImageGridOptions {
  double low_ = 0.0;     ///< the value shown black
  double high_ = 1.0;    ///< the value shown white (full intensity)
  int64_t columns_ = 0;  ///< 0: ceil(sqrt(N))
  int padding_ = 1;      ///< 0 to 16 pixels between cells and around the border
  uint8_t padValue_ = 0;

  /// The value range of the images: [0, 1] (the default) or [-1, 1] (a tanh generator).
  ImageGridOptions& range(double low, double high) {
    low_ = low;
    high_ = high;
    return *this;
  }
  ImageGridOptions& columns(int64_t n) {
    columns_ = n;
    return *this;
  }
  ImageGridOptions& padding(int pixels) {
    padding_ = pixels;
    return *this;
  }
  ImageGridOptions& padValue(uint8_t value) {
    padValue_ = value;
    return *this;
  }
};

/// The grid of `images` ([N, C, H, W], C 1 or 3, N >= 1, floating point). Throws CheckError
/// for another shape or dtype, low >= high, columns < 0 or padding outside 0..16.
ImageData imageGrid(const torch::Tensor& images, const ImageGridOptions& options = {});

}  // namespace tbench
