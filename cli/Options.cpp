//===- Options.cpp - Command-line parsing shared by the subcommands -------===//
#include "cli/Options.h"

#include "cli/Commands.h"
#include "diagnostics/TextRenderer.h"

#include <iostream>

namespace cake::cli {

std::optional<int> parseCommandLine(cxxopts::Options &options, int argc, char **argv, cxxopts::ParseResult &args) {
  try {
    args = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception &e) {
    std::cerr << options.program() << ": " << shown(e.what()) << " (see '" << options.program() << " --help')\n";
    return UsageError;
  }
  if (args.count("help")) {
    std::cout << options.help();
    return Success;
  }
  return std::nullopt;
}

int reportFailure(std::string_view tool, std::string_view message, int code) {
  std::cerr << tool << ": " << shown(message) << "\n";
  return code;
}

std::string shown(std::string_view text) { return visibleText(text); }

} // namespace cake::cli
