#pragma once
// The directory of one run: train_log/<project>/<run-id>/ by default (docs/ARCHITECTURE.md,
// "the run directory"). An existing run directory is never overwritten silently and nothing
// here prompts.

#include <ctime>
#include <optional>
#include <string>

#include "engine/core/Check.h"

namespace tbench {

/// The run directory exists and holds files, and the caller asked neither to resume it nor
/// to start a new run beside it.
class RunDirectoryExists : public InputError {
 public:
  using InputError::InputError;
};

enum class ExistingRunDir {
  Fail,       ///< throw RunDirectoryExists
  NewBeside,  ///< use <dir>-1, <dir>-2, ... (the first that does not exist)
  Reuse,      ///< use it as it is (resume)
};

/// The path a new run of `projectName` gets now, without creating it:
/// <runRoot>/<projectName>/<YYYYmmdd-HHMMSS>, with "-1", "-2", ... when that is taken (the one
/// place the run-id format is written).
std::string newRunDirectoryPath(const std::string& runRoot, const std::string& projectName);
/// A run id for now ("20250314-101010"), as newRunDirectoryPath names a run's directory, for a
/// name that stamps the time the same way (a sweep's id, a kept partial run); not checked for
/// being free.
std::string newRunId();
/// The local time a run id made by newRunDirectoryPath stands for ("20250314-101010", a "-N"
/// suffix ignored); nullopt for another name (the format is read where it is written).
std::optional<std::time_t> runIdTime(const std::string& runId);

/// Creates and returns the directory for a run. With `requested` empty it is
/// <runRoot>/<projectName>/<YYYYmmdd-HHMMSS> (with a suffix when taken); otherwise
/// `requested`, handled by `policy` when it already holds files. Throws InputError naming
/// the path when it cannot be created.
std::string prepareRunDirectory(const std::string& requested, const std::string& runRoot,
                                const std::string& projectName, ExistingRunDir policy);

}  // namespace tbench
