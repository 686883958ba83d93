// Fuzz target: project files through validation (fuzz/README.md), as `towerbench-cli validate`
// and the window's Open Project read them: readProjectJson, then projectFromJson (every
// component type's keys checked against the registry). A project that validates must write
// (projectToJson) a document that validates again and writes the same. Any outcome other than
// that or a std::exception (ProjectError, InputError) with a message naming the file is a bug.

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "fuzz/FuzzScratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = tbench::fuzz::writeScratch("project.json", data, size);
  try {
    const nlohmann::json doc = tbench::readProjectJson(path);
    const tbench::Project project = tbench::projectFromJson(doc, path);
    const nlohmann::json written = tbench::projectToJson(project);
    const tbench::Project again = tbench::projectFromJson(written, path);
    if (tbench::projectToJson(again) != written) std::abort();
  } catch (const std::bad_alloc&) {
    std::abort();  // memory a reader must not ask for (replay_main.cpp limits it)
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(path) == std::string::npos) std::abort();
  }
  return 0;
}
