#include "engine/monitors/TensorBoardWriter.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "engine/core/Check.h"
#include "engine/core/Logging.h"
#include "engine/monitors/Crc32c.h"
#include "engine/monitors/PngEncoder.h"

namespace tbench {

namespace {

constexpr size_t kHeaderBytes = 8 + 4;  // length, masked CRC of the length
constexpr size_t kFooterBytes = 4;      // masked CRC of the data

void storeLittleEndian(char* at, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) at[i] = static_cast<char>(value >> (8 * i));
}

/// The protocol-buffer wire format of tensorboard/event.proto's messages, written by hand so
/// that the engine needs no libprotobuf (LibTorch's pip package ships an older protobuf's
/// headers under torch/include, which shadow the system's wherever both are on the include
/// path). Proto3 rules: a plain field at its default value is left out, a field of a oneof is
/// written whenever it is set. tests/engine/monitors/test_TensorBoardWriter parses the output
/// with libprotobuf's generated classes and read_events.py with Python's protobuf.
class ProtoWriter {
 public:
  explicit ProtoWriter(std::string& out) : out_(out) {}

  void varintField(int field, int64_t value) {
    if (value == 0) return;
    tag(field, 0);
    varint(static_cast<uint64_t>(value));  // negative: ten bytes, as protobuf writes int32/64
  }
  void doubleField(int field, double value) {
    if (value == 0.0) return;
    tag(field, 1);
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    fixed(bits, 8);
  }
  /// A float of a oneof: written even when zero.
  void floatOneofField(int field, float value) {
    tag(field, 5);
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    fixed(bits, 4);
  }
  void bytesField(int field, const std::string& bytes, bool inOneof = false) {
    if (bytes.empty() && !inOneof) return;
    tag(field, 2);
    varint(bytes.size());
    out_.append(bytes);
  }
  /// A sub-message: `write` fills it; its length prefix is put in front afterwards.
  template <typename Body>
  void messageField(int field, Body&& write) {
    std::string body;
    ProtoWriter inner(body);
    write(inner);
    bytesField(field, body, /*inOneof=*/true);
  }

 private:
  void tag(int field, int wireType) { varint(static_cast<uint64_t>(field) << 3 | wireType); }
  void varint(uint64_t value) {
    while (value >= 0x80) {
      out_.push_back(static_cast<char>(value | 0x80));
      value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
  }
  void fixed(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>(value >> (8 * i)));
  }

  std::string& out_;
};

// Field numbers of tensorboard/event.proto.
enum EventField { kWallTime = 1, kStep = 2, kFileVersionField = 3, kSummary = 5 };
enum SummaryField { kValue = 1 };
enum ValueField { kTag = 1, kSimpleValue = 2, kImage = 4 };
enum ImageField { kHeight = 1, kWidth = 2, kColorspace = 3, kEncodedImageString = 4 };

/// An Event stamped with `stamp` holding one Summary.Value tagged `tag`, whose value
/// `writeValue` adds (simple_value or image), appended to `out`.
template <typename WriteValue>
void encodeSummaryEvent(std::string& out, const MetricStamp& stamp, const std::string& tag,
                        WriteValue&& writeValue) {
  ProtoWriter event(out);
  event.doubleField(kWallTime, stamp.wallTime);
  event.varintField(kStep, stamp.globalStep);
  event.messageField(kSummary, [&](ProtoWriter& summary) {
    summary.messageField(kValue, [&](ProtoWriter& entry) {
      entry.bytesField(kTag, tag);
      writeValue(entry);
    });
  });
}

/// Frames the serialized Event `data` as one TFRecord into `record`. Resizing, not
/// reallocating, keeps the per-scalar cost at one encoding and two CRCs of a few dozen bytes.
void frameRecord(const std::string& data, std::string& record) {
  const size_t size = data.size();
  record.resize(kHeaderBytes + size + kFooterBytes);
  char* header = record.data();
  storeLittleEndian(header, size, 8);
  storeLittleEndian(header + 8, maskCrc32c(crc32c(header, 8)), 4);
  char* body = header + kHeaderBytes;
  std::memcpy(body, data.data(), size);
  storeLittleEndian(body + size, maskCrc32c(crc32c(body, size)), 4);
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

TensorBoardWriter::TensorBoardWriter(std::string dir) : dir_(std::move(dir)) {}

TensorBoardWriter::~TensorBoardWriter() { close(); }

void TensorBoardWriter::onSetupGraph() {
  if (dir_.empty()) {
    TB_CHECK(!context().runDir().empty(), "TensorBoardWriter needs a directory or a run directory");
    dir_ = context().runDir();
  }
}

void TensorBoardWriter::processScalar(const std::string& name, double value,
                                      const MetricStamp& stamp) {
  lastStep_ = stamp.globalStep;
  if (!ready()) return;
  event_.clear();
  encodeSummaryEvent(event_, stamp, name, [&](ProtoWriter& entry) {
    entry.floatOneofField(kSimpleValue, static_cast<float>(value));
  });
  frameRecord(event_, record_);
  write(record_);
}

void TensorBoardWriter::processImage(const std::string& name, const ImageData& image,
                                     const MetricStamp& stamp) {
  // Encode first, so that a malformed image is reported whether or not the file is writable.
  std::string png = encodePng(image);
  lastStep_ = stamp.globalStep;
  if (!ready()) return;
  std::string data;
  encodeSummaryEvent(data, stamp, name, [&](ProtoWriter& entry) {
    entry.messageField(kImage, [&](ProtoWriter& encoded) {
      encoded.varintField(kHeight, image.height);
      encoded.varintField(kWidth, image.width);
      // TensorFlow's colorspace: 1 gray, 3 RGB, 4 RGBA
      encoded.varintField(kColorspace, image.channels);
      encoded.bytesField(kEncodedImageString, png);
    });
  });
  // A local buffer: record_ is sized for scalars and should not keep an image's capacity.
  std::string record;
  frameRecord(data, record);
  write(record);
}

void TensorBoardWriter::onBeforeTrain() {
  lastStep_ = flushedStep_ = context().globalStep();
  ready();
}

void TensorBoardWriter::onAfterTrain() {
  close();
  if (!failed_) return;
  failed_ = false;  // the next run starts a new file
  throw std::runtime_error(str(path_, " lacks the TensorBoard events from global step ",
                               failedFrom_, " on: ", failure_));
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
      failedFrom_ = flushedStep_ + 1;  // nothing of this run is in it
      return false;
    }
    path_ = str(base, ".", suffix);
  }
  event_.clear();
  ProtoWriter header(event_);
  header.doubleField(kWallTime, secondsSinceEpoch());
  header.bytesField(kFileVersionField, kFileVersion, /*inOneof=*/true);
  frameRecord(event_, record_);
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
  if (file_) flushedStep_ = lastStep_;
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
  failure_ = reason;
  failedFrom_ = flushedStep_;  // what was in stdio's buffer is lost too
  if (file_) std::fclose(std::exchange(file_, nullptr));
}

}  // namespace tbench
