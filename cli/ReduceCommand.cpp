//===- ReduceCommand.cpp - `cake reduce` ----------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "cli/RunSignature.h"
#include "compiler/driver/Reduce.h"
#include "formats/Input.h"

#include <cxxopts.hpp>
#include <iostream>
#include <unistd.h>

namespace cake::cli {
namespace {

cxxopts::Options makeOptions() {
  cxxopts::Options o("cake reduce",
                     "Shrink a CAKE IR file while it keeps a failure signature: deletes statements (outermost\n"
                     "first), names with their uses, branches of ifs, constants (written where they are used)\n"
                     "and comment lines until no single such edit keeps the signature. The signature\n"
                     "is a diagnostic code the file must keep, with no more errors of any code than the input;\n"
                     "a code of a run (run.hang, run.mismatch, run.unwritten, run.launch, run.timeout, cuda.error)\n"
                     "is kept when `cake run FILE RUN-ARGS` reports it (--run: the workload, the sizes, --watch-hangs;\n"
                     "each candidate is built and run on the GPU, in a child process with its watchdog); a code of\n"
                     "the build (ptxas.wgmma-serialized, ptxas.spill, cuda.error) when `cake build FILE BUILD-ARGS`\n"
                     "reports it (--build).\n"
                     "Prints the reduced file (or writes it with -o) and, on standard error, what was deleted.");
  o.add_options()("keep", "The signature: a diagnostic code the file must keep (e.g. mbar.parity)",
                  cxxopts::value<std::string>())("o,output", "Write the reduced file here",
                                                 cxxopts::value<std::string>())(
      "max-tests", "Stop after this many candidate files", cxxopts::value<size_t>()->default_value("100000"))(
      "run", "For a run's code: the arguments of `cake run` after the file, in one string "
             "(\"--workload W --size N=4096 --watch-hangs\")", cxxopts::value<std::string>())(
      "build", "For a build's code (ptxas.wgmma-serialized, ptxas.spill, cuda.error): the arguments of `cake "
               "build` after the file, in one string (\"--target sm_90a -p WG=2\"); each candidate is compiled, no "
               "GPU needed", cxxopts::value<std::string>())(
      "run-timeout", "Seconds one candidate's run (or build) may take", cxxopts::value<double>()->default_value("600"))(
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
  const bool build = args.count("build") > 0, run = !build && isRunCode(code);
  if (build && !isBuildCode(code)) {
    std::cerr << "cake reduce: --build keeps a code of the build (ptxas.*, cuda.*), not " << shown(code) << "\n";
    return UsageError;
  }
  if (run && !args.count("run")) {
    std::cerr << "cake reduce: " << shown(code) << " is found by running the program: say how with --run "
              << "(the arguments of cake run after the file, e.g. --run \"--workload W --size N=4096\")\n";
    return UsageError;
  }
  auto count = std::make_shared<RunCount>();
  Signature keeps = build ? keepsBuild(code, path, splitArgs(args["build"].as<std::string>()),
                                       args["run-timeout"].as<double>(), count)
                   : run ? keepsRun(code, path, splitArgs(args["run"].as<std::string>()),
                                    args["run-timeout"].as<double>(), count)
                         : keepsDiagnostic(code, text);
  if (!keeps(text)) {
    std::cerr << "cake reduce: " << shown(path) << " does not show the signature (no " << shown(code)
              << (build ? " when built" : run ? " when run" : " diagnostic") << "): nothing to keep\n";
    return InputErrors;
  }
  // a reduction by runs takes a GPU run a test: its progress is written as it goes (-o after each kept
  // deletion, and a line of it to stderr), so an interrupted one leaves the smallest program it found
  std::function<void(const Reduction &)> onKept;
  if (run || build)
    onKept = [&](const Reduction &now) {
      std::cerr << "cake reduce: " << now.tests << " tried, " << count->runs << (build ? " built, " : " run, ")
                << now.deletions << " kept, "
                << std::count(now.text.begin(), now.text.end(), '\n') << " lines\n";
      if (args.count("output"))
        (void)writeFileAtomically(args["output"].as<std::string>(), now.text);
    };
  Reduction r = reduce(text, keeps, args["max-tests"].as<size_t>(), onKept);
  auto lines = [](const std::string &s) { return std::count(s.begin(), s.end(), '\n'); };
  std::cerr << "cake reduce: " << lines(text) << " -> " << lines(r.text) << " lines, " << r.deletions
            << " deletions kept of " << r.tests << " tried";
  if (run || build)
    std::cerr << " (" << count->runs << (build ? " builds; " : " runs; ") << count->remembered
              << " the same program as one " << (build ? "build" : "run") << " before)";
  std::cerr << "; the result keeps " << code << "\n";
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
