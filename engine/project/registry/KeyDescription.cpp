#include "engine/project/registry/KeyDescription.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/core/Check.h"
#include "engine/project/JsonReader.h"

namespace tbench {

using nlohmann::json;

std::string toString(ValueType type) {
  switch (type) {
    case ValueType::Integer:
      return "integer";
    case ValueType::Seed:
      return "seed";
    case ValueType::Number:
      return "number";
    case ValueType::Boolean:
      return "boolean";
    case ValueType::String:
      return "string";
    case ValueType::File:
      return "file";
    case ValueType::Directory:
      return "directory";
    case ValueType::Choice:
      return "choice";
    case ValueType::IntegerList:
      return "integer list";
    case ValueType::NumberList:
      return "number list";
    case ValueType::StringList:
      return "string list";
    case ValueType::Device:
      return "device";
    case ValueType::DeviceList:
      return "device list";
    case ValueType::PointList:
      return "point list";
  }
  return "?";
}

// ---- KeyDescription

KeyDescription& KeyDescription::label(std::string text) {
  labelText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::help(std::string text) {
  helpText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::atLeast(double value) {
  minimum = value;
  minimumInclusive = true;
  return *this;
}
KeyDescription& KeyDescription::greaterThan(double value) {
  minimum = value;
  minimumInclusive = false;
  return *this;
}
KeyDescription& KeyDescription::below(double value) {
  maximum = value;
  maximumInclusive = false;
  return *this;
}
KeyDescription& KeyDescription::atMost(double value) {
  maximum = value;
  maximumInclusive = true;
  return *this;
}
KeyDescription& KeyDescription::required() {
  requiredKey = true;
  return *this;
}
KeyDescription& KeyDescription::notEmpty() {
  nonEmpty = true;
  return *this;
}
KeyDescription& KeyDescription::zeroMeans(std::string text) {
  zeroText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::filter(std::string text) {
  fileFilter = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::placeholder(std::string text) {
  placeholderText = std::move(text);
  return *this;
}
KeyDescription& KeyDescription::createdIfMissing() {
  madeWhenMissing = true;
  return *this;
}
KeyDescription& KeyDescription::suggestions(std::vector<std::string> values) {
  suggestionList = std::move(values);
  return *this;
}

namespace {

std::string boundsText(const KeyDescription& k) {
  return rangeText(formatBound(k.minimum), k.minimumInclusive, std::isfinite(k.minimum),
                   formatBound(k.maximum), k.maximumInclusive, std::isfinite(k.maximum));
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

bool inBounds(const KeyDescription& k, double v) {
  const bool belowMin = k.minimumInclusive ? v < k.minimum : v <= k.minimum;
  const bool aboveMax = k.maximumInclusive ? v > k.maximum : v >= k.maximum;
  return !belowMin && !aboveMax;
}

/// Why `value` cannot be the default of `k`; empty when it can.
std::string defaultProblem(const KeyDescription& k, const json& value) {
  if (k.requiredKey) return "";  // never used: the key must be given
  switch (k.type) {
    case ValueType::Integer:
      if (!value.is_number_integer()) return "is not an integer";
      return inBounds(k, double(value.get<int64_t>())) ? "" : "is out of " + boundsText(k);
    case ValueType::Seed:
      return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0)
                 ? ""
                 : "is not an integer >= 0";
    case ValueType::Number:
      if (!value.is_number()) return "is not a number";
      return inBounds(k, value.get<double>()) ? "" : "is out of " + boundsText(k);
    case ValueType::Boolean:
      return value.is_boolean() ? "" : "is not a boolean";
    case ValueType::String:
    case ValueType::File:
    case ValueType::Directory:
    case ValueType::Device:
      return value.is_string() ? "" : "is not a string";
    case ValueType::Choice:
      if (!value.is_string()) return "is not a string";
      return std::count(k.choiceList.begin(), k.choiceList.end(), value.get<std::string>()) != 0
                 ? ""
                 : "is not one of the choices";
    case ValueType::IntegerList:
      if (!value.is_array()) return "is not an array";
      for (const auto& element : value) {
        if (!element.is_number_integer() || !inBounds(k, double(element.get<int64_t>()))) {
          return "has an element that is not an integer " + boundsText(k);
        }
      }
      return "";
    case ValueType::NumberList:
      if (!value.is_array()) return "is not an array";
      for (const auto& element : value) {
        if (!element.is_number() || !inBounds(k, element.get<double>())) {
          return "has an element that is not a number " + boundsText(k);
        }
      }
      return "";
    case ValueType::StringList:
    case ValueType::DeviceList:
    case ValueType::PointList:
      if (!value.is_array()) return "is not an array";
      for (const auto& element : value) {
        if (!element.is_string()) return "has an element that is not a string";
      }
      return "";
  }
  return "";
}

}  // namespace

std::string KeyDescription::constraintText() const {
  std::vector<std::string> parts;
  switch (type) {
    case ValueType::Integer:
    case ValueType::Number:
      if (!boundsText(*this).empty()) parts.push_back(boundsText(*this));
      break;
    case ValueType::Seed:
      parts.push_back(">= 0");
      break;
    case ValueType::Choice:
      parts.push_back("one of: " + joined(choiceList, ", "));
      break;
    case ValueType::IntegerList:
    case ValueType::NumberList:
      if (!boundsText(*this).empty()) parts.push_back("each " + boundsText(*this));
      break;
    case ValueType::Device:
      parts.push_back("an available device: cpu or cuda:N");
      break;
    case ValueType::DeviceList:
      parts.push_back("at least one available device");
      break;
    default:
      break;
  }
  if (nonEmpty) parts.push_back("not empty");
  if (requiredKey) parts.push_back("required");
  return joined(parts, ", ");
}

std::string KeyDescription::defaultText() const {
  if (requiredKey) return "(none)";
  if (defaultValue.is_array()) {
    std::string text;
    for (const auto& element : defaultValue) text += (text.empty() ? "" : ", ") + element.dump();
    return "[" + text + "]";
  }
  if (defaultValue.is_number_float()) return formatBound(defaultValue.get<double>());
  return defaultValue.dump();
}

std::string KeyDescription::problemWith(const json& value) const {
  return defaultProblem(*this, value);
}

std::string joinedText(const std::vector<std::string>& items, const std::string& separator) {
  return joined(items, separator);
}

std::string KeyDescription::fullHelp() const {
  std::string text = helpText;
  const std::string constraint = constraintText();
  if (!constraint.empty()) text += " (" + constraint + ")";
  if (!zeroText.empty()) text += "; 0 = " + zeroText;
  if (!requiredKey) text += "; default " + defaultText();
  return text;
}

namespace key {
namespace {
KeyDescription make(std::string name, ValueType type, json fallback) {
  KeyDescription k;
  k.name = std::move(name);
  k.type = type;
  k.defaultValue = std::move(fallback);
  return k;
}
}  // namespace
KeyDescription integer(std::string name, int64_t fallback) {
  return make(std::move(name), ValueType::Integer, fallback);
}
KeyDescription seed(std::string name, uint64_t fallback) {
  return make(std::move(name), ValueType::Seed, fallback);
}
KeyDescription number(std::string name, double fallback) {
  return make(std::move(name), ValueType::Number, fallback);
}
KeyDescription boolean(std::string name, bool fallback) {
  return make(std::move(name), ValueType::Boolean, fallback);
}
KeyDescription string(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::String, std::move(fallback));
}
KeyDescription file(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::File, std::move(fallback));
}
KeyDescription directory(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::Directory, std::move(fallback));
}
KeyDescription choice(std::string name, std::string fallback, std::vector<std::string> choices) {
  KeyDescription k = make(std::move(name), ValueType::Choice, std::move(fallback));
  k.choiceList = std::move(choices);
  return k;
}
KeyDescription integers(std::string name, std::vector<int64_t> fallback) {
  return make(std::move(name), ValueType::IntegerList, std::move(fallback));
}
KeyDescription numbers(std::string name, std::vector<double> fallback) {
  return make(std::move(name), ValueType::NumberList, std::move(fallback));
}
KeyDescription strings(std::string name, std::vector<std::string> fallback) {
  return make(std::move(name), ValueType::StringList, std::move(fallback));
}
KeyDescription device(std::string name, std::string fallback) {
  return make(std::move(name), ValueType::Device, std::move(fallback));
}
KeyDescription devices(std::string name, std::vector<std::string> fallback) {
  return make(std::move(name), ValueType::DeviceList, std::move(fallback));
}
KeyDescription points(std::string name) {
  return make(std::move(name), ValueType::PointList, json::array());
}
}  // namespace key

// ---- Settings

Settings::Settings(json values) : values_(std::move(values)) {
  TB_CHECK(values_.is_object(), "settings must be a JSON object, got ", values_.dump());
}

const json& Settings::at(const std::string& name) const {
  const auto it = values_.find(name);
  TB_CHECK(it != values_.end(), "no setting \"", name, "\" in ", values_.dump());
  return *it;
}

}  // namespace tbench
