#include "engine/monitors/PngEncoder.h"

#include <zlib.h>

#include <cstring>

#include "engine/core/Check.h"

namespace tbench {

namespace {

void appendBigEndian32(std::string& out, uint32_t value) {
  const char bytes[4] = {static_cast<char>(value >> 24), static_cast<char>(value >> 16),
                         static_cast<char>(value >> 8), static_cast<char>(value)};
  out.append(bytes, 4);
}

/// Appends length, type, data and the CRC-32 (zlib's, over type and data) of one chunk.
void appendChunk(std::string& out, const char (&type)[5], const std::string& data) {
  appendBigEndian32(out, static_cast<uint32_t>(data.size()));
  const size_t typeAt = out.size();
  out.append(type, 4);
  out += data;
  const auto* covered = reinterpret_cast<const Bytef*>(out.data() + typeAt);
  appendBigEndian32(out, static_cast<uint32_t>(crc32(0L, covered, 4 + data.size())));
}

/// PNG colour types for 1, 3 and 4 channels of 8 bits.
uint8_t colourType(int channels) {
  switch (channels) {
    case 1:
      return 0;  // greyscale
    case 3:
      return 2;  // truecolour
    default:
      return 6;  // truecolour with alpha
  }
}

}  // namespace

std::string encodePng(const ImageData& image) {
  TB_CHECK(image.height > 0 && image.width > 0, "PNG needs a non-empty image, got ", image.height,
           "x", image.width);
  TB_CHECK(image.channels == 1 || image.channels == 3 || image.channels == 4,
           "PNG images have 1, 3 or 4 channels, got ", image.channels);
  const size_t rowBytes = static_cast<size_t>(image.width) * image.channels;
  TB_CHECK(image.pixels.size() == rowBytes * image.height, "image of ", image.height, "x",
           image.width, "x", image.channels, " needs ", rowBytes * image.height, " bytes, got ",
           image.pixels.size());

  // Every row is prefixed by its filter type; 0 leaves the bytes as they are.
  std::string raw((rowBytes + 1) * image.height, '\0');
  for (int y = 0; y < image.height; ++y) {
    std::memcpy(&raw[y * (rowBytes + 1) + 1], image.pixels.data() + y * rowBytes, rowBytes);
  }
  std::string idat(compressBound(raw.size()), '\0');
  uLongf idatSize = idat.size();
  const int status =
      compress2(reinterpret_cast<Bytef*>(idat.data()), &idatSize,
                reinterpret_cast<const Bytef*>(raw.data()), raw.size(), Z_DEFAULT_COMPRESSION);
  // compressBound makes room for any input, so only running out of memory can fail here.
  if (status != Z_OK) throw std::runtime_error(str("PNG: zlib compress2 failed (", status, ")"));
  idat.resize(idatSize);

  std::string ihdr;
  appendBigEndian32(ihdr, static_cast<uint32_t>(image.width));
  appendBigEndian32(ihdr, static_cast<uint32_t>(image.height));
  const char rest[5] = {8, static_cast<char>(colourType(image.channels)), 0, 0, 0};
  ihdr.append(rest, 5);  // bit depth, colour type, compression, filter, interlace

  std::string png("\x89PNG\r\n\x1a\n", 8);
  appendChunk(png, "IHDR", ihdr);
  appendChunk(png, "IDAT", idat);
  appendChunk(png, "IEND", std::string());
  return png;
}

}  // namespace tbench
