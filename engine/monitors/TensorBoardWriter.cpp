#include "engine/monitors/TensorBoardWriter.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <utility>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/Crc32c.h"
#include "engine/monitors/PngEncoder.h"
#include "tensorboard/event.pb.h"

namespace tbench {

namespace {

constexpr size_t kHeaderBytes = 8 + 4;  // length, masked CRC of the length
constexpr size_t kFooterBytes = 4;      // masked CRC of the data

void storeLittleEndian(char* at, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) at[i] = static_cast<char>(value >> (8 * i));
}

/// Serializes `message` into `record` as one TFRecord. Resizing, not reallocating, keeps the
/// per-scalar cost at one serialization and two CRCs of a few dozen bytes.
void frameRecord(const google::protobuf::MessageLite& message, std::string& record) {
  const size_t size = message.ByteSizeLong();
  record.resize(kHeaderBytes + size + kFooterBytes);
  char* header = record.data();
  storeLittleEndian(header, size, 8);
  storeLittleEndian(header + 8, maskCrc32c(crc32c(header, 8)), 4);
  char* data = header + kHeaderBytes;
  message.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(data));
  storeLittleEndian(data + size, maskCrc32c(crc32c(data, size)), 4);
}

double secondsSinceEpoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

struct TensorBoardWriter::Messages {
  /// An Event with one scalar Summary.Value; processScalar only overwrites its fields.
  tensorboard::Event scalar;
  tensorboard::Summary::Value* scalarValue = scalar.mutable_summary()->add_value();
};

TensorBoardWriter::TensorBoardWriter(std::string dir)
    : dir_(std::move(dir)), messages_(std::make_unique<Messages>()) {}

TensorBoardWriter::~TensorBoardWriter() { close(); }

void TensorBoardWriter::onSetupGraph() {
  if (dir_.empty()) {
    TB_CHECK(!context().runDir().empty(), "TensorBoardWriter needs a directory or a run directory");
    dir_ = context().runDir();
  }
}

void TensorBoardWriter::processScalar(const std::string& name, double value,
                                      const MetricStamp& stamp) {
  if (!ready()) return;
  messages_->scalar.set_wall_time(stamp.wallTime);
  messages_->scalar.set_step(stamp.globalStep);
  messages_->scalarValue->set_tag(name);
  messages_->scalarValue->set_simple_value(static_cast<float>(value));
  frameRecord(messages_->scalar, record_);
  write(record_);
}

void TensorBoardWriter::processImage(const std::string& name, const ImageData& image,
                                     const MetricStamp& stamp) {
  // Encode first, so that a malformed image is reported whether or not the file is writable.
  std::string png = encodePng(image);
  if (!ready()) return;
  tensorboard::Event event;
  event.set_wall_time(stamp.wallTime);
  event.set_step(stamp.globalStep);
  tensorboard::Summary::Value* value = event.mutable_summary()->add_value();
  value->set_tag(name);
  tensorboard::Summary::Image* encoded = value->mutable_image();
  encoded->set_height(image.height);
  encoded->set_width(image.width);
  encoded->set_colorspace(image.channels);  // TensorFlow's colorspace: 1 gray, 3 RGB, 4 RGBA
  encoded->set_encoded_image_string(std::move(png));
  // A local buffer: record_ is sized for scalars and should not keep an image's capacity.
  std::string record;
  frameRecord(event, record);
  write(record);
}

void TensorBoardWriter::onAfterTrain() {
  close();
  failed_ = false;  // the next run starts a new file
}

bool TensorBoardWriter::open() {
  std::error_code ignored;  // a directory that cannot be created shows up as fopen's error
  std::filesystem::create_directories(dir_, ignored);
  char name[320];
  std::snprintf(name, sizeof(name), "events.out.tfevents.%010lld.%s",
                static_cast<long long>(std::time(nullptr)), hostname().c_str());
  const std::string base = (std::filesystem::path(dir_) / name).string();
  // Two runs started in the same second on one host would get the same name; "x" never
  // truncates an existing file, and TensorBoard reads every file whose name has "tfevents".
  path_ = base;
  for (int suffix = 1; (file_ = std::fopen(path_.c_str(), "wbx")) == nullptr; ++suffix) {
    if (errno != EEXIST || suffix > 100) {
      fail(str("cannot create: ", std::strerror(errno)));
      return false;
    }
    path_ = str(base, ".", suffix);
  }
  tensorboard::Event header;
  header.set_wall_time(secondsSinceEpoch());
  header.set_file_version(kFileVersion);
  frameRecord(header, record_);
  write(record_);
  flush();  // a valid file from the start, even if the run dies before its first epoch ends
  return file_ != nullptr;
}

void TensorBoardWriter::write(const std::string& record) {
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size()) {
    fail(str("cannot write: ", std::strerror(errno)));
  }
}

void TensorBoardWriter::flush() {
  if (file_ && std::fflush(file_) != 0) fail(str("cannot write: ", std::strerror(errno)));
}

void TensorBoardWriter::close() {
  if (!file_) return;
  if (std::fclose(std::exchange(file_, nullptr)) != 0) {
    fail(str("cannot write: ", std::strerror(errno)));
  }
}

void TensorBoardWriter::fail(const std::string& reason) {
  TB_LOG(Error) << "TensorBoard events are not written for the rest of the run: " << path_ << ": "
                << reason;
  failed_ = true;
  if (file_) std::fclose(std::exchange(file_, nullptr));
}

}  // namespace tbench
