//===- EmitCommand.cpp - `cake emit` --------------------------------------===//
//
// Prints the CUDA C++ that a .cake file lowers to (with #line directives
// back to the IR), or the diagnostics that stop it.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "formats/Input.h"
#include "compiler/pipeline/Pipeline.h"
#include "cli/Instances.h"
#include "cli/Options.h"
#include "diagnostics/TextRenderer.h"

#include <cxxopts.hpp>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace cake::cli {

int runEmit(int argc, char **argv) {
  cxxopts::Options o("cake emit", "Lower a CAKE IR file to CUDA C++ (with #line directives back to the IR).");
  o.add_options()("o,output", "Write the CUDA source to FILE instead of standard output",
                  cxxopts::value<std::string>())(
      "no-verify", "Skip the verifier's rules (syntax and semantic errors still stop the lowering)")(
      "watch-hangs", "Bound every barrier wait (the hang watchdog's build)")(
      "h,help", "Show this help")("file", "Input file", cxxopts::value<std::string>());
  addInstanceOptions(o, /*forCheck=*/false);
  o.parse_positional({"file"});
  o.positional_help("FILE.cake");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("file")) {
    std::cerr << "cake emit: which file? (see 'cake emit --help')\n";
    return UsageError;
  }
  std::string path = args["file"].as<std::string>(), text;
  if (auto error = readInput(path, text); !error) {
    std::cerr << "cake emit: " << shown(error.error().message) << "\n";
    return UsageError;
  }
  SourceManager sm;
  FileId file = sm.addBuffer(path == "-" ? "<stdin>" : path, std::move(text));
  lower::LowerOptions options;
  options.boundedWaits = args.count("watch-hangs") > 0;
  auto insts = instantiationsFor(args, sm, path, file, /*forCheck=*/false);
  if (!insts) {
    std::cerr << "cake emit: " << shown(insts.error().message) << "\n";
    return UsageError;
  }
  CheckOptions check;
  check.verify = !args.count("no-verify");
  check.instantiations = std::move(*insts);
  auto loweredFile = pipeline::lowerFile(sm, file, options, check);
  const std::vector<Diagnostic> &diagnostics =
      loweredFile ? (*loweredFile)->diagnostics : loweredFile.error().diagnostics;
  renderText(std::cerr, sm, diagnostics, TextStyle{shouldUseColor(STDERR_FILENO)});
  if (!loweredFile) {
    renderSummary(std::cerr, diagnostics);
    return InputErrors;
  }
  const pipeline::LoweredFile *lowered = loweredFile->get();
  if (args.count("output")) {
    std::ofstream out(args["output"].as<std::string>(), std::ios::trunc);
    if (!(out << lowered->module.source)) {
      std::cerr << "cake emit: cannot write " << shown(args["output"].as<std::string>()) << "\n";
      return UsageError;
    }
  } else {
    std::cout << lowered->module.source;
  }
  return Success;
}

} // namespace cake::cli
