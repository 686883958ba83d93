// The IDX reader on Debian's real Fashion-MNIST files and on damaged copies of them.
//
// The expected values were computed once from the real files with python3's gzip module
// (labels, class counts, pixel sums); they are facts about the data, not about this reader.

#include <QtTest/QtTest>

#include <torch/torch.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Check.h"
#include "engine/data/datasets/FashionMnist.h"
#include "engine/data/formats/IdxFile.h"
#include "tests/support/ExpectError.h"
#include "tests/support/TestMain.h"

// The file's names, apart from the other tests of its group executable (tb_test's GROUP).
namespace test_IdxFile {

using namespace tbench;

using tbench::testing::messageOf;

namespace {

const std::string kDir = "/usr/share/datasets/fashion-mnist/";
const std::string kTrainImages = kDir + "train-images-idx3-ubyte.gz";
const std::string kTrainLabels = kDir + "train-labels-idx1-ubyte.gz";
const std::string kTestImages = kDir + "t10k-images-idx3-ubyte.gz";
const std::string kTestLabels = kDir + "t10k-labels-idx1-ubyte.gz";

using Bytes = std::string;

Bytes readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Bytes gunzip(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  Bytes bytes;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(in, buffer, sizeof(buffer))) > 0) bytes.append(buffer, n);
  gzclose(in);
  return bytes;
}

void writeGzip(const std::string& path, const Bytes& bytes) {
  gzFile out = gzopen(path.c_str(), "wb6");
  gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(out);
}

Bytes gzipBytes(const std::string& scratchPath, const Bytes& bytes) {
  writeGzip(scratchPath, bytes);
  return readBytes(scratchPath);
}

Bytes bigEndian32(uint32_t v) {
  return Bytes{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
               static_cast<char>(v)};
}

Bytes idxHeader(uint8_t type, const std::vector<uint32_t>& dims) {
  Bytes header{0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims) header += bigEndian32(d);
  return header;
}

// Reading `path` must throw InputError naming the path and containing every one of `parts`.
#define EXPECT_INPUT_ERROR(expression, path, ...)                             \
  do {                                                                        \
    const auto message_ = messageOf<InputError>([&] { (void)(expression); }); \
    QVERIFY2(message_.has_value(), "no InputError thrown");                   \
    qInfo("%s", message_->c_str());                                           \
    QVERIFY2(message_->find(path) != std::string::npos, message_->c_str());   \
    for (const std::string& part_ : std::vector<std::string>{__VA_ARGS__}) {  \
      QVERIFY2(message_->find(part_) != std::string::npos,                    \
               (*message_ + "\n  does not contain: " + part_).c_str());       \
    }                                                                         \
  } while (false)

}  // namespace

