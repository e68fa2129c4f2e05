//===- BuildCommand.cpp - `cake build` ------------------------------------===//
//
// Until the lowering exists, `cake build` compiles CUDA source (.cu) with the
// runner's build path: NVRTC in process, or nvcc + ptxas with --nvcc. It
// prints the tool chain's diagnostics (mapped to the files and lines of #line
// directives) and ptxas's per-kernel report, and writes PTX or a cubin.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "formats/FailureLog.h"
#include "cli/Instances.h"
#include "cli/Options.h"
#include "cli/CudaSupport.h"
#include "formats/Input.h"
#include "formats/JsonRenderer.h"
#include "compiler/pipeline/Pipeline.h"
#include "diagnostics/TextRenderer.h"

#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace cake::cli {
namespace {

int usage(const std::string &message) {
  std::cerr << "cake build: " << message << "\n";
  return UsageError;
}

} // namespace

int runBuild(int argc, char **argv) {
  cxxopts::Options o("cake build",
                     "Compile a kernel to PTX or a cubin and print ptxas's report (registers, spills, stack,\n"
                     "shared memory per kernel). FILE is CAKE IR (.cake: checked, lowered, then compiled) or\n"
                     "CUDA source (.cu); errors are reported at the IR (or source) line that produced them.");
  o.add_options()("o,output", "Write the result: FILE.ptx (PTX) or FILE.cubin (ELF)", cxxopts::value<std::string>())(
      "format", "Output format: text or json", cxxopts::value<std::string>()->default_value("text"))(
      "color", "Colour text output: auto, always or never", cxxopts::value<std::string>()->default_value("auto"))(
      "no-verify", "CAKE IR: skip the verifier's rules")(
      "watch-hangs", "CAKE IR: build the hang watchdog's kernels (every barrier wait bounded), as cake run "
                     "--watch-hangs does")(
      "report", "Also write the result as the JSON document --format json prints to this file",
      cxxopts::value<std::string>())("h,help", "Show this help")(
      "file", "Input file", cxxopts::value<std::string>());
  addCudaOptions(o);
  addInstanceOptions(o, /*forCheck=*/false);
  o.parse_positional({"file"});
  o.positional_help("FILE");

  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json")
    return usage("unknown format '" + format + "' (expected text or json)");
  std::string color = args["color"].as<std::string>();
  if (color != "auto" && color != "always" && color != "never")
    return usage("unknown colour mode '" + color + "'");
  if (!args.count("file"))
    return usage("which file? (see 'cake build --help')");
  std::string path = args["file"].as<std::string>();
  CudaCompile cuda;
  if (auto error = readCudaOptions(args, cuda); !error)
    return usage(error.error().message);
  std::string output;
  if (args.count("output")) {
    output = args["output"].as<std::string>();
    std::string ext = std::filesystem::path(output).extension().string();
    if (ext != ".ptx" && ext != ".cubin")
      return usage("-o names a .ptx or a .cubin file, not '" + output + "'");
  }
  std::string text;
  if (auto error = readInput(path, text); !error)
    return usage(error.error().message);
  SourceManager sm;
  FileId file = sm.addBuffer(path == "-" ? "<stdin>" : path, std::move(text));
  const FileId source = file; // the file as written (CAKE IR: `file` becomes its generated CUDA)
  if (isCakeSource(path)) {
    // CAKE IR: check, lower every kernel, compile the generated CUDA
    auto insts = instantiationsFor(args, sm, path, file, /*forCheck=*/false);
    if (!insts)
      return usage(insts.error().message);
    CheckOptions check;
    check.verify = !args.count("no-verify");
    check.target = cuda.targetGiven ? std::optional<Target>(cuda.build.target) : std::nullopt;
    check.instantiations = std::move(*insts);
    lower::LowerOptions lowering;
    lowering.boundedWaits = args.count("watch-hangs") > 0;
    auto loweredFile = pipeline::lowerFile(sm, file, lowering, check);
    if (!loweredFile) {
      logOutcome("build", path, sm.text(file), loweredFile.error().diagnostics);
      bool useColor = color == "always" || (color == "auto" && shouldUseColor(STDERR_FILENO));
      renderText(std::cerr, sm, loweredFile.error().diagnostics, TextStyle{useColor});
      renderSummary(std::cerr, loweredFile.error().diagnostics);
      return InputErrors;
    }
    const pipeline::LoweredFile *lowered = loweredFile->get();
    if (!cuda.targetGiven && !lowered->module.kernels.empty())
      cuda.build.target = lowered->module.kernels[0].kernel->target;
    cuda.build.includeDirs.push_back(pipeline::runtimeIncludeDir());
    file = lowered->cuda;
  }
  runner::BuildResult result = compileCuda(sm, file, cuda);
  // the arguments that say how it was compiled (not where the result went or how it was printed), and the
  // folder: what builds it again (cake evolve reduces a build's finding with them)
  formats::RunDetails again;
  again.args = argumentsAgain(argc, argv, path, {"-o", "--output", "--format", "--color", "--report"});
  logOutcome("build", path, sm.text(source), result.diagnostics, "build", again);

  if (result.success && !output.empty()) {
    const std::string &bytes = output.ends_with(".ptx") ? result.ptx : result.cubin;
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())))
      return usage(output + ": cannot write");
  }

  if (format == "json" || args.count("report")) {
    nlohmann::ordered_json doc = diagnosticsToJson(sm, result.diagnostics);
    nlohmann::ordered_json out;
    out["version"] = doc["version"];
    out["tool"] = result.tool;
    out["target"] = std::string(targetName(cuda.build.target));
    out["success"] = result.success;
    out["diagnostics"] = doc["diagnostics"];
    out["summary"] = doc["summary"];
    out["kernels"] = ptxasToJson(result.report);
    const std::string json = out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    if (args.count("report"))
      std::ofstream(args["report"].as<std::string>(), std::ios::trunc) << json;
    if (format == "json")
      std::cout << json;
  }
  if (format == "text") {
    bool useColor = color == "always" || (color == "auto" && shouldUseColor(STDERR_FILENO));
    renderText(std::cerr, sm, result.diagnostics, TextStyle{useColor});
    renderSummary(std::cerr, result.diagnostics);
    if (!result.report.functions.empty() || result.success)
      printPtxasReport(std::cout, result, cuda.build);
    if (result.success && !output.empty())
      std::cout << "wrote " << output << "\n";
  }
  return result.success && countErrors(result.diagnostics) == 0 ? Success : InputErrors;
}

} // namespace cake::cli
