#include "engine/data/formats/ImageDecode.h"

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE and size_t declared first
#include <jpeglib.h>
#include <jerror.h>
// clang-format on
#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstring>
#include <memory>

#include "engine/core/Check.h"

namespace tbench {

// Note [Decoding through longjmp]
// libpng and libjpeg report a fatal error by calling a handler that must not return. Throwing
// a C++ exception through their C frames is undefined, so the handlers longjmp back to a
// setjmp in this file. A longjmp skips destructors, so the functions that call setjmp
// (pngHeader, pngPixels, jpegHeader, jpegPixels) own no C++ object: everything they touch
// lives in a job struct of their caller, which allocates the pixels between the phases and
// destroys the libraries' structs with a guard. Each phase sets its own setjmp, since a jump
// buffer is only valid while the function that filled it runs.

namespace {

// Images larger than this many pixels are refused (a corrupt header must not ask for
// gigabytes).
constexpr int64_t kMaxPixels = int64_t{1} << 28;

const uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

bool isPng(const uint8_t* data, size_t size) {
  return size >= 8 && std::memcmp(data, kPngSignature, 8) == 0;
}
bool isJpeg(const uint8_t* data, size_t size) {
  return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

[[noreturn]] void fail(const std::string& name, const std::string& reason) {
  throw InputError(str(name, ": ", reason));
}

void checkPixels(const std::string& name, int64_t height, int64_t width) {
  if (height <= 0 || width <= 0) fail(name, str("the header gives a size of ", width, "x", height));
  if (height * width > kMaxPixels) {
    fail(name, str("the image is ", width, "x", height, ", larger than the limit of ", kMaxPixels,
                   " pixels"));
  }
}

// ---- PNG

struct PngJob {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t offset = 0;
  png_structp png = nullptr;
  png_infop info = nullptr;
  png_bytep* rows = nullptr;
  char message[256] = "";
  png_uint_32 width = 0, height = 0;
  int channels = 0;
};

void pngError(png_structp png, png_const_charp message) {
  auto* job = static_cast<PngJob*>(png_get_error_ptr(png));
  std::snprintf(job->message, sizeof job->message, "%s", message);
  longjmp(png_jmpbuf(png), 1);
}

void pngWarning(png_structp, png_const_charp) {}  // libpng would print them to stderr

void pngRead(png_structp png, png_bytep out, size_t length) {
  auto* job = static_cast<PngJob*>(png_get_io_ptr(png));
  if (job->size - job->offset < length) {
    png_error(png, "truncated: the file ends before the image does");
  }
  std::memcpy(out, job->data + job->offset, length);
  job->offset += length;
}

/// Creates the structs, reads the header and sets the transforms (Note [Decoding through
/// longjmp]). False with job.message on error.
bool pngHeader(PngJob& job) {
  job.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, pngError, pngWarning);
  if (job.png == nullptr) return false;
  job.info = png_create_info_struct(job.png);
  if (job.info == nullptr) return false;
  if (setjmp(png_jmpbuf(job.png))) return false;
  png_set_read_fn(job.png, &job, pngRead);
  png_read_info(job.png, job.info);
  const int colorType = png_get_color_type(job.png, job.info);
  const int bitDepth = png_get_bit_depth(job.png, job.info);
  if (bitDepth == 16) png_set_strip_16(job.png);
  if (colorType == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(job.png);
  if (colorType == PNG_COLOR_TYPE_GRAY && bitDepth < 8) png_set_expand_gray_1_2_4_to_8(job.png);
  if (colorType & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(job.png);
  png_set_interlace_handling(job.png);
  png_read_update_info(job.png, job.info);
  job.width = png_get_image_width(job.png, job.info);
  job.height = png_get_image_height(job.png, job.info);
  job.channels = png_get_channels(job.png, job.info);
  return true;
}

/// Reads the rows into job.rows and the rest of the file.
bool pngPixels(PngJob& job) {
  if (setjmp(png_jmpbuf(job.png))) return false;
  png_read_image(job.png, job.rows);
  png_read_end(job.png, nullptr);
  return true;
}

struct PngGuard {
  PngJob& job;
  ~PngGuard() {
    if (job.png != nullptr) png_destroy_read_struct(&job.png, &job.info, nullptr);
  }
};

void decodePng(const uint8_t* data, size_t size, const std::string& name, DecodedImage* out,
               ImageInfo* info) {
  PngJob job;
  job.data = data;
  job.size = size;
  PngGuard guard{job};
  if (!pngHeader(job)) fail(name, str("not a readable PNG: ", job.message));
  checkPixels(name, job.height, job.width);
  if (job.channels != 1 && job.channels != 3) {
    fail(name, str("PNG with ", job.channels, " channels after conversion (expected 1 or 3)"));
  }
  if (info != nullptr) *info = {int64_t(job.height), int64_t(job.width), job.channels};
  if (out == nullptr) return;
  out->height = job.height;
  out->width = job.width;
  out->channels = job.channels;
  const size_t rowBytes = size_t(job.width) * size_t(job.channels);
  if (png_get_rowbytes(job.png, job.info) != rowBytes) {
    fail(name, "unexpected PNG row layout after conversion");
  }
  out->pixels.resize(rowBytes * job.height);
  std::vector<png_bytep> rows(job.height);
  for (png_uint_32 y = 0; y < job.height; ++y) rows[y] = out->pixels.data() + y * rowBytes;
  job.rows = rows.data();
  if (!pngPixels(job)) fail(name, str("corrupt PNG: ", job.message));
}

// ---- JPEG

struct JpegErrorManager {
  jpeg_error_mgr base;  // first: libjpeg sees a jpeg_error_mgr*
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpegErrorExit(j_common_ptr cinfo) {
  auto* manager = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, manager->message);
  longjmp(manager->jump, 1);
}

// A file that ends early makes libjpeg warn and fill the rest with grey; PIL refuses it as
// truncated, and so do we. Other warnings (extraneous bytes) decode as PIL decodes them.
void jpegEmitMessage(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) jpegErrorExit(cinfo);
}

void jpegOutputMessage(j_common_ptr) {}  // libjpeg would print to stderr

struct JpegJob {
  jpeg_decompress_struct cinfo;
  JpegErrorManager error;
  bool created = false;
  bool cmyk = false;
  JSAMPROW* rows = nullptr;
};

bool jpegHeader(JpegJob& job, const uint8_t* data, size_t size, bool start) {
  job.cinfo.err = jpeg_std_error(&job.error.base);
  job.error.base.error_exit = jpegErrorExit;
  job.error.base.emit_message = jpegEmitMessage;
  job.error.base.output_message = jpegOutputMessage;
  job.error.message[0] = '\0';
  if (setjmp(job.error.jump)) return false;
  jpeg_create_decompress(&job.cinfo);
  job.created = true;
  jpeg_mem_src(&job.cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&job.cinfo, TRUE);
  const J_COLOR_SPACE space = job.cinfo.jpeg_color_space;
  if (space == JCS_CMYK || space == JCS_YCCK) {
    job.cmyk = true;
    return true;
  }
  job.cinfo.out_color_space = job.cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  if (start) jpeg_start_decompress(&job.cinfo);
  return true;
}

bool jpegPixels(JpegJob& job) {
  if (setjmp(job.error.jump)) return false;
  while (job.cinfo.output_scanline < job.cinfo.output_height) {
    jpeg_read_scanlines(&job.cinfo, job.rows + job.cinfo.output_scanline,
                        job.cinfo.output_height - job.cinfo.output_scanline);
  }
  jpeg_finish_decompress(&job.cinfo);
  return true;
}

struct JpegGuard {
  JpegJob& job;
  ~JpegGuard() {
    if (job.created) jpeg_destroy_decompress(&job.cinfo);
  }
};

void decodeJpeg(const uint8_t* data, size_t size, const std::string& name, DecodedImage* out,
                ImageInfo* info) {
  JpegJob job;
  JpegGuard guard{job};
  if (!jpegHeader(job, data, size, out != nullptr)) {
    fail(name, job.error.base.msg_code == JWRN_JPEG_EOF
                   ? std::string("truncated: the file ends before the image does")
                   : str("not a readable JPEG: ", job.error.message));
  }
  if (job.cmyk) fail(name, "CMYK JPEG images are not supported (convert them to RGB)");
  const int channels = job.cinfo.num_components == 1 ? 1 : 3;
  if (info != nullptr) {
    checkPixels(name, job.cinfo.image_height, job.cinfo.image_width);
    *info = {int64_t(job.cinfo.image_height), int64_t(job.cinfo.image_width), channels};
  }
  if (out == nullptr) return;
  checkPixels(name, job.cinfo.output_height, job.cinfo.output_width);
  if (job.cinfo.output_components != channels) {
    fail(name, str("JPEG decoded to ", job.cinfo.output_components, " channels"));
  }
  out->height = job.cinfo.output_height;
  out->width = job.cinfo.output_width;
  out->channels = channels;
  const size_t rowBytes = size_t(out->width) * channels;
  out->pixels.resize(rowBytes * out->height);
  std::vector<JSAMPROW> rows(out->height);
  for (int64_t y = 0; y < out->height; ++y) rows[y] = out->pixels.data() + y * rowBytes;
  job.rows = rows.data();
  if (!jpegPixels(job)) {
    const bool truncated = job.error.base.msg_code == JWRN_JPEG_EOF;
    fail(name, truncated ? std::string("truncated: the file ends before the image does")
                         : str("corrupt JPEG: ", job.error.message));
  }
}

// ---- files

/// The bytes of `path`, in a buffer reused by the calling thread.
const std::vector<uint8_t>& readFileBytes(const std::string& path) {
  thread_local std::vector<uint8_t> buffer;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) fail(path, str("cannot be read (", std::strerror(errno), ")"));
  buffer.clear();
  uint8_t chunk[65536];
  size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) {
    buffer.insert(buffer.end(), chunk, chunk + got);
  }
  if (std::ferror(file.get())) fail(path, "read error");
  return buffer;
}

void decodeAny(const uint8_t* data, size_t size, const std::string& name, DecodedImage* out,
               ImageInfo* info) {
  if (size == 0) fail(name, "empty file");
  if (isPng(data, size)) return decodePng(data, size, name, out, info);
  if (isJpeg(data, size)) return decodeJpeg(data, size, name, out, info);
  fail(name, "not a PNG or JPEG image (unknown first bytes)");
}

}  // namespace

