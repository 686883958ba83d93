#include "engine/core/Device.h"

#include <cctype>

#include "engine/core/Check.h"

namespace tbench {

Device Device::parse(const std::string& text) {
  if (text == "cpu") return Device{};
  if (text == "cuda") return Device{Kind::Cuda, 0};
  const std::string prefix = "cuda:";
  if (text.compare(0, prefix.size(), prefix) == 0 && text.size() > prefix.size() &&
      text.size() <= prefix.size() + 4) {
    int index = 0;
    for (size_t i = prefix.size(); i < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
        index = -1;
        break;
      }
      index = index * 10 + (text[i] - '0');
    }
    if (index >= 0) return Device{Kind::Cuda, index};
  }
  throw InputError(str("unknown device \"", text, "\" (expected \"cpu\" or \"cuda:N\")"));
}

std::string Device::toString() const {
  return kind == Kind::Cpu ? "cpu" : "cuda:" + std::to_string(index);
}

}  // namespace tbench
