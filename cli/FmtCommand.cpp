//===- FmtCommand.cpp - `cake fmt` ----------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "formats/Input.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Printer.h"
#include "diagnostics/TextRenderer.h"

#include <cxxopts.hpp>
#include <iostream>
#include <unistd.h>

namespace cake::cli {
namespace {

cxxopts::Options makeOptions() {
  cxxopts::Options o("cake fmt", "Format CAKE IR in the canonical style. Comments and single blank lines are\n"
                                 "kept. A file with syntax errors is left untouched and its errors printed.\n"
                                 "Reads standard input when no FILE (or '-') is given; prints to standard output\n"
                                 "unless -i is given.");
  o.add_options()("i,in-place", "Rewrite the files in place")(
      "check", "Change nothing; exit 1 and list the files that are not formatted")("h,help", "Show this help")(
      "files", "Input files", cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"files"});
  o.positional_help("FILE...");
  return o;
}

} // namespace

int runFmt(int argc, char **argv) {
  cxxopts::Options options = makeOptions();
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(options, argc, argv, args))
    return *done;
  bool inPlace = args.count("in-place"), check = args.count("check");
  std::vector<std::string> files{"-"};
  if (args.count("files"))
    files = args["files"].as<std::vector<std::string>>();
  if (inPlace && (check || std::find(files.begin(), files.end(), "-") != files.end())) {
    std::cerr << "cake fmt: -i needs file paths and excludes --check\n";
    return UsageError;
  }

  int status = Success;
  SourceManager sm;
  for (const std::string &path : files) {
    std::string text;
    if (auto error = readInput(path, text); !error) {
      std::cerr << "cake fmt: " << shown(error.error().message) << "\n";
      return UsageError;
    }
    FileId file = sm.addBuffer(path == "-" ? "<stdin>" : path, text);
    std::vector<Diagnostic> diags;
    syntax::Module module = syntax::parse(sm, file, diags);
    if (countErrors(diags)) {
      sortDiagnostics(diags);
      renderText(std::cerr, sm, diags, TextStyle{shouldUseColor(STDERR_FILENO)});
      status = InputErrors;
      continue;
    }
    std::string formatted = syntax::print(module);
    if (check) {
      if (formatted != text) {
        std::cout << sm.name(file) << "\n";
        status = InputErrors;
      }
    } else if (inPlace) {
      if (formatted != text)
        if (auto error = writeFileAtomically(path, formatted); !error) {
          std::cerr << "cake fmt: " << shown(error.error().message) << "\n";
          return UsageError;
        }
    } else {
      std::cout << formatted;
    }
  }
  return status;
}

} // namespace cake::cli
