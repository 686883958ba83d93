#include "app/cli/TypesCommand.h"

#include <ostream>

#include "engine/project/registry/ComponentListings.h"
#include "engine/project/registry/ComponentRegistry.h"

namespace tbench::cli {

int runTypes(const CliArgs& args, std::ostream& out, std::ostream& err) {
  try {
    out << (args.markdown ? keyReferenceMarkdown() : typeListingText(args.kind));
    return 0;
  } catch (const InputError& e) {
    err << "towerbench-cli types: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace tbench::cli
