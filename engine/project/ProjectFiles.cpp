// Reading project files from disk and applying command-line overrides to a document.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/project/JsonReader.h"
#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"

namespace tbench {

using nlohmann::json;

// ---- Files

json readProjectJson(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw InputError(str("cannot read project file \"", path, "\": it is a directory"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(str("cannot read project file \"", path, "\": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(str("cannot read project file \"", path, "\": read error"));
  std::vector<ProjectIssue> issues;
  json doc = parseJsonText(text.str(), issues);
  if (!issues.empty()) throw ProjectError(path, std::move(issues));
  return doc;
}

Project loadProjectFile(const std::string& path) {
  return projectFromJson(readProjectJson(path), path);
}

// ---- Overrides

void applyProjectOverride(json& doc, const std::string& assignment) {
  const auto fail = [&](const std::string& why) {
    throw InputError(str("override \"", assignment, "\": ", why));
  };
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos) fail("expected PATH=VALUE, e.g. data.batch_size=64");
  std::vector<JsonPathStep> steps;
  try {
    steps = parseJsonPath(assignment.substr(0, equals));
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  const std::string valueText = assignment.substr(equals + 1);
  json value = json::parse(valueText, nullptr, false);
  if (value.is_discarded()) value = valueText;

  // Work on a copy so that a failed override leaves `doc` as it was.
  json result = doc;
  json* node = &result;
  std::string where = "$";
  for (const auto& step : steps) {
    if (step.isIndex) {
      if (!node->is_array()) fail(str(where, " is ", describeJson(*node), ", not an array"));
      if (step.index >= node->size()) {
        fail(str("index ", step.index, " is out of range (", where, " has ", node->size(),
                 " elements)"));
      }
      node = &(*node)[step.index];
      where = indexPath(where, step.index);
    } else {
      if (node->is_null()) *node = json::object();  // a key created by the previous step
      if (!node->is_object()) fail(str(where, " is ", describeJson(*node), ", not an object"));
      node = &(*node)[step.key];
      where = childPath(where, step.key);
    }
  }
  *node = std::move(value);
  doc = std::move(result);
}

}  // namespace tbench
