#pragma once
// Reading project files from disk and applying command-line overrides ("--set a.b=value") to a
// document before it is validated.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "engine/project/Project.h"

namespace tbench {

/// Reads, parses and validates a project file. Throws ProjectError (syntax errors carry the
/// line and column) or InputError when the file cannot be read.
Project loadProjectFile(const std::string& path);
/// Reads and parses a project file into JSON without validating it.
nlohmann::json readProjectJson(const std::string& path);

/// Applies "a.b[2].c=value" (a leading "$." is allowed) to `doc`. The value is parsed as JSON
/// when it is valid JSON, taken as a string otherwise. Creates missing object keys; throws
/// InputError naming the assignment when the path goes through a non-object or an array index
/// is out of range.
void applyProjectOverride(nlohmann::json& doc, const std::string& assignment);

}  // namespace tbench
