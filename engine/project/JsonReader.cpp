#include "engine/project/JsonReader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tbench {

using nlohmann::json;

namespace {

/// Where `token` stands as a whole number in the JSON `text`, outside strings; npos if nowhere.
size_t findNumberToken(const std::string& text, const std::string& token) {
  const auto numberChar = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
           c == '+' || c == '-';
  };
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (text.compare(i, token.size(), token) == 0 && (i == 0 || !numberChar(text[i - 1])) &&
               (i + token.size() == text.size() || !numberChar(text[i + token.size()]))) {
      return i;
    }
  }
  return std::string::npos;
}

bool isIdentifier(const std::string& key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Optimal string alignment distance: Levenshtein plus adjacent transpositions.
size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

std::string quotedList(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? " or " : ", ";
    text += "\"" + items[i] + "\"";
  }
  return text;
}

// nlohmann keeps the last of two equal keys without a word; a project with two "optimizer"
// blocks would silently lose one. This parser callback reports them with their path.
class DuplicateKeyFinder {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        stack_.emplace_back(false);
        break;
      case json::parse_event_t::array_start:
        stack_.emplace_back(true);
        break;
      case json::parse_event_t::key: {
        Frame& top = stack_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) issues_.push_back({currentPath(), "duplicate key"});
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack_.pop_back();
        valueDone();
        break;
      case json::parse_event_t::value:
        valueDone();
        break;
    }
    return true;
  }
  const std::vector<ProjectIssue>& issues() const { return issues_; }

 private:
  struct Frame {
    explicit Frame(bool array) : isArray(array) {}
    bool isArray;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  void valueDone() {
    if (!stack_.empty() && stack_.back().isArray) ++stack_.back().index;
  }
  std::string currentPath() const {
    std::string path = "$";
    for (const auto& frame : stack_) {
      path = frame.isArray ? indexPath(path, frame.index) : childPath(path, frame.key);
    }
    return path;
  }
  std::vector<Frame> stack_;
  std::vector<ProjectIssue> issues_;
};

}  // namespace

std::string formatBound(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string rangeText(const std::string& min, bool minInclusive, bool hasMin,
                      const std::string& max, bool maxInclusive, bool hasMax) {
  if (hasMin && hasMax) {
    return str("in ", minInclusive ? "[" : "(", min, ", ", max, maxInclusive ? "]" : ")");
  }
  if (hasMin) return str(minInclusive ? ">= " : "> ", min);
  if (hasMax) return str(maxInclusive ? "<= " : "< ", max);
  return "";
}

std::string childPath(const std::string& path, const std::string& key) {
  if (isIdentifier(key)) return path + "." + key;
  return path + "[" + json(key).dump(-1, ' ', false, json::error_handler_t::replace) + "]";
}

std::string indexPath(const std::string& path, size_t index) { return str(path, "[", index, "]"); }

std::vector<JsonPathStep> parseJsonPath(const std::string& text) {
  const auto fail = [&](const std::string& why) {
    throw std::invalid_argument(str(why, " in path \"", text, "\""));
  };
  const std::string path = text.compare(0, 2, "$.") == 0 ? text.substr(2) : text;
  std::vector<JsonPathStep> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      const std::string digits =
          close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.size() > 9 ||
          !std::all_of(digits.begin(), digits.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        fail("bad array index");
      }
      steps.push_back({true, "", static_cast<size_t>(std::stoul(digits))});
      i = close + 1;
      continue;
    }
    if (!steps.empty()) {
      if (path[i] != '.') fail(str("expected \".\" or \"[\" at position ", i));
      ++i;
    }
    const size_t end = std::min(path.find_first_of(".[]", i), path.size());
    if (end == i) fail("empty key");
    steps.push_back({false, path.substr(i, end - i), 0});
    i = end;
  }
  if (steps.empty()) fail("nothing to set");
  return steps;
}

