#include "engine/monitors/ImageFileWriter.h"

#include <filesystem>

#include "engine/core/AtomicFile.h"
#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/PngEncoder.h"

namespace tbench {

namespace fs = std::filesystem;

std::string sanitizedImageName(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (const char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '_';
    out.push_back(safe ? c : '_');
  }
  for (char& c : out) {
    if (c != '.') break;
    c = '_';
  }
  return out.empty() ? "image" : out;
}

ImageFileWriter::ImageFileWriter(std::string dir) : dir_(std::move(dir)) {}

void ImageFileWriter::onSetupGraph() {
  if (dir_.empty()) {
    TB_CHECK(!context().runDir().empty(), "ImageFileWriter needs a directory or a run directory");
    dir_ = context().runDir();
  }
}

void ImageFileWriter::onBeforeTrain() {
  // Every training run starts afresh: a failure or the folders of an earlier run do not carry.
  failed_ = false;
  written_ = 0;
  folders_.clear();
  taken_.clear();
}

std::string ImageFileWriter::pathFor(const std::string& name, const MetricStamp& stamp) {
  auto found = folders_.find(name);
  if (found == folders_.end()) {
    const std::string base = sanitizedImageName(name);
    std::string folder = base;
    for (int n = 2; taken_.count(folder) != 0; ++n) folder = str(base, "-", n);
    taken_.insert(folder);
    found = folders_.emplace(name, folder).first;
  }
  return (fs::path(dir_) / kFolder / found->second /
          str("epoch-", stamp.epochNum, "-step-", stamp.globalStep, ".png"))
      .string();
}

void ImageFileWriter::processImage(const std::string& name, const ImageData& image,
                                   const MetricStamp& stamp) {
  // Encode first, so that a malformed image is reported even after a write failure.
  const std::string png = encodePng(image);
  if (failed_) return;
  const std::string path = pathFor(name, stamp);
  try {
    fs::create_directories(fs::path(path).parent_path());
    writeFileAtomically(path, png);
    ++written_;
  } catch (const std::exception& e) {
    failed_ = true;
    TB_LOG(Error) << "images are not written for the rest of the run: " << path << ": " << e.what();
  }
}

}  // namespace tbench
