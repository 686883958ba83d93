#pragma once
// "1st", "2nd", "3rd", "4th", ... "11th", "12th", "13th", ... "21st": a count as an ordinal in
// English, for messages.

#include <cstdint>
#include <string>

namespace tbench {

inline std::string ordinal(int64_t n) {
  const int64_t tens = n % 100;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

}  // namespace tbench
