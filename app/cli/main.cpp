// towerbench-cli: the headless runner (see CliArgs.h for the commands).

#include <iostream>

#include <torch/version.h>

#include "app/cli/CliArgs.h"
#include "app/cli/DevicesCommand.h"
#include "app/cli/LaunchCommand.h"
#include "app/cli/SweepCommand.h"
#include "app/cli/TrainCommand.h"
#include "app/cli/TypesCommand.h"
#include "engine/core/Environment.h"
#include "engine/project/registry/PluginLoader.h"

namespace {

int run(int argc, char** argv) {
  tbench::prepareProcess(argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string commandLine = "towerbench-cli";
  for (const auto& a : args) commandLine += " " + a;

  tbench::cli::CliArgs parsed;
  try {
    parsed = tbench::cli::parseCliArgs(args);
  } catch (const tbench::cli::UsageError& e) {
    std::cerr << "towerbench-cli: " << e.what() << "\n\n" << tbench::cli::usageText();
    return 2;
  }
  if (parsed.command == "help") {
    std::cout << tbench::cli::usageText();
    return 0;
  }
  if (parsed.command == "version") {
    std::cout << "towerbench-cli 0.1.0 (LibTorch " << TORCH_VERSION << ")\n";
    return 0;
  }
  // Plugins register their types before any project is read; one that fails is reported and
  // the command goes on without it (Note [Plugins]).
  for (const tbench::PluginFailure& failure :
       tbench::loadPlugins(parsed.plugins, !parsed.noPluginFolders)) {
    std::cerr << "towerbench-cli: " << failure.message << "\n";
  }
  if (parsed.command == "devices") return tbench::cli::runDevices();
  if (parsed.command == "types") return tbench::cli::runTypes(parsed, std::cout, std::cerr);
  if (parsed.command == "validate") return tbench::cli::runValidate(parsed);
  if (parsed.command == "summary") return tbench::cli::runSummary(parsed);
  if (parsed.command == "find-lr") return tbench::cli::runFindLr(parsed);
  if (parsed.command == "eval") return tbench::cli::runEval(parsed);
  if (parsed.command == "export") return tbench::cli::runExport(parsed);
  if (parsed.command == "launch") return tbench::cli::runLaunch(parsed, argv[0]);
  if (parsed.command == "sweep") return tbench::cli::runSweep(parsed, std::cout, std::cerr);
  return tbench::cli::runTrain(parsed, commandLine);
}

}  // namespace

int main(int argc, char** argv) { return tbench::endProcess(run(argc, argv)); }
