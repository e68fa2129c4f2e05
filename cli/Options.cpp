//===- Options.cpp - Command-line parsing shared by the subcommands -------===//
#include "cli/Options.h"

#include "cli/Commands.h"

#include <iostream>

namespace cake::cli {

std::optional<int> parseCommandLine(cxxopts::Options &options, int argc, char **argv, cxxopts::ParseResult &args) {
  try {
    args = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception &e) {
    std::cerr << options.program() << ": " << e.what() << " (see '" << options.program() << " --help')\n";
    return UsageError;
  }
  if (args.count("help")) {
    std::cout << options.help();
    return Success;
  }
  return std::nullopt;
}

} // namespace cake::cli
