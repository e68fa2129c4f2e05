//===- CudaSupport.h - What `cake build` and `cake run` share --*- C++ -*-===//
#pragma once

#include "compiler/runner/Build.h"

#include "diagnostics/Expected.h"

#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace cake::cli {

struct CudaCompile {
  runner::BuildOptions build;
  bool nvcc = false;        ///< the ahead-of-time path
  bool targetGiven = false; ///< --target was on the command line
};

/// --target, --nvcc, -G, -I, -D, --maxrregcount.
void addCudaOptions(cxxopts::Options &options);

/// Reads the options of addCudaOptions; InvalidArgument on a bad value.
Status readCudaOptions(const cxxopts::ParseResult &args, CudaCompile &out);

/// Compiles buffer \p file with NVRTC or nvcc; files that #line directives
/// name are read relative to the current directory and to the source's.
runner::BuildResult compileCuda(SourceManager &sm, FileId file, const CudaCompile &options);

/// What `cake build` of CAKE IR buffer \p file finds with the default options (the kernels' targets, NVRTC):
/// the check's and the lowering's diagnostics, then the CUDA compiler's and ptxas's, located in the IR; nullopt
/// when NVRTC is not available. The corpus gate builds the tool chain's codes' cases with it.
std::optional<std::vector<Diagnostic>> buildFindings(SourceManager &sm, FileId file);

/// "ptxas report for sm_90a (NVRTC 13.0, 0.12 s):" and a line per function.
void printPtxasReport(std::ostream &os, const runner::BuildResult &result, const runner::BuildOptions &options);

/// The functions of \p report as a JSON array.
nlohmann::ordered_json ptxasToJson(const runner::PtxasReport &report);

/// True for a path that names CAKE IR (lowering is not implemented yet).
bool isCakeSource(const std::string &path);

} // namespace cake::cli