DecodedImage decodeImage(const uint8_t* data, size_t size, const std::string& name) {
  DecodedImage image;
  decodeAny(data, size, name, &image, nullptr);
  return image;
}

DecodedImage decodeImageFile(const std::string& path) {
  const std::vector<uint8_t>& bytes = readFileBytes(path);
  return decodeImage(bytes.data(), bytes.size(), path);
}

ImageInfo readImageInfo(const std::string& path) {
  const std::vector<uint8_t>& bytes = readFileBytes(path);
  ImageInfo info;
  decodeAny(bytes.data(), bytes.size(), path, nullptr, &info);
  return info;
}

void convertChannels(DecodedImage& image, int64_t channels) {
  TB_CHECK(channels == 1 || channels == 3, "channels must be 1 or 3, got ", channels);
  TB_CHECK(image.channels == 1 || image.channels == 3, "an image of ", image.channels, " channels");
  if (image.channels == channels) return;
  const size_t count = size_t(image.height * image.width);
  std::vector<uint8_t> converted(count * channels);
  const uint8_t* in = image.pixels.data();
  uint8_t* out = converted.data();
  if (channels == 1) {
    for (size_t i = 0; i < count; ++i, in += 3) {
      out[i] = uint8_t((in[0] * 19595u + in[1] * 38470u + in[2] * 7471u + 0x8000u) >> 16);
    }
  } else {
    for (size_t i = 0; i < count; ++i, out += 3) out[0] = out[1] = out[2] = in[i];
  }
  image.pixels = std::move(converted);
  image.channels = channels;
}

}  // namespace tbench
