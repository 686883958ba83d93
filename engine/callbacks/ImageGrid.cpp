#include "engine/callbacks/ImageGrid.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "engine/core/Check.h"

namespace tbench {

namespace {

uint8_t toByte(float value, double low, double scale) {
  if (std::isnan(value)) return 0;
  const double unit = std::clamp((static_cast<double>(value) - low) * scale, 0.0, 1.0);
  return static_cast<uint8_t>(std::floor(unit * 255.0 + 0.5));
}

}  // namespace

ImageData imageGrid(const torch::Tensor& images, const ImageGridOptions& options) {
  TB_CHECK(images.defined() && images.dim() == 4, "imageGrid needs a tensor [N, C, H, W], got ",
           images.defined() ? images.sizes() : c10::IntArrayRef{});
  TB_CHECK(images.is_floating_point(), "imageGrid needs floating-point images, got ",
           images.scalar_type());
  const int64_t count = images.size(0);
  const int64_t channels = images.size(1);
  const int64_t height = images.size(2);
  const int64_t width = images.size(3);
  TB_CHECK(count >= 1 && height >= 1 && width >= 1, "imageGrid needs at least one image, got ",
           images.sizes());
  TB_CHECK(channels == 1 || channels == 3, "imageGrid needs 1 or 3 channels, got ", channels);
  TB_CHECK(options.low_ < options.high_, "imageGrid: the range [", options.low_, ", ",
           options.high_, "] is empty");
  TB_CHECK(options.columns_ >= 0, "imageGrid: columns must be >= 0, got ", options.columns_);
  TB_CHECK(options.padding_ >= 0 && options.padding_ <= 16,
           "imageGrid: padding must be 0 to 16 pixels, got ", options.padding_);

  int64_t columns = options.columns_ > 0
                        ? options.columns_
                        : static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(count))));
  columns = std::min(columns, count);
  const int64_t rows = (count + columns - 1) / columns;
  const int64_t pad = options.padding_;

  ImageData grid;
  grid.channels = static_cast<int>(channels);
  grid.width = static_cast<int>(columns * width + (columns + 1) * pad);
  grid.height = static_cast<int>(rows * height + (rows + 1) * pad);
  grid.pixels.assign(static_cast<size_t>(grid.width) * grid.height * channels, options.padValue_);

  const torch::Tensor values =
      images.detach().to(torch::kCPU, torch::kFloat32).contiguous();  // [N, C, H, W]
  const float* data = values.data_ptr<float>();
  const double scale = 1.0 / (options.high_ - options.low_);
  const int64_t plane = height * width;
  for (int64_t n = 0; n < count; ++n) {
    const int64_t top = pad + (n / columns) * (height + pad);
    const int64_t left = pad + (n % columns) * (width + pad);
    const float* image = data + n * channels * plane;
    for (int64_t y = 0; y < height; ++y) {
      uint8_t* out = grid.pixels.data() + ((top + y) * grid.width + left) * channels;
      for (int64_t x = 0; x < width; ++x) {
        for (int64_t c = 0; c < channels; ++c) {
          *out++ = toByte(image[c * plane + y * width + x], options.low_, scale);
        }
      }
    }
  }
  return grid;
}

}  // namespace tbench
