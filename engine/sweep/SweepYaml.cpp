#include "engine/sweep/SweepYaml.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <regex>

namespace tbench {
namespace {

using nlohmann::json;

/// A plain scalar typed as the file comment says.
json plainScalar(const std::string& s) {
  static const std::regex null("~|null|Null|NULL|");
  static const std::regex yes("true|True|TRUE|yes|Yes|YES|on|On|ON");
  static const std::regex no("false|False|FALSE|no|No|NO|off|Off|OFF");
  static const std::regex decimal("[-+]?[0-9]+");
  static const std::regex hex("0x[0-9a-fA-F]+");
  static const std::regex octal("0o[0-7]+");
  static const std::regex real("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  static const std::regex inf("[-+]?\\.(inf|Inf|INF)");
  static const std::regex nan("\\.(nan|NaN|NAN)");
  if (std::regex_match(s, null)) return nullptr;
  if (std::regex_match(s, yes)) return true;
  if (std::regex_match(s, no)) return false;
  try {
    if (std::regex_match(s, decimal)) {
      if (s[0] != '-') return std::stoull(s[0] == '+' ? s.substr(1) : s);
      return std::stoll(s);
    }
    if (std::regex_match(s, hex)) return std::stoll(s.substr(2), nullptr, 16);
    if (std::regex_match(s, octal)) return std::stoll(s.substr(2), nullptr, 8);
  } catch (const std::out_of_range&) {
    return std::stod(s);  // beyond 64 bits: a float, as JSON's reader does
  }
  if (std::regex_match(s, real)) return std::stod(s);
  if (std::regex_match(s, inf)) {
    return s[0] == '-' ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
  }
  if (std::regex_match(s, nan)) return std::numeric_limits<double>::quiet_NaN();
  return s;
}

json convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "?": a plain scalar; "!" (quoted) and explicit tags other than the core ones: a string.
      if (node.Tag() == "?") return plainScalar(node.Scalar());
      if (node.Tag() == "tag:yaml.org,2002:int" || node.Tag() == "tag:yaml.org,2002:float" ||
          node.Tag() == "tag:yaml.org,2002:bool" || node.Tag() == "tag:yaml.org,2002:null") {
        return plainScalar(node.Scalar());
      }
      return node.Scalar();
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) out.push_back(convert(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& item : node) {
        const std::string key =
            item.first.IsScalar() ? item.first.Scalar() : YAML::Dump(item.first);
        out[key] = convert(item.second);
      }
      return out;
    }
  }
  return nullptr;
}

}  // namespace

json yamlToJson(const std::string& text, std::vector<ProjectIssue>& issues) {
  try {
    return convert(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    issues.push_back({"$", "YAML syntax error at line " + std::to_string(e.mark.line + 1) +
                               ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg});
    return nullptr;
  }
}

}  // namespace tbench
