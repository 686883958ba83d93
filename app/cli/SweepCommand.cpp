#include "app/cli/SweepCommand.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "engine/project/ProjectFiles.h"
#include "engine/project/ProjectJson.h"
#include "engine/sweep/Hyperband.h"
#include "engine/sweep/Sweep.h"

namespace tbench::cli {

int runSweep(const CliArgs& args, std::ostream& out, std::ostream& err) {
  try {
    const SweepSpec sweep = loadSweepFile(args.project);
    const nlohmann::json base = readProjectJson(sweep.projectPath());
    const std::vector<SweepTrial> trials = sweepTrials(sweep, base);
    const Project first = projectFromJson(trials.front().project, sweep.projectPath());
    out << args.project << ": valid sweep" << (sweep.name.empty() ? "" : " \"" + sweep.name + "\"")
        << " of " << sweep.projectPath() << "\n  " << sweep.method << " search, " << trials.size()
        << " trial(s)";
    if (sweep.method == "grid" && gridSize(sweep) > static_cast<int64_t>(trials.size())) {
      out << " (run_cap " << sweep.runCap << " of the " << gridSize(sweep) << " combinations)";
    }
    out << ", metric " << sweep.metric.name << " ("
        << (sweep.metric.maximize ? "maximize" : "minimize") << "), " << first.maxEpoch
        << " epoch(s) each\n";
    if (sweep.earlyTerminate) {
      out << "  early termination: hyperband, min_iter " << sweep.earlyTerminate->minIter
          << ", eta " << sweep.earlyTerminate->eta << ": judged after epoch(s)";
      const std::vector<int64_t> bands = hyperbandBands(*sweep.earlyTerminate, first.maxEpoch);
      for (int64_t b : bands) out << " " << b;
      if (bands.empty()) out << " (none: max_epoch " << first.maxEpoch << " < min_iter)";
      out << "\n";
    }
    // The trials as a table: one column per parameter, in the sweep's order.
    std::vector<std::string> header = {"trial"};
    for (const auto& p : sweep.parameters) header.push_back(p.path);
    std::vector<std::vector<std::string>> rows;
    for (const SweepTrial& t : trials) {
      std::vector<std::string> row = {std::to_string(t.index)};
      for (const auto& p : sweep.parameters) {
        const nlohmann::json& v = t.values[p.path];
        if (v.is_number_float()) {
          std::ostringstream text;
          text << std::setprecision(6) << v.get<double>();
          row.push_back(text.str());
        } else {
          row.push_back(v.dump());
        }
      }
      rows.push_back(std::move(row));
    }
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) {
      width[c] = header[c].size();
      for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
    }
    const auto line = [&](const std::vector<std::string>& cells) {
      out << " ";
      for (size_t c = 0; c < cells.size(); ++c) {
        const bool last = c + 1 == cells.size();  // no padding at the end of the line
        out << " " << std::left << std::setw(last ? 0 : static_cast<int>(width[c])) << cells[c];
      }
      out << "\n";
    };
    line(header);
    for (const auto& row : rows) line(row);
    return 0;
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    return 2;
  }
}

}  // namespace tbench::cli