class TestIdxFile : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  Bytes testLabels_;  // t10k labels, decompressed (10008 bytes)
  Bytes testImages_;  // t10k images, decompressed (7840016 bytes)

  std::string path(const char* name) const { return tmp_.filePath(name).toStdString(); }
  std::string write(const char* name, const Bytes& bytes) const {
    writeBytes(path(name), bytes);
    return path(name);
  }

  /// The real test labels with byte `offset` set to `value`.
  Bytes labelsWith(size_t offset, char value) const {
    Bytes bytes = testLabels_;
    bytes[offset] = value;
    return bytes;
  }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    testLabels_ = gunzip(kTestLabels);
    testImages_ = gunzip(kTestImages);
    QCOMPARE(testLabels_.size(), size_t{10008});
    QCOMPARE(testImages_.size(), size_t{7840016});
  }

  // ---- the real files ----

  void readsTheTrainingImages() {
    const auto start = std::chrono::steady_clock::now();
    const IdxArray images = readIdxFile(kTrainImages);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    qInfo("read 60000x28x28 from gzip in %.3f s", seconds);
    QVERIFY2(seconds < 3.0, "reading the training images is far too slow");

    QCOMPARE(images.dims, std::vector<int64_t>({60000, 28, 28}));
    QCOMPARE(images.data.sizes().vec(), images.dims);
    QCOMPARE(images.data.scalar_type(), torch::kUInt8);
    QVERIFY(images.data.is_contiguous());
    QVERIFY(images.header.compressed);
    QCOMPARE(images.header.typeCode, uint8_t{0x08});
    QCOMPARE(images.header.headerBytes, int64_t{16});
    QCOMPARE(images.header.payloadBytes, int64_t{47040000});
    const torch::Tensor wide = images.data.to(torch::kInt64);
    QCOMPARE(wide[0].sum().item<int64_t>(), int64_t{76247});
    QCOMPARE(wide[1].sum().item<int64_t>(), int64_t{84598});
    QCOMPARE(wide[59999].sum().item<int64_t>(), int64_t{16684});
    QCOMPARE(wide[0][14][14].item<int64_t>(), int64_t{217});
    QCOMPARE(wide.sum().item<int64_t>(), int64_t{3431114169});
  }

  void readsTheTrainingLabels() {
    const IdxArray labels = readIdxFile(kTrainLabels);
    QCOMPARE(labels.dims, std::vector<int64_t>({60000}));
    QCOMPARE(labels.header.headerBytes, int64_t{8});
    const torch::Tensor wide = labels.data.to(torch::kInt64);
    QVERIFY(torch::equal(wide.narrow(0, 0, 10),
                         torch::tensor({9, 0, 0, 3, 0, 2, 7, 2, 5, 5}, torch::kInt64)));
    QCOMPARE(wide[59999].item<int64_t>(), int64_t{5});
    QVERIFY(torch::equal(wide.bincount(), torch::full({10}, 6000, torch::kInt64)));
  }

  void readsTheTestSet() {
    const IdxArray images = readIdxFile(kTestImages);
    const IdxArray labels = readIdxFile(kTestLabels);
    QCOMPARE(images.dims, std::vector<int64_t>({10000, 28, 28}));
    QCOMPARE(labels.dims, std::vector<int64_t>({10000}));
    QCOMPARE(images.data[0].to(torch::kInt64).sum().item<int64_t>(), int64_t{33456});
    QCOMPARE(images.data[0][14][14].item<uint8_t>(), uint8_t{110});
    const torch::Tensor wide = labels.data.to(torch::kInt64);
    QVERIFY(torch::equal(wide.narrow(0, 0, 10),
                         torch::tensor({9, 2, 1, 1, 6, 1, 4, 6, 5, 7}, torch::kInt64)));
    QVERIFY(torch::equal(wide.bincount(), torch::full({10}, 1000, torch::kInt64)));
  }

  void readsOnlyTheHeader() {
    const IdxHeader header = readIdxHeader(kTrainImages);
    QCOMPARE(header.dims, std::vector<int64_t>({60000, 28, 28}));
    QCOMPARE(header.payloadBytes, int64_t{47040000});
    QVERIFY(header.compressed);
  }

  void plainAndGzipGiveTheSameArray() {
    const std::string plain = write("t10k-images-idx3-ubyte", testImages_);
    const IdxArray fromPlain = readIdxFile(plain);
    QVERIFY(!fromPlain.header.compressed);
    QVERIFY(torch::equal(fromPlain.data, readIdxFile(kTestImages).data));
  }

  void concatenatedGzipMembersAreOneStream() {
    const Bytes first = gzipBytes(path("part.gz"), testLabels_.substr(0, 5000));
    const Bytes second = gzipBytes(path("part.gz"), testLabels_.substr(5000));
    const std::string file = write("two-members.gz", first + second);
    const IdxArray labels = readIdxFile(file);
    QVERIFY(torch::equal(labels.data, readIdxFile(kTestLabels).data));
  }

  void convertsBigEndianElementTypes() {
    // int16: 1, -2, 300
    const Bytes int16 = idxHeader(0x0B, {3}) + Bytes{0, 1, '\xff', '\xfe', 1, 44};
    const IdxArray a = readIdxFile(write("int16", int16));
    QCOMPARE(a.data.scalar_type(), torch::kInt16);
    QVERIFY(torch::equal(a.data, torch::tensor({1, -2, 300}, torch::kInt16)));
    // int32 [2, 1]: 70000, -1
    const Bytes int32 = idxHeader(0x0C, {2, 1}) + bigEndian32(70000) + bigEndian32(0xffffffffu);
    const IdxArray b = readIdxFile(write("int32", int32));
    QVERIFY(torch::equal(b.data, torch::tensor({70000, -1}, torch::kInt32).view({2, 1})));
    // float32: 1.5 (0x3fc00000), float64: -0.25 (0xbfd0000000000000)
    const IdxArray c =
        readIdxFile(write("float32", idxHeader(0x0D, {1}) + bigEndian32(0x3fc00000)));
    QCOMPARE(c.data.scalar_type(), torch::kFloat32);
    QCOMPARE(c.data[0].item<float>(), 1.5f);
    const IdxArray d = readIdxFile(
        write("float64", idxHeader(0x0E, {1}) + bigEndian32(0xbfd00000) + bigEndian32(0)));
    QCOMPARE(d.data.scalar_type(), torch::kFloat64);
    QCOMPARE(d.data[0].item<double>(), -0.25);
    // signed byte
    const IdxArray e = readIdxFile(write("int8", idxHeader(0x09, {2}) + Bytes{'\x80', 5}));
    QVERIFY(torch::equal(e.data, torch::tensor({-128, 5}, torch::kInt8)));
  }

  // ---- damaged files ----

  void missingFileAndDirectory() {
    const std::string missing = path("no-such-file");
    EXPECT_INPUT_ERROR(readIdxFile(missing), missing, "cannot open");
    const std::string dir = tmp_.path().toStdString();
    EXPECT_INPUT_ERROR(readIdxFile(dir), dir, "directory");
  }

  void truncatedPlainFile() {
    const std::string file = path("cut-labels");
    // Inside the magic, inside the dimensions, right after the header, inside the data.
    for (size_t cut :
         {size_t{0}, size_t{2}, size_t{5}, size_t{8}, size_t{9}, size_t{5000}, size_t{10007}}) {
      writeBytes(file, testLabels_.substr(0, cut));
      const auto message = messageOf<InputError>([&] { readIdxFile(file); });
      QVERIFY2(message.has_value(), std::to_string(cut).c_str());
      QVERIFY2(message->find(file) != std::string::npos, message->c_str());
      QVERIFY2(
          message->find("truncated at byte offset " + std::to_string(cut)) != std::string::npos,
          message->c_str());
      QVERIFY2(message->find("(decompressed)") == std::string::npos, message->c_str());
    }
    writeBytes(file, testLabels_.substr(0, 5000));
    EXPECT_INPUT_ERROR(readIdxFile(file), file,
                       "expected 10000 bytes of data (10000 elements of type 0x08 (unsigned "
                       "byte)) after the 8-byte header, found 4992");
    // The images: cut inside the 16-byte header and inside the data.
    const std::string images = path("cut-images");
    writeBytes(images, testImages_.substr(0, 12));
    EXPECT_INPUT_ERROR(readIdxFile(images), images, "truncated at byte offset 12",
                       "expected 3 dimension sizes (12 bytes)", "found 8 bytes");
    writeBytes(images, testImages_.substr(0, 1234));
    EXPECT_INPUT_ERROR(readIdxFile(images), images, "truncated at byte offset 1234",
                       "expected 7840000 bytes", "found 1218");
    EXPECT_INPUT_ERROR(IdxClassificationData(images, kTestLabels).resetState(), images,
                       "truncated at byte offset 1234");
  }

  void truncatedGzipFile() {
    const Bytes compressed = readBytes(kTestImages);
    const std::string file = path("cut-images.gz");
    writeBytes(file, compressed.substr(0, compressed.size() / 2));
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "truncated at byte offset", "(decompressed)",
                       "expected 7840000 bytes of data", "the gzip stream itself is cut off");
    // Only the 8-byte trailer (CRC and size) is missing: all data is there but unverified.
    writeBytes(file, compressed.substr(0, compressed.size() - 8));
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "cut off at compressed byte offset",
                       "decompressed byte offset 7840016");
    // Inside the gzip header: nothing decompresses at all.
    writeBytes(file, compressed.substr(0, 5));
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "truncated at byte offset 0 (decompressed)");
    EXPECT_INPUT_ERROR(readIdxHeader(file), file, "truncated at byte offset 0 (decompressed)");
  }

  void wrongMagic() {
    const Bytes bytes = labelsWith(1, 0x12);
    const std::string file = write("bad-magic", bytes);
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "bad magic number at byte offset 0",
                       "expected 0x00 0x00, found 0x00 0x12");
    const std::string gz = path("bad-magic.gz");
    writeGzip(gz, bytes);
    EXPECT_INPUT_ERROR(readIdxFile(gz), gz, "byte offset 0 (decompressed)");
  }

  void wrongTypeCode() {
    const std::string file = write("bad-type", labelsWith(2, 0x07));
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "unsupported element type at byte offset 2",
                       "found 0x07");
  }

  void wrongNumberOfDimensions() {
    for (char dims : {char{0}, char{5}}) {
      const std::string file = write("bad-dims", labelsWith(3, dims));
      EXPECT_INPUT_ERROR(readIdxFile(file), file, "at byte offset 3",
                         "expected 1 to 4, found " + std::to_string(dims));
    }
  }

  void zeroDimension() {
    Bytes bytes = testImages_.substr(0, 16);
    bytes.replace(8, 4, bigEndian32(0));
    const std::string file = write("zero-rows", bytes);
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "dimension 1 at byte offset 8 is 0");
  }

  void implausibleDimensions() {
    const std::string file =
        write("huge", idxHeader(0x08, {0xffffffffu, 0xffffffffu, 28}) + Bytes(100, '\0'));
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "implausible dimensions at byte offset 4");
    // Below the limit but far larger than the file: a truncation, found without allocating
    // the 15 GB the header claims.
    const std::string lying =
        write("lying", idxHeader(0x08, {20000000, 28, 28}) + Bytes(100, '\0'));
    EXPECT_INPUT_ERROR(readIdxFile(lying), lying, "truncated at byte offset 116",
                       "expected 15680000000 bytes", "found 100");
    const std::string lyingGz = path("lying.gz");
    writeGzip(lyingGz, idxHeader(0x08, {20000000, 28, 28}) + Bytes(100, '\0'));
    EXPECT_INPUT_ERROR(readIdxFile(lyingGz), lyingGz, "truncated at byte offset 116 (decompressed)",
                       "found 100");
  }

  void trailingGarbage() {
    const std::string file = write("trailing", testLabels_ + "xyz");
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "unexpected data at byte offset 10008",
                       "found 3 more bytes");
    const std::string gz = path("trailing.gz");
    writeGzip(gz, testLabels_ + "xyz");
    EXPECT_INPUT_ERROR(readIdxFile(gz), gz, "unexpected data at byte offset 10008 (decompressed)");
    // Junk after the gzip stream itself.
    const std::string junk = write("junk-after.gz", readBytes(kTestLabels) + "JUNK");
    EXPECT_INPUT_ERROR(readIdxFile(junk), junk, "after the end of the gzip stream",
                       "compressed byte offset 5125", "found 4 more bytes");
  }

  void corruptGzipData() {
    const Bytes compressed = readBytes(kTestLabels);
    const std::string file = path("corrupt.gz");
    // Damage the deflate data at several places; whatever zlib or the CRC notices first,
    // it must be a clear InputError, never a crash or silently wrong data.
    for (size_t at : {size_t{20}, size_t{100}, size_t{2000}, compressed.size() - 20}) {
      Bytes bytes = compressed;
      for (size_t i = at; i < at + 8; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
      writeBytes(file, bytes);
      const auto message = messageOf<InputError>([&] { readIdxFile(file); });
      QVERIFY2(message.has_value(), ("no InputError for damage at " + std::to_string(at)).c_str());
      QVERIFY2(message->find(file) != std::string::npos, message->c_str());
      QVERIFY2(message->find("offset") != std::string::npos, message->c_str());
      qInfo("damage at %zu: %s", at, message->c_str());
    }
    // A wrong CRC alone: the data decompresses, the check catches it.
    Bytes bytes = compressed;
    bytes[bytes.size() - 8] = static_cast<char>(bytes[bytes.size() - 8] ^ 1);
    writeBytes(file, bytes);
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "corrupt gzip data at compressed byte offset",
                       "incorrect data check");
    // A broken gzip header.
    bytes = compressed;
    bytes[2] = 9;  // compression method must be 8 (deflate)
    writeBytes(file, bytes);
    EXPECT_INPUT_ERROR(readIdxFile(file), file, "corrupt gzip data at compressed byte offset",
                       "unknown compression method");
  }

  void mismatchedImageAndLabelCounts() {
    EXPECT_INPUT_ERROR(IdxClassificationData(kTestImages, kTrainLabels), kTestImages,
                       "holds 10000 images", "holds 60000 labels", kTrainLabels,
                       "byte offset 4 (decompressed)");
  }

  void labelOutOfRange() {
    const std::string file = write("bad-label", labelsWith(8 + 1234, 10));
    const auto options = IdxClassificationData::Options().numClasses(10);
    EXPECT_INPUT_ERROR(IdxClassificationData(kTestImages, file, options), file,
                       "label 10 of sample 1234 at byte offset 1242 is out of range",
                       "expected 0 to 9");
    // Without numClasses the count is inferred from the labels.
    IdxClassificationData inferred(kTestImages, file);
    QCOMPARE(inferred.numClasses(), int64_t{11});
  }

  void wrongFileKinds() {
    EXPECT_INPUT_ERROR(IdxClassificationData(kTestLabels, kTestLabels), kTestLabels,
                       "wrong number of dimensions at byte offset 3 (decompressed)",
                       "expected 3 (images, rows, columns), found 1");
    EXPECT_INPUT_ERROR(IdxClassificationData(kTestImages, kTestImages), kTestImages,
                       "wrong number of dimensions at byte offset 3 (decompressed)",
                       "expected 1 (the label count), found 3");
    const std::string floats = write("float-labels", idxHeader(0x0D, {10000}) + Bytes(40000, 0));
    EXPECT_INPUT_ERROR(IdxClassificationData(kTestImages, floats), floats,
                       "unsupported label element type at byte offset 2");
  }
};

}  // namespace test_IdxFile

TB_TEST_APPLESS_MAIN(test_IdxFile::TestIdxFile)
#include "test_IdxFile.moc"
