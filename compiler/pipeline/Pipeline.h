//===- Pipeline.h - From CAKE IR text to a checked, timed run --*- C++ -*-===//
//
// Part of CAKE. The one pipeline above the lowering, the runner and the
// oracles: parse and check (checkFile), lower (lowerFile), and run on the GPU
// with the check before the timing (runOnGpu). `cake check/emit/build/run/
// bench/cost`, the language server's commands and libcake_kmeans call these
// stages and nothing below them; each stage returns Expected<T>
// (diagnostics/Expected.h). No JSON and no command-line parsing here: the
// callers render the results.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/driver/Check.h"
#include "compiler/lower/Lower.h"
#include "compiler/oracle/Oracles.h"
#include "compiler/runner/Runner.h"
#include "diagnostics/Expected.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cake::pipeline {

//===-- Check ----------------------------------------------------------------===//

/// checkSource (the one diagnostics path), and, when \p withLowering and the
/// file checked without errors, what the lowering cannot generate yet
/// (lower.unsupported): `cake check --lower` and the server's `lower` option,
/// so that "checks clean, `cake build` refuses" shows up while editing. The
/// diagnostics stay sorted.
CheckResult checkFile(const SourceManager &sm, FileId file, const CheckOptions &options, bool withLowering);

//===-- Lower ----------------------------------------------------------------===//

struct LoweredFile {
  CheckResult check;
  lower::LoweredModule module;
  FileId cuda;                         ///< the generated CUDA, a buffer of the SourceManager
  std::vector<Diagnostic> diagnostics; ///< the check's and the lowering's (warnings on success)
};

/// Checks and lowers buffer \p file of \p sm with \p check (the verifier's
/// rules skipped when check.verify is false, the kernels' targets overridden
/// by check.target; a file with parameters lowers its first instantiation,
/// check.instantiations[0], else its defaults). On success the generated
/// CUDA is added to \p sm as "<name>.cu"; on errors the Error is of kind
/// Source and carries every diagnostic.
[[nodiscard]] Expected<std::unique_ptr<LoweredFile>> lowerFile(SourceManager &sm, FileId file,
                                                               const lower::LowerOptions &options,
                                                               const CheckOptions &check);

/// The host tensor type of a global parameter's element type (what `cake
/// run` and `cake task` allocate and fill); nullopt for one the oracles
/// cannot generate.
std::optional<oracle::DType> tensorDType(sema::Elem elem);

/// The folder holding cake_device.cuh: $CAKE_RUNTIME_DIR, else the source tree's.
std::string runtimeIncludeDir();

//===-- Run ------------------------------------------------------------------===//

/// One launch of a run: the kernel's symbol, its configuration and packed
/// parameters.
struct GpuLaunch {
  std::string kernel;
  runner::LaunchConfig config;
  runner::KernelParams params;
};

/// What a caller of runOnGpu brings: the module, the launches and (when it
/// has one) the check. `cake run FILE.cake` binds a workload's tensors and its
/// oracle; `cake run FILE.cu` binds the --arg buffers and has no oracle.
class GpuWork {
public:
  virtual ~GpuWork() = default;
  /// The image to load (a cubin, or PTX the driver compiles) for \p device.
  virtual Expected<std::string> image(const runner::DeviceInfo &device) = 0;
  /// Allocates and fills the inputs and returns the launches, in order; the
  /// last one is the kernel the run is about.
  virtual Expected<std::vector<GpuLaunch>> prepare(runner::Runner &gpu) = 0;
  /// Explains a failed first launch (a watched wait's run.hang); the default
  /// passes the runner's error on.
  virtual Error launchFailed(runner::Runner &gpu, Error error) { return error; }
  /// Reads the outputs after the first launch and checks them. nullopt: this
  /// run has nothing to check them against (the outcome says so).
  virtual std::optional<Expected<oracle::CheckReport>> check(runner::Runner &gpu) { return std::nullopt; }
  /// After the timing (read results back, free buffers).
  virtual Status finish(runner::Runner &gpu) { return Ok{}; }
};

struct RunOptions {
  int device = 0;
  runner::TimingOptions timing;
  /// Announces a phase and how long it may take, for a watchdog outside the
  /// process (cli/Watchdog.h); may be empty.
  std::function<void(double budgetSeconds, const std::string &what)> phase;
  /// Time a run whose check failed too (a JSON report shows both); otherwise
  /// such a run returns untimed (RunOutcome::launches empty).
  bool timeFailedCheck = false;
};

/// Budget of the GPU's start (cuInit, context) and of a module load.
constexpr double kStartBudget = 120;
/// Added to each launch's timeout before a watchdog kills.
constexpr double kGrace = 10;

struct LaunchTime {
  std::string kernel;
  runner::Timing timing;
};

struct RunOutcome {
  runner::DeviceInfo device;
  std::vector<LaunchTime> launches; ///< each launch timed on its own, in order
  /// The run's time: the last launch's, with the earlier launches' medians
  /// added to each statistic (a pipeline of kernels is timed as a whole).
  runner::Timing time;
  std::optional<runner::KernelAttributes> attributes; ///< of the last launch's kernel
  /// The check of the outputs, made before any timing; nullopt when the run
  /// was not checked (no oracle, or --no-check): callers must say so.
  std::optional<oracle::CheckReport> check;
};

/// Starts the GPU, loads \p work's image, launches its kernels once,
/// checks the outputs, then times every launch. A failed check is not an
/// Error (the outcome carries it; RunOptions::timeFailedCheck says whether
/// the timing still happens); a failed launch is, with the runner's kind
/// (Timeout: the process must end, a kernel cannot be stopped inside it).
[[nodiscard]] Expected<RunOutcome> runOnGpu(GpuWork &work, const RunOptions &options);

} // namespace cake::pipeline
