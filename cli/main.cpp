//===- main.cpp - The cake command line -----------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"

#include <cxxopts.hpp>
#include <cstring>
#include <iostream>
#include <string_view>

namespace {

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(int, char **);
};

constexpr Command kCommands[] = {
    {"check", "Parse and check CAKE IR files; print diagnostics", cake::cli::runCheck},
    {"fmt", "Format CAKE IR files in the canonical style", cake::cli::runFmt},
    {"rules", "List the rule catalog", cake::cli::runRules},
    {"targets", "List the targets and their numbers", cake::cli::runTargets},
    {"explain", "Print the page of a rule", cake::cli::runExplain},
    {"corpus", "Run the rule corpus gate", cake::cli::runCorpus},
    {"reduce", "Shrink a file while it keeps a failure signature", cake::cli::runReduce},
    {"tactic", "Named schedule rewrites (stages, param), checked again and costed", cake::cli::runTactic},
    {"tune", "Rank instantiations by the cost model, run the best on the GPU, keep a tuning database",
     cake::cli::runTune},
    {"log", "List the project's failure log, or sum it up by rule code", cake::cli::runLog},
    {"evolve", "Proposals from the failure log: recurring rule codes, reduced", cake::cli::runEvolve},
    {"emit", "Lower CAKE IR to CUDA C++", cake::cli::runEmit},
    {"build", "Compile a kernel (CAKE IR or CUDA) and print ptxas's report", cake::cli::runBuild},
    {"run", "Run a kernel on the GPU against its oracle and time it", cake::cli::runRun},
    {"bench", "Run a plan of kernels and shapes; write a results file", cake::cli::runBench},
    {"task", "Kernel tasks: score a .cake or .cu candidate with the defences against reward hacking",
     cake::cli::runTask},
    {"cost", "Estimate a kernel's time with the cost model; validate it", cake::cli::runCost},
    {"calibrate", "Fit the cost model's calibration from measurements", cake::cli::runCalibrate},
    {"dispatch", "A kernel library's manifest: which instantiation takes a problem, and why", cake::cli::runDispatch},
    {"lsp", "Run the language server on stdin/stdout", cake::cli::runLsp},
};

void printUsage(std::ostream &os) {
  os << "CAKE: a compiler for GPU kernels, written by agents and people alike.\n\n"
        "Usage: cake <command> [options] [FILE...]\n\nCommands:\n";
  for (const Command &c : kCommands)
    os << "  " << c.name << std::string(c.name.size() < 8 ? 8 - c.name.size() : 1, ' ') << c.summary << "\n";
  os << "  help    Show help for a command\n\n"
        "Options:\n  -h, --help     Show this help\n  --version      Print the version\n\n"
        "Run 'cake <command> --help' for the options of a command.\n";
}

const Command *findCommand(std::string_view name) {
  for (const Command &c : kCommands)
    if (c.name == name)
      return &c;
  return nullptr;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    printUsage(std::cerr);
    return cake::cli::UsageError;
  }
  std::string_view first = argv[1];
  if (first == "--version" || first == "version") {
    std::cout << "cake " << CAKE_VERSION << "\n";
    return cake::cli::Success;
  }
  if (first == "-h" || first == "--help") {
    printUsage(std::cout);
    return cake::cli::Success;
  }
  if (first == "help") {
    if (argc < 3) {
      printUsage(std::cout);
      return cake::cli::Success;
    }
    const Command *c = findCommand(argv[2]);
    if (!c) {
      std::cerr << "cake: unknown command '" << cake::cli::shown(argv[2]) << "'\n";
      return cake::cli::UsageError;
    }
    char help[] = "--help";
    char *args[] = {argv[2], help, nullptr};
    return c->run(2, args);
  }
  if (const Command *c = findCommand(first)) {
    // The last resort (issue #16): every input error has its own diagnostic;
    // an exception that gets here is a bug, reported in one line with the
    // command, never an abort. Options cxxopts could not make sense of are
    // usage errors.
    int rc;
    try {
      rc = c->run(argc - 1, argv + 1);
    } catch (const cxxopts::exceptions::exception &e) {
      std::cerr << "cake " << first << ": " << cake::cli::shown(e.what()) << " (see 'cake " << first << " --help')\n";
      return cake::cli::UsageError;
    } catch (const std::exception &e) {
      std::cerr << "cake: internal error in 'cake " << first << "': " << cake::cli::shown(e.what()) << "\n";
      return cake::cli::InternalError;
    } catch (...) {
      std::cerr << "cake: internal error in 'cake " << first << "'\n";
      return cake::cli::InternalError;
    }
    // Output that could not be written is an error, not a success.
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "cake " << first << ": cannot write the output\n";
      return cake::cli::OutputError;
    }
    return rc;
  }
  std::cerr << "cake: unknown command '" << cake::cli::shown(first) << "'\n\n";
  printUsage(std::cerr);
  return cake::cli::UsageError;
}
