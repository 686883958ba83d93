#pragma once
// JSON <-> Project. Validation reports every problem with its JSON path, never crashes:
//   $.trainer.devices[2]: unknown device "cuda:9" (available: cpu)
// Unknown keys and wrong types are errors.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "engine/core/Check.h"
#include "engine/project/Project.h"

namespace tbench {

/// One validation problem: a JSON path ("$.data.batch_size") and what is wrong there.
struct ProjectIssue {
  std::string path;
  std::string message;
  std::string toString() const { return path + ": " + message; }
};

/// A project that does not parse or validate. what() lists every issue, one per line,
/// prefixed by the source (file name).
class ProjectError : public InputError {
 public:
  ProjectError(const std::string& source, std::vector<ProjectIssue> issues);
  const std::vector<ProjectIssue>& issues() const { return issues_; }

 private:
  std::vector<ProjectIssue> issues_;
};

/// Validates `doc` and returns the project. Throws ProjectError with every issue found.
/// `source` names the document in messages; when it is the path of a file, relative paths in
/// the project are resolved against that file's directory (Project::baseDir).
Project projectFromJson(const nlohmann::json& doc, const std::string& source = "project");

/// Every issue of `doc`, empty when it is a valid project. Never throws.
std::vector<ProjectIssue> validateProjectJson(const nlohmann::json& doc);

/// The complete document for `project`, every field written (defaults included).
nlohmann::json projectToJson(const Project& project);

}  // namespace tbench
