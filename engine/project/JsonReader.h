#pragma once
// Reading a JSON document against a schema written as code, collecting every problem with
// its path instead of stopping at the first. ProjectJson.cpp describes the project file with
// it; nothing here knows about projects.
//
//   std::vector<ProjectIssue> issues;
//   JsonReader reader(issues);
//   ObjectReader data(reader, doc["data"], "$.data");
//   data.integer("batch_size", spec.batchSize, IntRange::atLeast(1));
//   data.finish();  // reports the keys nobody asked for
//
// A read that fails reports an issue and leaves the target unchanged; it never throws.

#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/project/ProjectJson.h"

namespace tbench {

/// Inclusive bounds of an integer setting.
struct IntRange {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  static IntRange atLeast(int64_t min) { return {min, std::numeric_limits<int64_t>::max()}; }
};

/// Bounds of a number setting; each end open or closed.
struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();
  bool minInclusive = true;
  double max = std::numeric_limits<double>::infinity();
  bool maxInclusive = true;
  static NumberRange atLeast(double min) { return {min, true}; }
  static NumberRange greaterThan(double min) { return {min, false}; }
  /// [min, max)
  static NumberRange halfOpen(double min, double max) { return {min, true, max, false}; }
};

/// A bound as people write it ("0", "1e-08"), not as json::dump would ("0.0").
std::string formatBound(double value);
/// A range for messages: "in [min, max)", ">= min", "< max"; empty without either bound.
std::string rangeText(const std::string& min, bool minInclusive, bool hasMin,
                      const std::string& max, bool maxInclusive, bool hasMax);
/// "$.data" + "batch_size" -> "$.data.batch_size"; keys that are not identifiers are quoted:
/// "$.data" + "a b" -> "$.data[\"a b\"]".
std::string childPath(const std::string& path, const std::string& key);
/// "$.callbacks" + 2 -> "$.callbacks[2]".
std::string indexPath(const std::string& path, size_t index);
/// One step of a JSON path: a key or an array index.
struct JsonPathStep {
  bool isIndex = false;
  std::string key;
  size_t index = 0;
};
/// Parses "a.b[2].c" (a leading "$." is allowed). Throws std::invalid_argument saying what is
/// wrong with it.
std::vector<JsonPathStep> parseJsonPath(const std::string& path);

/// Parses `text`. A syntax error is reported at "$" with its line and column; keys that appear
/// twice in one object (which nlohmann would silently collapse) at their path. Returns null
/// when it reported anything.
nlohmann::json parseJsonText(const std::string& text, std::vector<ProjectIssue>& issues);

/// A JSON value described for messages: `string "128"`, `number 1.5`, `an array`, `null`.
std::string describeJson(const nlohmann::json& value);
/// The candidate closest to `word` by edit distance (transpositions count 1), or "" when none
/// is within 2 edits.
std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);

/// Checks single values against a type and range; issues go to the list given at construction.
class JsonReader {
 public:
  explicit JsonReader(std::vector<ProjectIssue>& issues) : issues_(issues) {}

  void report(const std::string& path, const std::string& message);
  size_t issueCount() const { return issues_.size(); }

  // Each returns true and sets `out` when `value` has the right type and is in range.
  bool integer(const nlohmann::json& value, const std::string& path, int64_t& out,
               IntRange range = {});
  bool unsignedInteger(const nlohmann::json& value, const std::string& path, uint64_t& out);
  bool number(const nlohmann::json& value, const std::string& path, double& out,
              NumberRange range = {});
  bool boolean(const nlohmann::json& value, const std::string& path, bool& out);
  bool string(const nlohmann::json& value, const std::string& path, std::string& out,
              bool allowEmpty = true);
  /// A string that must be one of `choices`.
  bool choice(const nlohmann::json& value, const std::string& path, std::string& out,
              const std::vector<std::string>& choices);
  /// Type checks only; the caller walks the elements or members.
  bool isArray(const nlohmann::json& value, const std::string& path);
  bool isObject(const nlohmann::json& value, const std::string& path);

 private:
  std::vector<ProjectIssue>& issues_;
};

/// Reads the members of one JSON object. Every key the schema names is asked for (or declared
/// with `ignore` / `notApplicable`); finish() reports the others as unknown.
class ObjectReader {
 public:
  /// Reports an issue when `node` is not an object; every read then does nothing.
  ObjectReader(JsonReader& reader, const nlohmann::json& node, std::string path);

  bool valid() const { return node_ != nullptr; }
  const std::string& path() const { return path_; }
  std::string pathOf(const std::string& key) const { return childPath(path_, key); }
  bool has(const std::string& key) const;
  /// The member named `key`, or nullptr when absent (reported when `required`).
  const nlohmann::json* get(const std::string& key, bool required = false);

  // Absent optional keys leave `out` unchanged and return false.
  bool integer(const std::string& key, int64_t& out, IntRange range = {});
  bool unsignedInteger(const std::string& key, uint64_t& out);
  bool number(const std::string& key, double& out, NumberRange range = {});
  bool boolean(const std::string& key, bool& out);
  bool string(const std::string& key, std::string& out, bool allowEmpty = true,
              bool required = false);
  bool choice(const std::string& key, std::string& out, const std::vector<std::string>& choices);

  /// Keys the schema knows but does not read here (e.g. when the type is invalid).
  void ignore(const std::vector<std::string>& keys);
  /// Keys that exist in the schema but not in this variant: reported with `reason` if present.
  void notApplicable(const std::vector<std::string>& keys, const std::string& reason);
  /// Reports every key not named by a read, ignore() or notApplicable().
  void finish();

 private:
  JsonReader& reader_;
  const nlohmann::json* node_ = nullptr;
  std::string path_;
  std::set<std::string> known_;     // valid here: candidates for "did you mean"
  std::set<std::string> declared_;  // known_ plus the keys of other variants
};

}  // namespace tbench