json parseJsonText(const std::string& text, std::vector<ProjectIssue>& issues) {
  DuplicateKeyFinder duplicates;
  json doc;
  try {
    doc = json::parse(text, std::ref(duplicates));
  } catch (const json::parse_error& e) {
    // e.byte counts the bytes read, the offending one included.
    const size_t offset = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
    const size_t lineStart = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos+1 = 0
    // nlohmann's what(): "[json.exception.parse_error.101] parse error at ...: <detail>".
    // Keep "<what went wrong>"; say where as "(while parsing <what>)".
    std::string detail = e.what();
    const size_t colon = detail.find(": ");
    if (colon != std::string::npos) detail = detail.substr(colon + 2);
    const std::string prefix = "syntax error while parsing ";
    const size_t dash = detail.find(" - ");
    if (detail.compare(0, prefix.size(), prefix) == 0 && dash != std::string::npos) {
      detail = str(detail.substr(dash + 3), " (while parsing ",
                   detail.substr(prefix.size(), dash - prefix.size()), ")");
    }
    issues.push_back({"$", str("syntax error at line ", line, ", column ", offset - lineStart + 1,
                               ": ", detail)});
    return nullptr;
  } catch (const json::out_of_range& e) {
    // A number beyond double ("1E6666"): nlohmann says "number overflow parsing '<token>'" with
    // no position, and the message named no file (found by fuzz_project_json). Find the token.
    const std::string detail = e.what();
    const size_t open = detail.find('\'');
    const size_t close = detail.rfind('\'');
    std::string where;
    if (open != std::string::npos && close > open + 1) {
      const size_t offset = findNumberToken(text, detail.substr(open + 1, close - open - 1));
      if (offset != std::string::npos) {
        const size_t lineStart = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;
        where = str(" at line ", 1 + std::count(text.begin(), text.begin() + offset, '\n'),
                    ", column ", offset - lineStart + 1);
      }
    }
    issues.push_back({"$", str("number out of range", where, ": ",
                               open == std::string::npos ? detail : detail.substr(open))});
    return nullptr;
  }
  if (duplicates.issues().empty()) return doc;
  issues.insert(issues.end(), duplicates.issues().begin(), duplicates.issues().end());
  return nullptr;
}

std::string describeJson(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return value.get<bool>() ? "boolean true" : "boolean false";
    case json::value_t::string: {
      std::string text = value.get<std::string>();
      const bool cut = text.size() > 40;
      if (cut) text.resize(40);
      return "string " + json(text).dump(-1, ' ', false, json::error_handler_t::replace) +
             (cut ? "..." : "");
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "number " + value.dump();
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    default:
      return "an invalid value";
  }
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t bestDistance = 3;  // accept at most 2 edits
  for (const auto& candidate : candidates) {
    const size_t distance = editDistance(word, candidate);
    // A distance as long as the word itself means nothing of it survived ("x" -> "y").
    if (distance < bestDistance && distance < std::max(word.size(), size_t{2})) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

// ---- JsonReader

void JsonReader::report(const std::string& path, const std::string& message) {
  issues_.push_back({path, message});
}

bool JsonReader::integer(const json& value, const std::string& path, int64_t& out, IntRange range) {
  int64_t v = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      report(path, str("too large, got ", u));
      return false;
    }
    v = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    v = value.get<int64_t>();
  } else {
    report(path, "expected an integer, found " + describeJson(value));
    return false;
  }
  if (v < range.min || v > range.max) {
    const bool hasMin = range.min != std::numeric_limits<int64_t>::min();
    const bool hasMax = range.max != std::numeric_limits<int64_t>::max();
    report(path, str("must be ",
                     rangeText(std::to_string(range.min), true, hasMin, std::to_string(range.max),
                               true, hasMax),
                     ", got ", v));
    return false;
  }
  out = v;
  return true;
}

bool JsonReader::unsignedInteger(const json& value, const std::string& path, uint64_t& out) {
  if (value.is_number_unsigned()) {
    out = value.get<uint64_t>();
    return true;
  }
  if (value.is_number_integer()) {
    const auto v = value.get<int64_t>();
    if (v < 0) {
      report(path, str("must be >= 0, got ", v));
      return false;
    }
    out = static_cast<uint64_t>(v);
    return true;
  }
  report(path, "expected an integer, found " + describeJson(value));
  return false;
}

bool JsonReader::number(const json& value, const std::string& path, double& out,
                        NumberRange range) {
  if (!value.is_number()) {
    report(path, "expected a number, found " + describeJson(value));
    return false;
  }
  const auto v = value.get<double>();
  if (!std::isfinite(v)) {
    report(path, "must be a finite number");
    return false;
  }
  const bool belowMin = range.minInclusive ? v < range.min : v <= range.min;
  const bool aboveMax = range.maxInclusive ? v > range.max : v >= range.max;
  if (belowMin || aboveMax) {
    report(path,
           str("must be ",
               rangeText(formatBound(range.min), range.minInclusive, std::isfinite(range.min),
                         formatBound(range.max), range.maxInclusive, std::isfinite(range.max)),
               ", got ", value.dump()));
    return false;
  }
  out = v;
  return true;
}

