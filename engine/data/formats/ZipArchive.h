#pragma once
// ZipArchive: the members of a zip file, read through its central directory, for NumPy's .npz
// archives (np.savez stores its arrays uncompressed, np.savez_compressed deflates them).
//
// Read: members stored (method 0) or deflated (method 8, through zlib); every member read whole
// is checked against its CRC-32. Refused with an InputError naming the file (and the member):
// archives without an end record (cut off), damaged directory entries or local headers,
// members cut off or failing their CRC, encrypted members, other compression methods and zip64
// archives (over 4 GiB or 65535 members). Torch-free.
//
// (engine/checkpoint/ZipIntegrity.cpp walks checkpoint archives the same way; the checkpoint
// layer does not link data, so each layer keeps its reader.)

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tbench {

class ZipArchive {
 public:
  /// One entry of the central directory.
  struct Member {
    std::string name;
    uint16_t method = 0;  ///< 0 stored, 8 deflated
    uint16_t flags = 0;
    uint32_t crc = 0;
    uint64_t compressedSize = 0;
    uint64_t size = 0;  ///< uncompressed
    uint64_t localHeader = 0;
  };

  /// Reads the central directory of `path`. Throws InputError.
  explicit ZipArchive(std::string path);

  const std::string& path() const { return path_; }
  const std::vector<Member>& members() const { return members_; }
  /// The member called `name`, or nullptr.
  const Member* find(const std::string& name) const;

  /// The first `limit` bytes of `member` (all of them by default), inflated when deflated. A
  /// member read whole is checked against its CRC-32. Throws InputError naming file and member.
  std::string read(const Member& member,
                   uint64_t limit = std::numeric_limits<uint64_t>::max()) const;

 private:
  std::string path_;
  uint64_t fileSize_ = 0;
  std::vector<Member> members_;
};

}  // namespace tbench
