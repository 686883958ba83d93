#include "engine/sweep/SlurmArray.h"

#include <sstream>

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
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `towerbench-cli sweep " << o.sweepFile << " --slurm`: one array task per\n"
    << "# trial (task id = trial index); every task shares " << o.sweepDir << "/sweep-state.json\n"
    << "# with the others for the early-termination decisions. Submit with: sbatch " << o.sweepDir
    << "/slurm-array.sh\n";
  if (!o.jobName.empty()) s << "#SBATCH --job-name=" << o.jobName << "\n";
  s << "#SBATCH --array=" << slurmArrayIndices(o.trials);
  if (o.maxAtOnce > 0) s << "%" << o.maxAtOnce;
  s << "\n#SBATCH --ntasks=1\n"
    << "#SBATCH --output=" << o.sweepDir << "/slurm-%A_%a.out\n";
  if (o.cpusPerTask > 0) s << "#SBATCH --cpus-per-task=" << o.cpusPerTask << "\n";
  if (o.gpusPerTask > 0) s << "#SBATCH --gres=gpu:" << o.gpusPerTask << "\n";
  for (const std::string& arg : o.sbatchArgs) s << "#SBATCH " << arg << "\n";
  s << "exec " << shellQuoted(o.cli) << " sweep " << shellQuoted(o.sweepFile) << " --sweep-dir "
    << shellQuoted(o.sweepDir) << " --trial \"$SLURM_ARRAY_TASK_ID\"\n";
  return s.str();
}

}  // namespace tbench
