#include "engine/checkpoint/ZipIntegrity.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "engine/core/Check.h"

namespace tbench {

uint32_t crc32(const uint8_t* data, size_t size) {
  // Slicing-by-8 (reflected polynomial 0xEDB88320), ~2 GB/s: a 40 MB checkpoint in ~20 ms.
  static const auto table = [] {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i) {
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  while (size >= 8) {
    uint32_t one, two;
    std::memcpy(&one, data, 4);
    std::memcpy(&two, data + 4, 4);
    one ^= crc;
    crc = table[7][one & 0xff] ^ table[6][(one >> 8) & 0xff] ^ table[5][(one >> 16) & 0xff] ^
          table[4][one >> 24] ^ table[3][two & 0xff] ^ table[2][(two >> 8) & 0xff] ^
          table[1][(two >> 16) & 0xff] ^ table[0][two >> 24];
    data += 8;
    size -= 8;
  }
  while (size--) crc = (crc >> 8) ^ table[0][(crc ^ *data++) & 0xff];
  return ~crc;
}

namespace {

/// Reads little-endian integers from a byte buffer; every read is bounds-checked.
class ZipBytes {
 public:
  ZipBytes(const char* data, size_t size)
      : data_(reinterpret_cast<const uint8_t*>(data)), size_(size) {}
  size_t size() const { return size_; }
  bool fits(uint64_t offset, uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }
  uint64_t read(uint64_t offset, int width) const {
    if (!fits(offset, width))
      throw std::runtime_error(str("record at byte ", offset, " is cut off"));
    uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i) value = (value << 8) | data_[offset + i];
    return value;
  }
  const uint8_t* at(uint64_t offset) const { return data_ + offset; }
  std::string text(uint64_t offset, uint64_t length) const {
    if (!fits(offset, length)) throw std::runtime_error("central directory cut off");
    return std::string(reinterpret_cast<const char*>(data_ + offset), length);
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace

std::optional<std::vector<ZipRecord>> verifyZipArchive(const char* data, size_t size) {
  const ZipBytes zip(data, size);
  constexpr uint32_t kEndSignature = 0x06054b50, kCentralSignature = 0x02014b50,
                     kLocalSignature = 0x04034b50;
  if (zip.size() < 22) throw std::runtime_error("no end-of-archive record");
  // The end record is the last 22 bytes plus a comment of at most 64 KiB.
  uint64_t end = zip.size() - 22;
  const uint64_t lowest = zip.size() > 22 + 65535 ? zip.size() - 22 - 65535 : 0;
  while (zip.read(end, 4) != kEndSignature || end + 22 + zip.read(end + 20, 2) != zip.size()) {
    if (end == lowest) throw std::runtime_error("no end-of-archive record (cut off?)");
    --end;
  }
  const uint64_t entries = zip.read(end + 10, 2);
  const uint64_t directory = zip.read(end + 16, 4);
  if (entries == 0xFFFF || directory == 0xFFFFFFFF) return std::nullopt;  // zip64: not walked
  std::vector<ZipRecord> records;
  uint64_t offset = directory;
  for (uint64_t i = 0; i < entries; ++i) {
    if (zip.read(offset, 4) != kCentralSignature) {
      throw std::runtime_error(str("central directory entry ", i, " is damaged"));
    }
    const uint64_t method = zip.read(offset + 10, 2);
    const uint64_t crc = zip.read(offset + 16, 4);
    const uint64_t stored = zip.read(offset + 20, 4);
    const uint64_t nameLength = zip.read(offset + 28, 2);
    const uint64_t local = zip.read(offset + 42, 4);
    const std::string name = zip.text(offset + 46, nameLength);
    if (stored == 0xFFFFFFFF || local == 0xFFFFFFFF) return std::nullopt;  // zip64 record
    // LibTorch's reader hands out uninitialised memory for a record flagged as a directory.
    if (zip.read(offset + 38, 4) & 0x10) {
      throw std::runtime_error(str(name, ": flagged as a directory"));
    }
    offset += 46 + nameLength + zip.read(offset + 30, 2) + zip.read(offset + 32, 2);
    records.push_back({name, method == 0, 0, 0});
    if (method != 0) continue;  // compressed: LibTorch never writes it, nothing to compare
    if (zip.read(local, 4) != kLocalSignature) {
      throw std::runtime_error(str(name, ": local header is damaged"));
    }
    const uint64_t begin = local + 30 + zip.read(local + 26, 2) + zip.read(local + 28, 2);
    if (!zip.fits(begin, stored)) throw std::runtime_error(str(name, " is cut off"));
    if (crc32(zip.at(begin), stored) != crc) throw std::runtime_error(str(name, ": CRC mismatch"));
    records.back().offset = begin;
    records.back().size = stored;
  }
  return records;
}

namespace {

/// The little-endian unsigned integer of `width` bytes at `p`.
uint64_t littleEndian(const uint8_t* p, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

// Note [Pickles LibTorch cannot take]: LibTorch 1.13's unpickler trusts its input. It allocates
// what a length prefix claims before reading it (a string of 4 GB from a 600-byte file),
// reserves memo room for a LONG_BINPUT's index (up to 2^32 entries), and pops its stack without
// checking it (TUPLE3 on an empty stack reads before the stack: a crash). pickleProblem walks
// the opcodes first, with their arguments and their effect on the stack and its marks, as the
// pickle format defines them; it stops at STOP, at the end, or at an opcode it does not know
// (the unpickler refuses those itself). All found by fuzz_checkpoint_file.
std::string pickleProblem(const std::string& name, const uint8_t* pickle, uint64_t size) {
  uint64_t at = 0;
  uint64_t depth = 0;           // values on the stack
  std::vector<uint64_t> marks;  // the depth at each MARK
  std::set<uint64_t> memo;      // the memo indices put
  const auto above = [&] { return depth - (marks.empty() ? 0 : marks.back()); };
  while (at < size) {
    const uint64_t opcode = at;
    const uint8_t op = pickle[at++];
    const auto bad = [&](const std::string& what) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", op);
      return str(name, ": opcode ", hex, " at byte ", opcode, " ", what);
    };
    int lengthWidth = 0;  // a length-prefixed argument: the width of its length
    int width = 0;        // a fixed-size argument
    int lines = 0;        // arguments ending in a newline
    uint64_t pops = 0;    // values it takes from above the top mark
    bool toMark = false;  // it takes every value above the top mark, and the mark
    uint64_t pushes = 1;
    switch (op) {
      case '.':  // STOP
        return depth == 0 ? bad("ends the pickle with nothing on the stack") : "";
      case 'X':
      case 'T':
      case 'B':
      case 0x8b:  // BINUNICODE, BINSTRING, BINBYTES, LONG4
        lengthWidth = 4;
        break;
      case 'U':
      case 'C':
      case 0x8c:
      case 0x8a:  // SHORT_BINSTRING, _BINBYTES, _BINUNICODE, LONG1
        lengthWidth = 1;
        break;
      case 0x8d:
      case 0x8e:  // BINUNICODE8, BINBYTES8
        lengthWidth = 8;
        break;
      case 'K':
      case 0x82:  // BININT1, EXT1
        width = 1;
        break;
      case 'h':
      case 'j':  // BINGET, LONG_BINGET: a memo index that was put
        width = op == 'h' ? 1 : 4;
        if (at + width <= size && memo.count(littleEndian(pickle + at, width)) == 0) {
          return bad(
              str("gets memo index ", littleEndian(pickle + at, width), ", which was never put"));
        }
        break;
      case 'M':
      case 0x83:  // BININT2, EXT2
        width = 2;
        break;
      case 'J':
      case 0x84:  // BININT, EXT4
        width = 4;
        break;
      case 'G':  // BINFLOAT
        width = 8;
        break;
      case 0x80:  // PROTO
        width = 1;
        pushes = 0;
        break;
      case 0x95:  // FRAME
        width = 8;
        pushes = 0;
        break;
      case 'q':
      case 'r':  // BINPUT, LONG_BINPUT (which reserves memo room for its index)
        width = op == 'q' ? 1 : 4;
        pops = 1;
        if (at + width <= size) {
          const uint64_t index = littleEndian(pickle + at, width);
          if (index > size) {
            return bad(
                str("puts memo index ", index, ", beyond what a pickle of ", size, " bytes holds"));
          }
          memo.insert(index);
        }
        break;
      case 'c':
      case 'i':  // GLOBAL; INST takes the values above the mark too
        lines = 2;
        toMark = op == 'i';
        break;
      case 'F':
      case 'I':
      case 'L':
      case 'S':
      case 'V':
      case 'g':
      case 'P':
        lines = 1;
        break;
      case 'p':  // PUT
        lines = 1;
        pops = 1;
        break;
      case 'N':
      case ']':
      case '}':
      case ')':
      case 0x88:
      case 0x89:
      case 0x8f:
        break;    // NONE, EMPTY_LIST, _DICT, _TUPLE, NEWTRUE, NEWFALSE, EMPTY_SET: push one
      case 0x94:  // MEMOIZE
        pops = 1;
        memo.insert(memo.size());
        break;
      case '(':  // MARK
        marks.push_back(depth);
        pushes = 0;
        break;
      case '0':  // POP
        pops = 1;
        pushes = 0;
        break;
      case '1':  // POP_MARK
        toMark = true;
        pushes = 0;
        break;
      case '2':  // DUP
        pops = 1;
        pushes = 2;
        break;
      case 'Q':
      case 0x85:  // BINPERSID, TUPLE1
        pops = 1;
        break;
      case 'R':
      case 0x86:
      case 0x81:
      case 0x93:  // REDUCE, TUPLE2, NEWOBJ, STACK_GLOBAL
        pops = 2;
        break;
      case 0x87:
      case 0x92:  // TUPLE3, NEWOBJ_EX
        pops = 3;
        break;
      case 'a':
      case 'b':  // APPEND, BUILD: into the value below
        pops = 2;
        break;
      case 's':  // SETITEM
        pops = 3;
        break;
      case 'd':
      case 'l':
      case 't':
      case 'o':
      case 0x91:  // DICT, LIST, TUPLE, OBJ, FROZENSET
        toMark = true;
        break;
      case 'e':
      case 'u':
      case 0x90:  // APPENDS, SETITEMS, ADDITEMS: into the value below
        toMark = true;
        break;
      default:
        return "";  // not an opcode this walk knows: the unpickler refuses it
    }
    if (lengthWidth > 0) {
      if (at + lengthWidth > size) return "";  // cut off: the unpickler says so
      const uint64_t length = littleEndian(pickle + at, lengthWidth);
      at += lengthWidth;
      if (length > size - at) {
        return bad(str("claims ", length, " bytes, ", size - at, " follow"));
      }
      at += length;
    }
    at += width;
    for (int i = 0; i < lines; ++i) {
      while (at < size && pickle[at] != '\n') ++at;
      if (at++ >= size) return "";
    }
    if (pops > above()) {
      return bad(str("takes ", pops, " values, the stack has ", above(),
                     marks.empty() ? "" : " above its mark"));
    }
    if (toMark) {
      if (marks.empty()) return bad("takes the values above a mark, and there is none");
      depth = marks.back();
      marks.pop_back();
      // APPENDS, SETITEMS, ADDITEMS add to the value below the mark; OBJ's first is a class.
      if ((op == 'e' || op == 'u' || op == 0x90) && above() == 0) {
        return bad("has no value to add to below its mark");
      }
      if (op == 'e' || op == 'u' || op == 0x90 || op == '1') pushes = 0;
    }
    // APPEND, BUILD and SETITEM leave the value they add to; the others push their result.
    if (op == 'a' || op == 'b' || op == 's') pushes = 0, pops -= 1;
    depth = depth - pops + pushes;
  }
  return "";
}

}  // namespace

std::string torchArchiveProblem(const char* data, const std::vector<ZipRecord>& records) {
  // As caffe2::serialize::PyTorchStreamReader::init: the first record names the directory.
  if (records.empty()) return "the archive has no records";
  const size_t slash = records.front().name.find('/');
  if (slash == std::string::npos) {
    return str("its first record \"", records.front().name, "\" is not in a directory");
  }
  const std::string dir = records.front().name.substr(0, slash + 1);
  // LibTorch's zip reader (miniz) finds a record by its name in any case: every record it may
  // take for version or data.pkl is checked.
  const auto is = [](const std::string& name, const std::string& wanted) {
    return name.size() == wanted.size() &&
           std::equal(name.begin(), name.end(), wanted.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) ==
                    std::tolower(static_cast<unsigned char>(b));
           });
  };
  bool hasVersion = false;
  for (const ZipRecord& record : records) {
    const bool version = is(record.name, dir + ".data/version") || is(record.name, dir + "version");
    if (!version && !is(record.name, dir + "data.pkl")) continue;
    // LibTorch and torch.save write every record stored; a compressed one is not theirs.
    if (!record.stored) {
      return str(record.name,
                 " is compressed, which these checks do not read (re-zip the file stored, "
                 "`zip -0`, to load it here)");
    }
    const char* bytes = data + record.offset;
    if (!version) {
      const std::string problem =
          pickleProblem(record.name, reinterpret_cast<const uint8_t*>(bytes), record.size);
      if (!problem.empty()) return problem;
      continue;
    }
    hasVersion = true;
    const std::string text(bytes, record.size);
    uint64_t number = 0;
    size_t digits = 0;
    while (digits < text.size() && digits < 6 && text[digits] >= '0' && text[digits] <= '9') {
      number = number * 10 + static_cast<uint64_t>(text[digits++] - '0');
    }
    const bool endsWell = digits == text.size() || text.substr(digits) == "\n";
    if (digits == 0 || !endsWell || number < 1 || number > 10) {
      return str(record.name, " is \"", text.substr(0, 16), text.size() > 16 ? "..." : "",
                 "\", not a format version LibTorch reads (1 to 10)");
    }
  }
  if (!hasVersion) return str("the archive has no ", dir, "version record");
  return "";
}

}  // namespace tbench
