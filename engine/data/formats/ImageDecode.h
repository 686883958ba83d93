#pragma once
// PNG (libpng) and JPEG (libjpeg-turbo) decoding to 8-bit pixels, height x width x channels.
//
// The format is told by the file's first bytes, not by its name. Images come out grey
// (1 channel) or RGB (3): a palette is expanded, alpha (and a tRNS transparency) is dropped
// without compositing, 16-bit samples keep their high byte and 1/2/4-bit grey is scaled to
// 0-255 -- what PIL's Image.open(...).convert("L" / "RGB") gives, except for 16-bit grey, which
// PIL clips to 255 instead of scaling. JPEGs are decoded with libjpeg's defaults (integer
// IDCT, fancy upsampling), as PIL does.
//
// Errors: an empty, truncated or corrupt file, a file that is neither PNG nor JPEG and an
// unsupported variant (a CMYK JPEG) throw InputError naming the path and the reason. The
// libraries' fatal errors are taken through their own hooks (libpng's longjmp, libjpeg's
// error manager), so no input can abort the process. Thread-safe: no shared state.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tbench {

/// 8-bit pixels, row-major, channels interleaved (HWC).
struct DecodedImage {
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;  ///< 1 (grey) or 3 (RGB)
  std::vector<uint8_t> pixels;
};

/// The size of an image as its header says, without decoding the pixels.
struct ImageInfo {
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;  ///< what decodeImage gives: 1 or 3
};

/// Decodes the PNG or JPEG file at `path`.
DecodedImage decodeImageFile(const std::string& path);
/// Decodes a PNG or JPEG held in memory; `name` (a path) is what error messages show.
DecodedImage decodeImage(const uint8_t* data, size_t size, const std::string& name);
/// Reads only the header of the PNG or JPEG file at `path`.
ImageInfo readImageInfo(const std::string& path);

/// Converts to `channels` (1 or 3) in place: RGB to grey with ITU-R 601-2 luma in fixed point
/// (L = (19595 R + 38470 G + 7471 B + 32768) >> 16, PIL's convert("L")); grey to RGB by
/// repeating the value.
void convertChannels(DecodedImage& image, int64_t channels);

}  // namespace tbench
