//===- CheckCommand.cpp - `cake check` ------------------------------------===//
#include "cli/Commands.h"
#include "formats/FailureLog.h"
#include "cli/Instances.h"
#include "cli/Options.h"
#include "formats/Input.h"
#include "formats/JsonRenderer.h"
#include "compiler/pipeline/Pipeline.h"
#include "formats/SarifRenderer.h"
#include "compiler/driver/Check.h"
#include "compiler/driver/Fixes.h"
#include "compiler/driver/Tactics.h"
#include "compiler/cuda/Check.h"
#include "compiler/driver/Verify.h"
#include "diagnostics/TextRenderer.h"

#include <cxxopts.hpp>
#include <set>
#include <tuple>
#include <algorithm>
#include <iostream>
#include <unistd.h>

namespace cake::cli {
namespace {

/// Splits \p text at lines that are exactly `// -----`. Each piece keeps its
/// original line numbers by starting with as many newlines as precede it.
std::vector<std::string> splitInput(const std::string &text) {
  std::vector<std::string> pieces;
  std::string current;
  size_t lineNo = 0, pieceStartLine = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line(text.data() + pos, (nl == std::string::npos ? text.size() : nl) - pos);
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\r'))
      trimmed.remove_suffix(1);
    if (trimmed == "// -----") {
      pieces.push_back(std::string(pieceStartLine, '\n') + current);
      current.clear();
      pieceStartLine = lineNo + 1;
    } else {
      current.append(line);
      if (nl != std::string::npos)
        current += '\n';
    }
    if (nl == std::string::npos)
      break;
    pos = nl + 1;
    ++lineNo;
  }
  pieces.push_back(std::string(pieceStartLine, '\n') + current);
  return pieces;
}

cxxopts::Options makeOptions() {
  cxxopts::Options o("cake check", "Parse and check CAKE IR files and print their diagnostics.\n"
                                   "Reads standard input when no FILE (or '-') is given.");
  o.add_options()("format", "Output format: text, json or sarif",
                  cxxopts::value<std::string>()->default_value("text"))(
      "target", "Check for this target instead of the declared one: sm_80, sm_90a or sm_100a",
      cxxopts::value<std::string>())("verify",
                                     "Compare diagnostics with expected-* annotations in comments (for tests)")(
      "split-input-file", "Check each part between '// -----' lines as its own file")(
      "fix", "Apply the preferred fix-its in place, then check again and print what is left")(
      "lower", "Also report what the lowering cannot generate yet (lower.unsupported): what `cake build` would "
               "refuse")(
      "compile-commands", "For .cu files: the folder of the compile_commands.json to read the file's flags from "
                            "(default: the file's folder or one above it; 'none': do not read one)",
      cxxopts::value<std::string>())(
      "cuda-events", "For .cu files: print what the checker sees of each kernel (its events) instead of checking")(
      "color", "Colour text output: auto, always or never", cxxopts::value<std::string>()->default_value("auto"))(
      "h,help", "Show this help")("files", "Input files", cxxopts::value<std::vector<std::string>>());
  addInstanceOptions(o, /*forCheck=*/true);
  o.parse_positional({"files"});
  o.positional_help("FILE... [-- CLANG_FLAGS (for .cu files)]");
  return o;
}

int usage(const std::string &message) {
  std::cerr << "cake check: " << message << "\n";
  return UsageError;
}

} // namespace

