//===- ReduceCommand.cpp - `cake reduce` ----------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/driver/Reduce.h"
#include "formats/Input.h"

#include <cxxopts.hpp>
#include <iostream>

namespace cake::cli {
namespace {

cxxopts::Options makeOptions() {
  cxxopts::Options o("cake reduce",
                     "Shrink a CAKE IR file while it keeps a failure signature: deletes statements (outermost\n"
                     "first) and comment lines until no single deletion keeps the signature. The signature\n"
                     "is a diagnostic code the file must keep, with no more errors of any code than the input.\n"
                     "Prints the reduced file (or writes it with -o) and, on standard error, what was deleted.");
  o.add_options()("keep", "The signature: a diagnostic code the file must keep (e.g. mbar.parity)",
                  cxxopts::value<std::string>())("o,output", "Write the reduced file here",
                                                 cxxopts::value<std::string>())(
      "max-tests", "Stop after this many candidate files", cxxopts::value<size_t>()->default_value("100000"))(
      "h,help", "Show this help")("file", "The input file", cxxopts::value<std::string>());
  o.parse_positional({"file"});
  o.positional_help("FILE --keep CODE");
  return o;
}

} // namespace

int runReduce(int argc, char **argv) {
  cxxopts::Options options = makeOptions();
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(options, argc, argv, args))
    return *done;
  if (!args.count("file") || !args.count("keep")) {
    std::cerr << "cake reduce: needs a FILE and --keep CODE (see cake reduce --help)\n";
    return UsageError;
  }
  const std::string path = args["file"].as<std::string>(), code = args["keep"].as<std::string>();
  std::string text;
  if (auto error = readInput(path, text); !error) {
    std::cerr << "cake reduce: " << shown(error.error().message) << "\n";
    return UsageError;
  }
  Signature keeps = keepsDiagnostic(code, text);
  if (!keeps(text)) {
    std::cerr << "cake reduce: " << shown(path) << " does not show the signature (no " << shown(code)
              << " diagnostic): nothing to keep\n";
    return InputErrors;
  }
  Reduction r = reduce(text, keeps, args["max-tests"].as<size_t>());
  auto lines = [](const std::string &s) { return std::count(s.begin(), s.end(), '\n'); };
  std::cerr << "cake reduce: " << lines(text) << " -> " << lines(r.text) << " lines, " << r.deletions
            << " deletions kept of " << r.tests << " tried; the result keeps " << code << "\n";
  if (args.count("output")) {
    if (auto error = writeFileAtomically(args["output"].as<std::string>(), r.text); !error) {
      std::cerr << "cake reduce: " << shown(error.error().message) << "\n";
      return UsageError;
    }
  } else {
    std::cout << r.text;
  }
  return Success;
}

} // namespace cake::cli
