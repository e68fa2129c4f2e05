//===- LspCommand.cpp - `cake lsp` ----------------------------------------===//
#include "cli/Commands.h"
#include "lsp/Server.h"

#include <cxxopts.hpp>
#include <iostream>

namespace cake::cli {

int runLsp(int argc, char **argv) {
  cxxopts::Options o("cake lsp", "Run the CAKE language server (LSP 3.17) on standard input and output.\n"
                                 "Editors and agents start it and speak JSON-RPC; see docs/lsp-extensions.md.");
  o.add_options()("stdio", "Use standard input and output (the default and only transport)")("h,help",
                                                                                               "Show this help");
  try {
    if (o.parse(argc, argv).count("help")) {
      std::cout << o.help();
      return Success;
    }
  } catch (const cxxopts::exceptions::exception &e) {
    std::cerr << "cake lsp: " << e.what() << "\n";
    return UsageError;
  }
  return lsp::runStdio();
}

} // namespace cake::cli
