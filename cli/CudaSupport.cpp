//===- CudaSupport.cpp - What `cake build` and `cake run` share -----------===//
#include "cli/CudaSupport.h"

#include "compiler/pipeline/Pipeline.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

namespace cake::cli {

void addCudaOptions(cxxopts::Options &o) {
  o.add_options("CUDA build")("target", "Target: sm_80, sm_90a or sm_100a", cxxopts::value<std::string>())(
      "nvcc", "Compile ahead of time with nvcc and ptxas instead of NVRTC in process")(
      "G,debug", "Device debug information (-G) and -DCAKE_DEBUG; ptxas then ignores setmaxnreg")(
      "I,include", "Add an include directory", cxxopts::value<std::vector<std::string>>())(
      "D,define", "Define a macro (NAME or NAME=VALUE)", cxxopts::value<std::vector<std::string>>())(
      "maxrregcount", "Register limit per thread for ptxas", cxxopts::value<int>());
}

Status readCudaOptions(const cxxopts::ParseResult &args, CudaCompile &out) {
  if (args.count("target")) {
    std::string name = args["target"].as<std::string>();
    auto target = parseTarget(name);
    if (!target)
      return Error(Error::InvalidArgument, "unknown target '" + name + "' (expected sm_80, sm_90a or sm_100a)");
    out.build.target = *target;
    out.targetGiven = true;
  }
  out.nvcc = args.count("nvcc") > 0;
  out.build.debug = args.count("debug") > 0;
  if (args.count("include"))
    out.build.includeDirs = args["include"].as<std::vector<std::string>>();
  if (args.count("define"))
    out.build.defines = args["define"].as<std::vector<std::string>>();
  if (args.count("maxrregcount")) {
    int n = args["maxrregcount"].as<int>();
    if (n < 1 || n > 255)
      return Error(Error::InvalidArgument, "--maxrregcount must be 1 to 255");
    out.build.maxRegisters = n;
  }
  return Ok{};
}

runner::BuildResult compileCuda(SourceManager &sm, FileId file, const CudaCompile &options) {
  std::vector<std::string> dirs;
  std::filesystem::path source(sm.name(file));
  if (source.has_parent_path())
    dirs.push_back(source.parent_path().string());
  runner::LogMapper::Loader loader = runner::fileLoader(dirs);
  return options.nvcc ? runner::buildWithNvcc(sm, file, options.build, loader)
                      : runner::buildWithNvrtc(sm, file, options.build, loader);
}

std::optional<std::vector<Diagnostic>> buildFindings(SourceManager &sm, FileId file) {
  if (!runner::nvrtcAvailable())
    return std::nullopt;
  auto lowered = pipeline::lowerFile(sm, file, lower::LowerOptions{}, CheckOptions{});
  if (!lowered)
    return lowered.error().diagnostics;
  CudaCompile cuda;
  if (!(*lowered)->module.kernels.empty())
    cuda.build.target = (*lowered)->module.kernels[0].kernel->target;
  cuda.build.includeDirs.push_back(pipeline::runtimeIncludeDir());
  std::vector<Diagnostic> out = (*lowered)->diagnostics;
  runner::BuildResult built = compileCuda(sm, (*lowered)->cuda, cuda);
  out.insert(out.end(), built.diagnostics.begin(), built.diagnostics.end());
  sortDiagnostics(out);
  return out;
}

void printPtxasReport(std::ostream &os, const runner::BuildResult &r, const runner::BuildOptions &options) {
  std::ostringstream head;
  head << std::fixed << std::setprecision(2) << r.seconds;
  std::string tool = r.tool.starts_with("NVRTC") ? r.tool : "nvcc + ptxas";
  os << "ptxas report for " << targetName(options.target) << " (" << tool << ", " << head.str() << " s):\n";
  if (r.report.functions.empty()) {
    os << "  (no functions)\n";
    return;
  }
  for (const runner::PtxasFunction &f : r.report.functions) {
    os << "  " << (f.entry ? "kernel " : "function ") << f.demangled;
    if (f.demangled != f.name)
      os << " [" << f.name << "]";
    os << ": ";
    if (f.registers >= 0)
      os << f.registers << " registers, ";
    os << f.spillStores << " bytes spill stores, " << f.spillLoads << " bytes spill loads, " << f.stackFrame
       << " bytes stack frame";
    if (f.entry)
      os << ", " << f.sharedBytes << " bytes static shared memory";
    if (f.barriers >= 0)
      os << ", " << f.barriers << " barriers";
    os << "\n";
  }
}

nlohmann::ordered_json ptxasToJson(const runner::PtxasReport &report) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const runner::PtxasFunction &f : report.functions) {
    nlohmann::ordered_json j;
    j["name"] = f.name;
    j["demangled"] = f.demangled;
    j["entry"] = f.entry;
    j["arch"] = f.arch;
    j["registers"] = f.registers;
    j["barriers"] = f.barriers;
    j["stackFrame"] = f.stackFrame;
    j["spillStores"] = f.spillStores;
    j["spillLoads"] = f.spillLoads;
    j["cumulativeStack"] = f.cumulativeStack;
    j["sharedBytes"] = f.sharedBytes;
    nlohmann::ordered_json banks = nlohmann::ordered_json::object();
    for (const auto &[bank, bytes] : f.constantBanks)
      banks[std::to_string(bank)] = bytes;
    j["constantBytes"] = banks;
    out.push_back(j);
  }
  return out;
}

bool isCakeSource(const std::string &path) { return std::filesystem::path(path).extension() == ".cake"; }

} // namespace cake::cli