bool JsonReader::boolean(const json& value, const std::string& path, bool& out) {
  if (!value.is_boolean()) {
    report(path, "expected a boolean, found " + describeJson(value));
    return false;
  }
  out = value.get<bool>();
  return true;
}

bool JsonReader::string(const json& value, const std::string& path, std::string& out,
                        bool allowEmpty) {
  if (!value.is_string()) {
    report(path, "expected a string, found " + describeJson(value));
    return false;
  }
  if (!allowEmpty && value.get_ref<const std::string&>().empty()) {
    report(path, "must not be empty");
    return false;
  }
  out = value.get<std::string>();
  return true;
}

bool JsonReader::choice(const json& value, const std::string& path, std::string& out,
                        const std::vector<std::string>& choices) {
  std::string text;
  if (!string(value, path, text)) return false;
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) {
    out = text;
    return true;
  }
  const std::string suggestion = closestMatch(text, choices);
  report(path, str("unknown value ",
                   json(text).dump(-1, ' ', false, json::error_handler_t::replace), " (",
                   suggestion.empty() ? "expected " + quotedList(choices)
                                      : "did you mean \"" + suggestion + "\"?",
                   ")"));
  return false;
}

bool JsonReader::isArray(const json& value, const std::string& path) {
  if (value.is_array()) return true;
  report(path, "expected an array, found " + describeJson(value));
  return false;
}

bool JsonReader::isObject(const json& value, const std::string& path) {
  if (value.is_object()) return true;
  report(path, "expected an object, found " + describeJson(value));
  return false;
}

// ---- ObjectReader

ObjectReader::ObjectReader(JsonReader& reader, const json& node, std::string path)
    : reader_(reader), path_(std::move(path)) {
  if (reader_.isObject(node, path_)) node_ = &node;
}

bool ObjectReader::has(const std::string& key) const {
  return node_ != nullptr && node_->contains(key);
}

const json* ObjectReader::get(const std::string& key, bool required) {
  known_.insert(key);
  declared_.insert(key);
  if (node_ == nullptr) return nullptr;
  const auto it = node_->find(key);
  if (it != node_->end()) return &*it;
  if (required) reader_.report(pathOf(key), "missing required key");
  return nullptr;
}

bool ObjectReader::integer(const std::string& key, int64_t& out, IntRange range) {
  const json* value = get(key);
  return value != nullptr && reader_.integer(*value, pathOf(key), out, range);
}

bool ObjectReader::unsignedInteger(const std::string& key, uint64_t& out) {
  const json* value = get(key);
  return value != nullptr && reader_.unsignedInteger(*value, pathOf(key), out);
}

bool ObjectReader::number(const std::string& key, double& out, NumberRange range) {
  const json* value = get(key);
  return value != nullptr && reader_.number(*value, pathOf(key), out, range);
}

bool ObjectReader::boolean(const std::string& key, bool& out) {
  const json* value = get(key);
  return value != nullptr && reader_.boolean(*value, pathOf(key), out);
}

bool ObjectReader::string(const std::string& key, std::string& out, bool allowEmpty,
                          bool required) {
  const json* value = get(key, required);
  return value != nullptr && reader_.string(*value, pathOf(key), out, allowEmpty);
}

bool ObjectReader::choice(const std::string& key, std::string& out,
                          const std::vector<std::string>& choices) {
  const json* value = get(key);
  return value != nullptr && reader_.choice(*value, pathOf(key), out, choices);
}

void ObjectReader::ignore(const std::vector<std::string>& keys) {
  known_.insert(keys.begin(), keys.end());
  declared_.insert(keys.begin(), keys.end());
}

void ObjectReader::notApplicable(const std::vector<std::string>& keys, const std::string& reason) {
  for (const auto& key : keys) {
    declared_.insert(key);
    if (has(key)) reader_.report(pathOf(key), reason);
  }
}

void ObjectReader::finish() {
  if (node_ == nullptr) return;
  const std::vector<std::string> known(known_.begin(), known_.end());
  for (const auto& item : node_->items()) {
    if (declared_.count(item.key()) != 0) continue;
    const std::string suggestion = closestMatch(item.key(), known);
    if (!suggestion.empty()) {
      reader_.report(pathOf(item.key()), "unknown key (did you mean \"" + suggestion + "\"?)");
    } else {
      std::string list;
      for (const auto& key : known) list += (list.empty() ? "" : ", ") + key;
      reader_.report(pathOf(item.key()), "unknown key (valid keys: " + list + ")");
    }
  }
}

}  // namespace tbench
