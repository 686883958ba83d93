#pragma once
// encodePng: an 8-bit image (ImageData: gray, RGB or RGBA, row-major HWC) as a PNG file in
// memory. One IDAT chunk compressed with zlib, filter type 0 (none) on every row, no
// interlacing: small code for the few images a run logs, not the smallest files.

#include <string>

#include "engine/callbacks/MonitorSink.h"

namespace tbench {

/// The PNG bytes of `image`. Throws CheckError if the image is empty, has a channel count
/// other than 1, 3 or 4, or if pixels.size() != height * width * channels.
std::string encodePng(const ImageData& image);

}  // namespace tbench
