#include "engine/core/Check.h"

#include <cstring>

namespace tbench::detail {

void throwCheckError(const char* condition, const char* file, int line,
                     const std::string& message) {
  const char* slash = std::strrchr(file, '/');
  const char* base = slash ? slash + 1 : file;
  std::ostringstream out;
  if (!message.empty()) out << message << " ";
  out << "(check `" << condition << "` failed at " << base << ":" << line << ")";
  throw CheckError(out.str());
}

}  // namespace tbench::detail
