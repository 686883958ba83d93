#include "engine/data/ImageAugment.h"

#include <algorithm>
#include <cmath>

#include "engine/core/Check.h"
#include "engine/data/SeededRng.h"

namespace tbench {

namespace {

// ---- PIL's bilinear resampling (Pillow's libImaging/Resample.c), in the same fixed point so
// that the bytes agree with Image.resize(..., Image.BILINEAR).

constexpr int kPrecisionBits = 32 - 8 - 2;

/// For each output position: the first input position and the 22-bit weights of the inputs
/// it reads.
struct Coefficients {
  int64_t taps = 0;              // weights per output position
  std::vector<int64_t> first;    // first input position
  std::vector<int64_t> count;    // inputs read
  std::vector<int64_t> weights;  // taps per output position
};

Coefficients bilinearCoefficients(int64_t inSize, int64_t outSize) {
  const double scale = static_cast<double>(inSize) / static_cast<double>(outSize);
  const double filterScale = std::max(scale, 1.0);
  const double support = 1.0 * filterScale;  // the triangle filter's support is 1
  Coefficients c;
  c.taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  c.first.resize(outSize);
  c.count.resize(outSize);
  c.weights.assign(static_cast<size_t>(outSize * c.taps), 0);
  std::vector<double> k(static_cast<size_t>(c.taps));
  for (int64_t xx = 0; xx < outSize; ++xx) {
    const double center = (static_cast<double>(xx) + 0.5) * scale;
    const double inverse = 1.0 / filterScale;
    // (int) truncates toward zero, as in the C original.
    const int64_t xmin = std::max<int64_t>(static_cast<int>(center - support + 0.5), 0);
    const int64_t xmax = std::min<int64_t>(static_cast<int>(center + support + 0.5), inSize) - xmin;
    double total = 0;
    for (int64_t x = 0; x < xmax; ++x) {
      const double distance = std::abs((static_cast<double>(x + xmin) - center + 0.5) * inverse);
      k[x] = distance < 1.0 ? 1.0 - distance : 0.0;
      total += k[x];
    }
    for (int64_t x = 0; x < xmax; ++x) {
      const double w = total != 0.0 ? k[x] / total : k[x];
      c.weights[xx * c.taps + x] = static_cast<int64_t>(w < 0 ? -0.5 + w * (1 << kPrecisionBits)
                                                              : 0.5 + w * (1 << kPrecisionBits));
    }
    c.first[xx] = xmin;
    c.count[xx] = xmax;
  }
  return c;
}

inline uint8_t clip8(int64_t value) {
  if (value >= (int64_t{1} << kPrecisionBits << 8)) return 255;
  if (value <= 0) return 0;
  return static_cast<uint8_t>(value >> kPrecisionBits);
}

DecodedImage resampleHorizontal(const DecodedImage& in, int64_t width) {
  const Coefficients c = bilinearCoefficients(in.width, width);
  const int64_t channels = in.channels;
  DecodedImage out{in.height, width, channels, {}};
  out.pixels.resize(static_cast<size_t>(in.height * width * channels));
  for (int64_t y = 0; y < in.height; ++y) {
    const uint8_t* row = in.pixels.data() + y * in.width * channels;
    uint8_t* target = out.pixels.data() + y * width * channels;
    for (int64_t xx = 0; xx < width; ++xx) {
      const int64_t* w = c.weights.data() + xx * c.taps;
      for (int64_t ch = 0; ch < channels; ++ch) {
        int64_t sum = int64_t{1} << (kPrecisionBits - 1);
        for (int64_t x = 0; x < c.count[xx]; ++x) {
          sum += row[(c.first[xx] + x) * channels + ch] * w[x];
        }
        target[xx * channels + ch] = clip8(sum);
      }
    }
  }
  return out;
}

DecodedImage resampleVertical(const DecodedImage& in, int64_t height) {
  const Coefficients c = bilinearCoefficients(in.height, height);
  const int64_t rowLength = in.width * in.channels;
  DecodedImage out{height, in.width, in.channels, {}};
  out.pixels.resize(static_cast<size_t>(height * rowLength));
  for (int64_t yy = 0; yy < height; ++yy) {
    const int64_t* w = c.weights.data() + yy * c.taps;
    uint8_t* target = out.pixels.data() + yy * rowLength;
    for (int64_t i = 0; i < rowLength; ++i) {
      int64_t sum = int64_t{1} << (kPrecisionBits - 1);
      for (int64_t y = 0; y < c.count[yy]; ++y) {
        sum += in.pixels[(c.first[yy] + y) * rowLength + i] * w[y];
      }
      target[i] = clip8(sum);
    }
  }
  return out;
}

/// A uniform number in [0, 1) from draw `k` of `seed`.
double uniform(uint64_t seed, uint64_t k) {
  return static_cast<double>(mixSeed(seed, k) >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace

DecodedImage resizeBilinear(const DecodedImage& image, int64_t height, int64_t width) {
  TB_CHECK(height > 0 && width > 0, "cannot resize to ", width, "x", height);
  if (image.height == height && image.width == width) return image;
  // As PIL: horizontal pass first, each pass only when its size changes.
  if (image.width == width) return resampleVertical(image, height);
  DecodedImage horizontal = resampleHorizontal(image, width);
  if (image.height == height) return horizontal;
  return resampleVertical(horizontal, height);
}

DecodedImage centerCrop(const DecodedImage& image, int64_t height, int64_t width) {
  TB_CHECK(height <= image.height && width <= image.width, "a ", width, "x", height, " crop of a ",
           image.width, "x", image.height, " image");
  const auto top = static_cast<int64_t>(std::nearbyint((image.height - height) / 2.0));
  const auto left = static_cast<int64_t>(std::nearbyint((image.width - width) / 2.0));
  if (top == 0 && left == 0 && height == image.height && width == image.width) return image;
  DecodedImage out{height, width, image.channels, {}};
  const int64_t rowLength = width * image.channels;
  out.pixels.resize(static_cast<size_t>(height * rowLength));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* from = image.pixels.data() + ((top + y) * image.width + left) * image.channels;
    std::copy(from, from + rowLength, out.pixels.data() + y * rowLength);
  }
  return out;
}

DecodedImage resizeShorterSideAndCrop(const DecodedImage& image, int64_t size) {
  const bool portrait = image.width <= image.height;
  const int64_t shorter = portrait ? image.width : image.height;
  const int64_t longer = portrait ? image.height : image.width;
  const auto scaledLonger = static_cast<int64_t>(
      static_cast<double>(size) * static_cast<double>(longer) / static_cast<double>(shorter));
  const DecodedImage resized = portrait ? resizeBilinear(image, scaledLonger, size)
                                        : resizeBilinear(image, size, scaledLonger);
  return centerCrop(resized, size, size);
}

AugmentDraw drawAugment(const AugmentOptions& options, uint64_t seed) {
  const int64_t span = 2 * options.cropPadding + 1;
  AugmentDraw draw;
  draw.shiftY = static_cast<int64_t>(uniform(seed, 0) * span) - options.cropPadding;
  draw.shiftX = static_cast<int64_t>(uniform(seed, 1) * span) - options.cropPadding;
  draw.flip = options.horizontalFlip && uniform(seed, 2) < 0.5;
  const double j = options.jitter;
  draw.brightness = static_cast<float>(1.0 - j + 2.0 * j * uniform(seed, 3));
  draw.contrast = static_cast<float>(1.0 - j + 2.0 * j * uniform(seed, 4));
  return draw;
}

void writeFloatCHW(const DecodedImage& image, const AugmentDraw& draw,
                   const Normalization& normalization, float* out) {
  const int64_t channels = image.channels, height = image.height, width = image.width;
  auto perChannel = [&](const std::vector<double>& values, int64_t c, double fallback) {
    if (values.empty()) return fallback;
    TB_CHECK(values.size() == 1 || static_cast<int64_t>(values.size()) == channels,
             "normalisation of ", values.size(), " values for ", channels, " channels");
    return values.size() == 1 ? values[0] : values[c];
  };
  const bool jitter = draw.brightness != 1.0f || draw.contrast != 1.0f;
  float level = 0;  // the mean level the contrast turns around, after the brightness
  if (jitter) {
    double sum = 0;
    for (uint8_t v : image.pixels) sum += v;
    level = static_cast<float>(
        std::min(1.0, sum / (255.0 * static_cast<double>(image.pixels.size())) * draw.brightness));
  }
  for (int64_t c = 0; c < channels; ++c) {
    const double mean = perChannel(normalization.mean, c, 0.0);
    const double std = perChannel(normalization.std, c, 1.0);
    // Without jitter: out = byte * scale + bias, in one multiply-add.
    const auto scale = static_cast<float>(1.0 / (255.0 * std));
    const auto bias = static_cast<float>(-mean / std);
    const auto inverseStd = static_cast<float>(1.0 / std);
    auto value = [&](uint8_t byte) -> float {
      if (!jitter) return static_cast<float>(byte) * scale + bias;
      float v = std::min(static_cast<float>(byte) * (1.0f / 255.0f) * draw.brightness, 1.0f);
      v = std::clamp((v - level) * draw.contrast + level, 0.0f, 1.0f);
      return (v - static_cast<float>(mean)) * inverseStd;
    };
    const float outside = value(0);
    float* plane = out + c * height * width;
    for (int64_t y = 0; y < height; ++y) {
      float* target = plane + y * width;
      const int64_t sy = y + draw.shiftY;
      if (sy < 0 || sy >= height) {
        std::fill(target, target + width, outside);
        continue;
      }
      const uint8_t* row = image.pixels.data() + sy * width * channels + c;
      for (int64_t x = 0; x < width; ++x) {
        const int64_t sx = (draw.flip ? width - 1 - x : x) + draw.shiftX;
        target[x] = sx >= 0 && sx < width ? value(row[sx * channels]) : outside;
      }
    }
  }
}

}  // namespace tbench
