// Fuzz target: engine/data/formats/ImageDecode (fuzz/README.md): decodes the input as a PNG or JPEG
// and converts it to the other channel count and back. Any outcome other than an image or a
// std::exception (InputError) with a message is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "engine/data/formats/ImageDecode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tbench::DecodedImage image = tbench::decodeImage(data, size, "fuzz-input");
    const int64_t channels = image.channels;
    if ((channels != 1 && channels != 3) || image.height <= 0 || image.width <= 0 ||
        image.pixels.size() != size_t(image.height * image.width * channels)) {
      std::abort();  // decodeImage's promise (ImageDecode.h)
    }
    tbench::convertChannels(image, channels == 1 ? 3 : 1);
    tbench::convertChannels(image, channels);
    if (image.pixels.size() != size_t(image.height * image.width * channels)) std::abort();
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
