//===- Pipeline.cpp - From CAKE IR text to a checked, timed run -----------===//
#include "compiler/pipeline/Pipeline.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace cake::pipeline {

CheckResult checkFile(const SourceManager &sm, FileId file, const CheckOptions &options, bool withLowering) {
  CheckResult result = checkSource(sm, file, options);
  if (withLowering && result.model && !countErrors(result.diagnostics)) {
    (void)lower::lowerModule(sm, file, *result.model, result.diagnostics); // only its findings are kept
    sortDiagnostics(result.diagnostics);
  }
  return result;
}

Expected<std::unique_ptr<LoweredFile>> lowerFile(SourceManager &sm, FileId file, const lower::LowerOptions &options,
                                                 const CheckOptions &check) {
  auto out = std::make_unique<LoweredFile>();
  CheckOptions one = check;
  if (one.instantiations.size() > 1)
    one.instantiations.resize(1); // one instantiation lowers at a time
  out->check = checkSource(sm, file, one);
  out->diagnostics = out->check.diagnostics;
  auto failed = [&] {
    return Error(Error::Source, std::to_string(countErrors(out->diagnostics)) + " errors in " + sm.name(file),
                 std::move(out->diagnostics));
  };
  if (countErrors(out->diagnostics) || !out->check.model)
    return failed();
  std::vector<Diagnostic> lowering;
  lower::LowerOptions opts = options;
  if (out->check.instance)
    opts.instantiation = instantiationNote(*out->check.instance);
  out->module = lower::lowerModule(sm, file, *out->check.model, lowering, opts);
  for (Diagnostic &d : lowering)
    out->diagnostics.push_back(std::move(d));
  sortDiagnostics(out->diagnostics);
  if (countErrors(out->diagnostics))
    return failed();
  out->cuda = sm.addBuffer(sm.name(file) + ".cu", out->module.source);
  return out;
}

std::optional<oracle::DType> tensorDType(sema::Elem e) {
  switch (e) {
  case sema::Elem::BF16:
    return oracle::DType::BF16;
  case sema::Elem::FP16:
    return oracle::DType::F16;
  case sema::Elem::FP32:
    return oracle::DType::F32;
  case sema::Elem::I32:
    return oracle::DType::I32;
  case sema::Elem::I64:
    return oracle::DType::I64;
  default:
    return std::nullopt;
  }
}

std::string runtimeIncludeDir() {
  if (const char *dir = std::getenv("CAKE_RUNTIME_DIR"); dir && *dir)
    return dir;
  return CAKE_RUNTIME_DIR;
}

Expected<RunOutcome> runOnGpu(GpuWork &work, const RunOptions &options) {
  auto phase = [&](double budget, const std::string &what) {
    if (options.phase)
      options.phase(budget, what);
  };
  // For the watchdog's own test (tests/lit/runner/watchdog.test): a step
  // that never ends, with the given budget, before anything touches a GPU.
  if (const char *stall = std::getenv("CAKE_RUN_TEST_STALL"); stall && options.phase) {
    phase(std::strtod(stall, nullptr), "a stalled step (CAKE_RUN_TEST_STALL)");
    while (true)
      pause();
  }
  const double launchBudget = options.timing.timeoutSeconds + kGrace;
  phase(kStartBudget, "starting the GPU");
  auto made = runner::makeRunner(options.device);
  if (!made)
    return made.takeError();
  runner::Runner &gpu = **made;
  gpu.setDefaultTimeout(options.timing.timeoutSeconds);
  RunOutcome out;
  out.device = gpu.device();

  phase(kStartBudget, "loading the module");
  auto image = work.image(out.device);
  if (!image)
    return image.takeError();
  auto module = gpu.loadModule(*image);
  if (!module)
    return module.takeError();
  auto launches = work.prepare(gpu);
  if (!launches)
    return launches.takeError();
  if (launches->empty())
    return Error(Error::Internal, "a run without launches");
  const GpuLaunch &main = launches->back();

  // One launch of each kernel, synchronized and checked before any timing.
  phase(launchBudget, "the first launch of '" + main.kernel + "'");
  Status launched = Ok{};
  for (GpuLaunch &l : *launches) // the runner takes the parameters it packs by reference
    if (launched)
      launched = gpu.launch(*module, l.kernel, l.config, l.params);
  if (launched)
    launched = gpu.synchronize(options.timing.timeoutSeconds);
  if (!launched) {
    Error e = launched.takeError();
    if (e.kind == Error::Timeout) {
      std::ostringstream m;
      m << "kernel '" << main.kernel << "' (the first launch, before any check or timing) did not finish within "
        << options.timing.timeoutSeconds << " s";
      e.message = m.str();
    }
    return work.launchFailed(gpu, std::move(e));
  }
  if (auto checked = work.check(gpu)) {
    if (!*checked)
      return checked->takeError();
    out.check = std::move(**checked);
    if (!out.check->ok && !options.timeFailedCheck)
      return out;
  }

  // Timing: each launch on its own; the earlier ones' medians add up.
  runner::TimingOptions timing = options.timing;
  timing.progress = [&](int done) { phase(launchBudget, "timed launch " + std::to_string(done + 1)); };
  double before = 0;
  for (GpuLaunch &l : *launches) {
    auto t = gpu.time(*module, l.kernel, l.config, l.params, timing);
    if (!t)
      return t.takeError();
    out.launches.push_back({l.kernel, *t});
    if (&l != &main)
      before += t->medianMs;
  }
  out.time = out.launches.back().timing;
  if (before > 0)
    for (double *v : {&out.time.medianMs, &out.time.minMs, &out.time.maxMs, &out.time.p10Ms, &out.time.p90Ms,
                      &out.time.meanMs})
      *v += before;
  if (auto attrs = gpu.kernelAttributes(*module, main.kernel))
    out.attributes = *attrs;
  phase(kStartBudget, "reading results");
  if (Status done = work.finish(gpu); !done)
    return done.takeError();
  return out;
}

} // namespace cake::pipeline
