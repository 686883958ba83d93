#include "engine/core/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "engine/core/Check.h"

namespace tbench {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error(str("cannot ", what, " ", path, ": ", std::strerror(err)));
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& contents) {
  // The host too: processes of two nodes writing into one shared directory may have one pid.
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string tmp = path + ".tmp-" + host + "-" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create", tmp, errno);
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("write", tmp, err);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("flush", tmp, err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("rename onto", path, err);
  }
}

std::optional<TemporaryFileWriter> temporaryFileWriter(const std::string& fileName) {
  // The host may contain '-' and '.', the target '.tmp-' only if someone named it so: the
  // last ".tmp-" and the last '-' delimit them.
  const size_t tag = fileName.rfind(".tmp-");
  const size_t dash = fileName.rfind('-');
  if (tag == std::string::npos || tag == 0 || dash <= tag + 4) return std::nullopt;
  const std::string pid = fileName.substr(dash + 1);
  if (pid.empty() || pid.size() > 18 || pid.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return TemporaryFileWriter{fileName.substr(0, tag), fileName.substr(tag + 5, dash - tag - 5),
                             std::stoll(pid)};
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(str("cannot open ", path, ": ", std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(str("cannot read ", path));
  return buffer.str();
}

}  // namespace tbench
