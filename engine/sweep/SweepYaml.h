#pragma once
// YAML sweep files (W&B's command-line workflow writes sweeps in YAML): a YAML document as the
// same JSON document the sweep reader takes (yaml-cpp, Debian's libyaml-cpp-dev).
//
// Plain scalars are typed as YAML 1.2's core schema types them (null, ~; true/false; integers,
// 0x and 0o too; floats, .inf and .nan), with PyYAML's YAML 1.1 booleans yes/no/on/off, which W&B
// reads (its CLI loads sweeps with PyYAML). One difference from PyYAML, on purpose: 1e-3 is the
// number 0.001 (PyYAML reads a float without a dot as the string "1e-3", which W&B's schema
// then refuses). Quoted scalars are strings, as everywhere.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/project/ProjectJson.h"

namespace tbench {

/// The JSON document of YAML `text`; a syntax error goes to `issues` as "$: YAML syntax error at
/// line L, column C: ...", and an empty document is null.
nlohmann::json yamlToJson(const std::string& text, std::vector<ProjectIssue>& issues);

}  // namespace tbench
