#include "engine/sweep/SlurmArray.h"

#include <cctype>
#include <sstream>

#include "engine/core/Check.h"

namespace tbench {

std::string slurmArrayIndices(const std::vector<int64_t>& trials) {
  std::string text;
  for (size_t i = 0; i < trials.size();) {
    size_t j = i;
    while (j + 1 < trials.size() && trials[j + 1] == trials[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(trials[i]);
    if (j > i) text += "-" + std::to_string(trials[j]);
    i = j + 1;
  }
  return text;
}

std::string shellQuoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string slurmArrayScript(const SlurmArrayOptions& o) {
  for (const std::string* path : {&o.sweepDir, &o.workDir}) {
    if (path->find_first_of(" \t\n%") != std::string::npos) {
      throw InputError("the SLURM script cannot name " + *path +
                       " (#SBATCH lines take no spaces and read % as a pattern): give a "
                       "--sweep-dir without them, and run from such a directory");
    }
  }
  // Job names: letters, digits and ._- only.
  std::string jobName = o.jobName;
  for (char& c : jobName) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  }
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `towerbench-cli sweep " << o.sweepFile << " --slurm`: one array task per\n"
    << "# trial (task id = trial index); every task shares " << o.sweepDir << "/sweep-state.json\n"
    << "# with the others for the early-termination decisions. Submit with: sbatch " << o.sweepDir
    << "/slurm-array.sh\n";
  if (!jobName.empty()) s << "#SBATCH --job-name=" << jobName << "\n";
  if (!o.workDir.empty()) s << "#SBATCH --chdir=" << o.workDir << "\n";
  s << "#SBATCH --array=" << slurmArrayIndices(o.trials);
  if (o.maxAtOnce > 0) s << "%" << o.maxAtOnce;
  s << "\n#SBATCH --ntasks=1\n"
    << "#SBATCH --output=" << o.sweepDir << "/slurm-%A_%a.out\n";
  if (o.cpusPerTask > 0) s << "#SBATCH --cpus-per-task=" << o.cpusPerTask << "\n";
  if (o.gpusPerTask > 0) s << "#SBATCH --gres=gpu:" << o.gpusPerTask << "\n";
  for (const std::string& arg : o.sbatchArgs) s << "#SBATCH " << arg << "\n";
  s << "exec " << shellQuoted(o.cli) << " sweep " << shellQuoted(o.sweepFile) << " --sweep-dir "
    << shellQuoted(o.sweepDir)
    << (o.baseProject.empty() ? "" : " --base-project " + shellQuoted(o.baseProject))
    << " --trial \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

}  // namespace tbench