int runCheck(int argc, char **argv) {
  cxxopts::Options options = makeOptions();
  cxxopts::ParseResult args;
  // `cake check FILE.cu -- CLANG_FLAGS`: what follows `--` goes to Clang (-I, -D, -std of the user's build)
  std::vector<std::string> clangFlags;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") {
      for (int j = i + 1; j < argc; ++j)
        clangFlags.emplace_back(argv[j]);
      argc = i;
      break;
    }
  if (auto done = parseCommandLine(options, argc, argv, args))
    return *done;
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json" && format != "sarif")
    return usage("unknown format '" + format + "' (expected text, json or sarif)");
  std::string color = args["color"].as<std::string>();
  if (color != "auto" && color != "always" && color != "never")
    return usage("unknown colour mode '" + color + "' (expected auto, always or never)");
  CheckOptions checkOptions;
  if (args.count("target")) {
    checkOptions.target = parseTarget(args["target"].as<std::string>());
    if (!checkOptions.target)
      return usage("unknown target '" + args["target"].as<std::string>() + "' (expected sm_80, sm_90a or sm_100a)");
  }
  const bool withLowering = args.count("lower") > 0;
  std::vector<std::string> files{"-"};
  if (args.count("files"))
    files = args["files"].as<std::vector<std::string>>();
  bool fix = args.count("fix");
  if (fix && (args.count("verify") || args.count("split-input-file") ||
              std::find(files.begin(), files.end(), "-") != files.end()))
    return usage("--fix needs file paths and excludes --verify and --split-input-file");

  SourceManager sm;
  std::vector<Diagnostic> diags;
  std::vector<std::string> mismatches;
  for (const std::string &path : files) {
    std::string text;
    if (auto error = readInput(path, text); !error)
      return usage(error.error().message);
    std::string name = path == "-" ? "<stdin>" : path;
    if (cuda::isCudaSource(path)) {
      FileId file = sm.addBuffer(name, std::move(text));
      cuda::CheckOptions cudaOptions;
      cudaOptions.arch = std::string(targetName(checkOptions.target.value_or(Target::SM90a)));
      // CAKE's runtime header is found as cake build finds it (emitted CUDA includes it)
      cudaOptions.clangFlags = {"-I" + pipeline::runtimeIncludeDir()};
      cudaOptions.clangFlags.insert(cudaOptions.clangFlags.end(), clangFlags.begin(), clangFlags.end());
      cudaOptions.cacheDir = cuda::cacheDir();
      if (args.count("compile-commands")) {
        std::string db = args["compile-commands"].as<std::string>();
        cudaOptions.compilationDatabase = db == "none" ? std::nullopt : std::optional<std::string>(db);
      }
      if (args.count("cuda-events")) {
        std::optional<std::string> events = cuda::describeEvents(sm, file, cudaOptions);
        if (!events)
          return usage(path + ": this cake was built without Clang (libTooling), which the CUDA checker needs");
        std::cout << *events;
        continue;
      }
      std::optional<std::vector<Diagnostic>> found = cuda::checkFile(sm, file, cudaOptions);
      if (!found)
        return usage(path + ": this cake was built without Clang (libTooling), which the CUDA checker needs");
      // --fix: the exact fix-its in the file itself (a header's stay the author's), then a check of the result
      if (std::string fixed(sm.text(file)); fix && applyFixes(fixed, file, *found)) {
        if (auto error = writeFileAtomically(path, fixed); !error)
          return usage(error.error().message);
        file = sm.addBuffer(name, std::move(fixed));
        found = cuda::checkFile(sm, file, cudaOptions);
      }
      diags.insert(diags.end(), found->begin(), found->end());
      continue;
    }
    std::vector<std::string> pieces =
        args.count("split-input-file") ? splitInput(text) : std::vector<std::string>{std::move(text)};
    const size_t firstOfFile = diags.size();
    std::string logged; // the IR the log records: the file's text after --fix
    for (std::string &piece : pieces) {
      FileId file = sm.addBuffer(name, piece);
      auto insts = instantiationsFor(args, sm, path, file, /*forCheck=*/true);
      if (!insts)
        return usage(insts.error().message);
      checkOptions.instantiations = std::move(*insts);
      CheckResult result = pipeline::checkFile(sm, file, checkOptions, withLowering);
      if (fix && applyFixes(piece, file, result.diagnostics)) {
        if (auto error = writeFileAtomically(path, piece); !error)
          return usage(error.error().message);
        file = sm.addBuffer(name, std::move(piece));
        result = pipeline::checkFile(sm, file, checkOptions, withLowering);
      }
      if (args.count("verify"))
        for (std::string &m : verifyDiagnostics(sm, file, result.diagnostics))
          mismatches.push_back(std::move(m));
      diags.insert(diags.end(), result.diagnostics.begin(), result.diagnostics.end());
      // a check of one instantiation keeps the program as that instantiation sees it: its bindings made the
      // parameters' defaults (what cake evolve reduces checks the same)
      const auto &checked = checkOptions.instantiations;
      if (checked.size() == 1 && !checked.front().bindings.empty()) {
        std::vector<std::pair<std::string, std::string>> bound;
        for (const sema::Binding &b : checked.front().bindings)
          bound.emplace_back(b.name, b.value);
        logged += pinParameters(piece, bound);
      } else {
        logged += piece;
      }
    }
    // the failure log (formats/FailureLog.h): a file's outcome, not a test's (--verify) or stdin's
    if (path != "-" && !args.count("verify"))
      logOutcome("check", path, logged, std::vector<Diagnostic>(diags.begin() + firstOfFile, diags.end()));
  }

  if (args.count("verify")) {
    for (const std::string &m : mismatches)
      std::cout << m << "\n";
    return mismatches.empty() ? Success : InputErrors;
  }
  if (format == "json")
    std::cout << renderJson(sm, diags);
  else if (format == "sarif")
    std::cout << renderSarif(sm, diags, CAKE_VERSION);
  else {
    TextStyle style;
    style.color = color == "always" || (color == "auto" && shouldUseColor(STDOUT_FILENO));
    renderText(std::cout, sm, diags, style);
    renderSummary(std::cout, diags);
  }
  return countErrors(diags) ? InputErrors : Success;
}

} // namespace cake::cli
