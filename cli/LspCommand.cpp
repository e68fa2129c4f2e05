//===- LspCommand.cpp - `cake lsp` ----------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "lsp/Server.h"

#include <cxxopts.hpp>
#include <iostream>

namespace cake::cli {

int runLsp(int argc, char **argv) {
  cxxopts::Options o("cake lsp", "Run the CAKE language server (LSP 3.17) on standard input and output.\n"
                                 "Editors and agents start it and speak JSON-RPC; see docs/lsp-extensions.md.");
  o.add_options()("stdio", "Use standard input and output (the default and only transport)")("h,help",
                                                                                               "Show this help");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  return lsp::runStdio();
}

} // namespace cake::cli
