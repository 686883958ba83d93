#include "app/cli/CliArgs.h"

#include <cstdlib>

namespace tbench::cli {
namespace {

int64_t parseCount(const std::string& option, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || n < 1) {
    throw UsageError(str(option, " expects a positive integer, got \"", value, "\""));
  }
  return n;
}

}  // namespace

std::string usageText() {
  return "usage:\n"
         "  towerbench-cli train PROJECT [--run-dir DIR] [--max-epoch N] [--steps-per-epoch N]\n"
         "                               [--set json.path=value]... [--new-run]\n"
         "  towerbench-cli validate PROJECT\n"
         "  towerbench-cli --help | --version\n"
         "\n"
         "train     trains PROJECT headless; the run goes to <run_root>/<name>/<run-id>/ or DIR.\n"
         "          An existing DIR is never overwritten: --new-run starts DIR-1 beside it.\n"
         "          --set changes one project field before validation, e.g.\n"
         "          --set data.batch_size=64 --set 'trainer.devices=[\"cpu\"]'\n"
         "validate  checks PROJECT and its data files and prints every problem found\n"
         "\n"
         "exit status: 0 success, 1 training failed, 2 bad input (messages on stderr),\n"
         "130 stopped by Ctrl-C (after a clean stop)\n";
}

CliArgs parseCliArgs(const std::vector<std::string>& args) {
  CliArgs out;
  if (args.empty()) throw UsageError("no command given");
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    out.command = "help";
    return out;
  }
  if (first == "--version") {
    out.command = "version";
    return out;
  }
  if (first != "train" && first != "validate") {
    throw UsageError(str("unknown command \"", first, "\""));
  }
  out.command = first;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(str(arg, " needs a value"));
      return args[++i];
    };
    const bool train = out.command == "train";
    if (arg == "--help" || arg == "-h") {
      out.command = "help";
      return out;
    } else if (train && arg == "--run-dir") {
      out.runDir = value();
    } else if (train && arg == "--max-epoch") {
      out.maxEpoch = parseCount(arg, value());
    } else if (train && arg == "--steps-per-epoch") {
      out.stepsPerEpoch = parseCount(arg, value());
    } else if (train && arg == "--set") {
      const std::string& assignment = value();
      if (assignment.find('=') == std::string::npos) {
        throw UsageError(str("--set expects path=value, got \"", assignment, "\""));
      }
      out.overrides.push_back(assignment);
    } else if (train && arg == "--new-run") {
      out.newRun = true;
    } else if (!arg.empty() && arg[0] == '-') {
      throw UsageError(str("unknown option ", arg, " for ", out.command));
    } else if (out.project.empty()) {
      out.project = arg;
    } else {
      throw UsageError(str("unexpected argument \"", arg, "\""));
    }
  }
  if (out.project.empty()) throw UsageError(str(out.command, " needs a PROJECT file"));
  return out;
}

}  // namespace tbench::cli
