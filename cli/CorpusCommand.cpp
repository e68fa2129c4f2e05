//===- CorpusCommand.cpp - `cake corpus` ----------------------------------===//
#include "cli/Commands.h"
#include "cli/CudaSupport.h"
#include "cli/Options.h"
#include "compiler/driver/Corpus.h"

#include <cxxopts.hpp>
#include <filesystem>
#include <iostream>

namespace cake::cli {

int runCorpus(int argc, char **argv) {
  cxxopts::Options o("cake corpus", "Run the rule corpus gate over DIR (default tests/corpus): every rule's bad\n"
                                    "cases must trigger it at the annotated ranges, its fix-its must repair them,\n"
                                    "and its good cases must stay clean.");
  o.add_options()("v,verbose", "List passing cases too")("h,help", "Show this help")(
      "dir", "Corpus directory", cxxopts::value<std::string>()->default_value("tests/corpus"));
  o.parse_positional({"dir"});
  o.positional_help("DIR");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string dir = args["dir"].as<std::string>();
  if (!std::filesystem::is_directory(dir)) {
    std::cerr << "cake corpus: " << shown(dir) << ": not a directory\n";
    return UsageError;
  }
  size_t passed = 0, failed = 0, skipped = 0;
  // the tool chain's codes (cuda.*, ptxas.*): their cases are built (NVRTC), skipped where it is absent
  for (const CorpusResult &r : cake::runCorpus(dir, buildFindings)) {
    if (r.skipped) {
      ++skipped;
      if (args.count("verbose"))
        std::cout << "SKIP " << r.code << ": " << r.path << " (no NVRTC to build it)\n";
      continue;
    }
    (r.passed ? passed : failed)++;
    if (r.passed && !args.count("verbose"))
      continue;
    std::cout << (r.passed ? "PASS " : "FAIL ") << r.code << ": " << r.path << "\n";
    for (const std::string &p : r.problems)
      std::cout << "  " << p << "\n";
  }
  std::cout << "corpus: " << passed << " passed, " << failed << " failed";
  if (skipped)
    std::cout << ", " << skipped << " skipped (built cases, no NVRTC)";
  std::cout << "\n";
  return failed ? InputErrors : Success;
}

} // namespace cake::cli
