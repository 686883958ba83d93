#pragma once
// The description of one key of the project file (a component's or a fixed object's): what it
// holds, its default and bounds, its label and help, built fluently; and Settings, the resolved
// values of a component's keys. Torch-free (ComponentRegistry.h, Note [One description per
// component]).

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tbench {

/// What a key holds; each maps to one reader in ProjectJson.cpp and one field in the form.
enum class ValueType {
  Integer,  ///< int64 with optional bounds
  Seed,     ///< an integer >= 0 up to 2^64-1
  Number,   ///< a finite double with optional bounds
  Boolean,
  String,       ///< free text (suggestions may be offered)
  File,         ///< a file path
  Directory,    ///< a directory path
  Choice,       ///< one of `choices`
  IntegerList,  ///< an array of integers, each within the bounds
  NumberList,   ///< an array of finite numbers, each within the bounds
  StringList,   ///< an array of non-empty strings
  Device,       ///< one device ("cpu", "cuda:0") that is available
  DeviceList,   ///< at least one available device
  PointList,    ///< [position, value] pairs (a schedule's points; read by its own code)
};
/// "integer", "seed", ..., as the CLI and the bridge name them.
std::string toString(ValueType type);

/// One key of a component or of a fixed object of the file. Built fluently:
///   key::integer("kernel_size", 5).label("Kernel size").help("...").atLeast(1)
struct KeyDescription {
  std::string name;
  ValueType type = ValueType::String;
  nlohmann::json defaultValue;  ///< what an absent key means
  std::string labelText;        ///< the form's label ("Kernel size")
  std::string helpText;         ///< one line; constraints and default are added by fullHelp()
  double minimum = -std::numeric_limits<double>::infinity();
  bool minimumInclusive = true;
  double maximum = std::numeric_limits<double>::infinity();
  bool maximumInclusive = true;
  bool requiredKey = false;  ///< must be present
  bool nonEmpty = false;     ///< strings: must not be empty
  std::vector<std::string> choiceList;
  std::string zeroText;    ///< what 0 means, shown by the form ("all cores")
  std::string fileFilter;  ///< File: the file dialog's filter
  std::string placeholderText;
  std::vector<std::string> suggestionList;  ///< String: values offered as the user types
  /// Directory: made when a run needs it (an output, such as run_root), so a missing one is
  /// fine; otherwise file and directory keys name inputs that must exist.
  bool madeWhenMissing = false;

  KeyDescription& label(std::string text);
  KeyDescription& help(std::string text);
  KeyDescription& atLeast(double value);
  KeyDescription& greaterThan(double value);
  KeyDescription& below(double value);
  KeyDescription& atMost(double value);
  KeyDescription& required();
  KeyDescription& notEmpty();
  KeyDescription& zeroMeans(std::string text);
  KeyDescription& filter(std::string text);
  KeyDescription& placeholder(std::string text);
  KeyDescription& suggestions(std::vector<std::string> values);
  KeyDescription& createdIfMissing();

  /// ">= 1", "in [0, 1)", "one of: min, max"; empty when unconstrained.
  std::string constraintText() const;
  /// The default as written in the file: `128`, `"train"`, `[256, 128]`; "(none)" when the
  /// key is required.
  std::string defaultText() const;
  /// help + constraints + default, for tooltips and the CLI.
  std::string fullHelp() const;
  /// Why `value` cannot be this key's default ("is out of >= 1"); empty when it can.
  std::string problemWith(const nlohmann::json& value) const;
};

namespace key {
KeyDescription integer(std::string name, int64_t fallback);
KeyDescription seed(std::string name, uint64_t fallback);
KeyDescription number(std::string name, double fallback);
KeyDescription boolean(std::string name, bool fallback);
KeyDescription string(std::string name, std::string fallback = "");
KeyDescription file(std::string name, std::string fallback = "");
KeyDescription directory(std::string name, std::string fallback = "");
KeyDescription choice(std::string name, std::string fallback, std::vector<std::string> choices);
KeyDescription integers(std::string name, std::vector<int64_t> fallback);
KeyDescription numbers(std::string name, std::vector<double> fallback);
KeyDescription strings(std::string name, std::vector<std::string> fallback);
KeyDescription device(std::string name, std::string fallback);
KeyDescription devices(std::string name, std::vector<std::string> fallback);
KeyDescription points(std::string name);
}  // namespace key

/// The resolved settings of one component: every key of its type, defaults filled in by
/// The typed reads of a key's value, for Settings and ComponentSpec: each only says what `at`
/// means for it.
template <typename Derived>
class TypedValues {
 public:
  int64_t integer(const std::string& name) const { return value(name).template get<int64_t>(); }
  uint64_t seed(const std::string& name) const { return value(name).template get<uint64_t>(); }
  double number(const std::string& name) const { return value(name).template get<double>(); }
  bool boolean(const std::string& name) const { return value(name).template get<bool>(); }
  std::string string(const std::string& name) const {
    return value(name).template get<std::string>();
  }
  std::vector<int64_t> integers(const std::string& name) const {
    return value(name).template get<std::vector<int64_t>>();
  }
  std::vector<double> numbers(const std::string& name) const {
    return value(name).template get<std::vector<double>>();
  }
  std::vector<std::string> strings(const std::string& name) const {
    return value(name).template get<std::vector<std::string>>();
  }

 private:
  nlohmann::json value(const std::string& name) const {
    return static_cast<const Derived&>(*this).at(name);
  }
};

/// validation. Accessors of a key the settings lack throw CheckError (a programming error).
class Settings : public TypedValues<Settings> {
 public:
  Settings() : values_(nlohmann::json::object()) {}
  explicit Settings(nlohmann::json values);

  bool has(const std::string& name) const { return values_.contains(name); }
  const nlohmann::json& at(const std::string& name) const;

  void set(const std::string& name, nlohmann::json value) { values_[name] = std::move(value); }
  const nlohmann::json& values() const { return values_; }

 private:
  nlohmann::json values_;
};

/// `items` joined with `separator`.
std::string joinedText(const std::vector<std::string>& items, const std::string& separator);

}  // namespace tbench
