//===- RunCakeCommand.cpp - `cake run FILE.cake` --------------------------===//
//
// Lowers a kernel, builds it with NVRTC, and in a child process under the
// watchdog (cli/Watchdog.h): generates seeded random inputs, poisons the
// outputs, encodes the tensor maps, launches once and checks every output
// against the workload's oracle (compiler/oracle/), then times the kernel
// (warm-up, repetitions, median and spread) and reports time, TFLOP/s, GB/s
// and the fraction of the target's floor, as text or JSON.
//
// The workload contract (--workload W.json):
//   {"kernel": "gemm_sm90_ws", "oracle": "gemm",
//    "sizes": {"M": 8192, "N": 8192, "K": 8192},
//    "tensors": {"A": {"init": "uniform(-1,1)"}},   // optional overrides
//    "check": {"rtol": 0.02, "samples": 65536},      // optional
//    "flops": "2*M*N*K", "seed": 1}
// Tensors are the kernel's global parameters (element type and shape from
// the IR); the oracle says which are outputs. `--size M=...` overrides sizes.
//
// With --watch-hangs every barrier wait is bounded: a wait that times out
// traps after recording its site in host-mapped memory, and the report is a
// run.hang diagnostic at the IR operation that waited.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/CudaSupport.h"
#include "formats/FailureLog.h"
#include "formats/Input.h"
#include "formats/JsonRenderer.h"
#include "cli/Instances.h"
#include "cli/Options.h"
#include "cli/Watchdog.h"
#include "compiler/oracle/Oracles.h"
#include "compiler/oracle/Poison.h"
#include "compiler/oracle/Workload.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/runner/LaunchLowered.h"
#include "compiler/runner/Runner.h"
#include "compiler/syntax/Printer.h"
#include "diagnostics/Sink.h"
#include "diagnostics/TextRenderer.h"

#include "compiler/runner/Process.h"

#include <cerrno>
#include <unistd.h>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <cmath>
#include <sstream>

namespace cake::cli {
namespace {

using json = nlohmann::ordered_json;
using namespace cake::runner;

struct CakeRun {
  std::string path;
  std::string kernelName;
  oracle::Workload workload;
  std::string flops; ///< "2*M*N*K"
  std::vector<std::string> command; ///< an external oracle: argv, the tensors' folder appended
  std::vector<std::string> kernels; ///< the workload's "kernels": run in order, the last one timed in full
  std::vector<const lower::LoweredKernel *> pipeline;
  bool check = true;
  TimingOptions timing;
  bool json = false, color = false;
  int device = 0;
  /// The failure log's view of the run (formats/FailureLog.h): the IR, the kernel, the instantiation and
  /// the sizes; where the watchdog's child writes its event.
  std::string_view ir;
  formats::RunDetails log;
};

/// Logs the run's outcome (a usage error or a machine without a GPU is not the kernel's and is not logged).
void logRun(CakeRun &run, const std::vector<Diagnostic> &diags, std::string stage, std::optional<double> ms = {}) {
  run.log.sizes = run.workload.sizes;
  run.log.ms = ms;
  formats::logOutcome("run", run.path, run.ir, diags, std::move(stage), run.log);
}

/// --report FILE: the structured result of this run, for programs that run
/// `cake run` as a child (the language server, `cake bench`) and must not
/// read its stdout. Written once: the full report on success, else
/// {"ok": false, "status", "message", "diagnostics"} (docs/runner.md).
std::string reportPath;
bool reportWritten = false;

void writeReport(const json &doc) {
  if (reportPath.empty() || reportWritten)
    return;
  std::ofstream f(reportPath, std::ios::trunc);
  f << doc.dump(2) << "\n";
  reportWritten = true;
}

/// The failure report: \p status is "usage", "no-gpu", "source", "failed" or "timeout".
void writeFailure(const std::string &status, const std::string &message, const json &diagnostics = json::array()) {
  writeReport({{"ok", false}, {"status", status}, {"message", message}, {"diagnostics", diagnostics}});
}

int fail(const std::string &message, int code) {
  reportFailure("cake run", message, code);
  writeFailure(code == UsageError ? "usage" : code == TimedOut ? "timeout" : "failed", message);
  return code;
}

/// Evaluates a product like "2*M*N*K" over the sizes; 0 when it cannot.
double product(const std::string &text, const std::map<std::string, int64_t> &sizes) {
  if (text.empty())
    return 0;
  double v = 1;
  std::stringstream s(text);
  for (std::string term; std::getline(s, term, '*');) {
    term.erase(0, term.find_first_not_of(' '));
    term.erase(term.find_last_not_of(' ') + 1);
    if (auto it = sizes.find(term); it != sizes.end())
      v *= double(it->second);
    else if (!term.empty() && std::isdigit(uint8_t(term[0])))
      v *= std::strtod(term.c_str(), nullptr); // checked finite when the workload was read
    else
      return 0;
  }
  return v;
}

/// Reads --workload and fills the tensor list from the kernel's parameters.
Status readWorkload(const std::string &path, CakeRun &run) {
  std::string text;
  if (auto error = readJsonInput(path, text); !error)
    return error;
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Error(Error::InvalidArgument, path + ": not a JSON object");
  try {
    oracle::Workload &w = run.workload;
    if (doc.contains("kernel"))
      w.kernel = doc["kernel"].get<std::string>();
    if (doc.contains("kernels"))
      for (const json &k : doc["kernels"])
        run.kernels.push_back(k.get<std::string>());
    if (doc.contains("oracle"))
      w.oracle = doc["oracle"].get<std::string>();
    if (doc.contains("sizes"))
      for (auto &[k, v] : doc["sizes"].items())
        w.sizes[k] = v.get<int64_t>();
    if (doc.contains("tensors"))
      for (auto &[k, v] : doc["tensors"].items()) {
        oracle::TensorSpec t;
        t.name = k;
        t.init = v.value("init", std::string());
        t.role = v.value("role", std::string()) == "output" ? oracle::Role::Output : oracle::Role::Input;
        w.tensors.push_back(t);
      }
    if (doc.contains("seed"))
      w.seed = doc["seed"].get<uint64_t>();
    if (doc.contains("flops")) {
      run.flops = doc["flops"].get<std::string>();
      // a product of names and numbers; a number must be finite (issue #16: "2e999" threw out of std::stod
      // after the run, an internal error)
      std::stringstream terms(run.flops);
      for (std::string term; std::getline(terms, term, '*');) {
        term.erase(0, term.find_first_not_of(' '));
        term.erase(term.find_last_not_of(' ') + 1);
        if (term.empty() || !std::isdigit(uint8_t(term[0])))
          continue;
        char *end = nullptr;
        double v = std::strtod(term.c_str(), &end);
        if (*end || !std::isfinite(v) || v < 0)
          return Error(Error::InvalidArgument, path + ": \"flops\" term '" + term +
                                                   "' is not a finite non-negative number (\"flops\" is a product such as 2*M*N*K)");
      }
    }
    if (doc.contains("command")) {
      for (const json &a : doc["command"])
        run.command.push_back(a.get<std::string>());
      if (run.command.empty())
        return Error(Error::InvalidArgument, path + ": \"command\" must be a non-empty array of strings");
      w.oracle = "command";
    }
    if (const oracle::Oracle *o = oracle::findOracle(w.oracle))
      w.check = o->defaults;
    else if (!w.oracle.empty() && w.oracle != "command")
      return Error(Error::InvalidArgument, path + ": unknown oracle '" + w.oracle + "'");
    if (doc.contains("check")) {
      const json &c = doc["check"];
      w.check.rtol = c.value("rtol", w.check.rtol);
      w.check.atol = c.value("atol", w.check.atol);
      w.check.maxSamples = c.value("samples", w.check.maxSamples);
    }
  } catch (const json::exception &e) {
    return Error(Error::InvalidArgument, path + ": " + e.what());
  }
  return Ok{};
}

/// The workload's tensors: every global parameter of the kernel, typed and
/// shaped by the IR, with the oracle's roles and the workload's inits.
Status bindTensors(const std::vector<const lower::LoweredKernel *> &kernels,
                                       oracle::Workload &w) {
  std::map<std::string, std::string> inits;
  std::map<std::string, oracle::Role> roles;
  for (const oracle::TensorSpec &t : w.tensors)
    inits[t.name] = t.init, roles[t.name] = t.role;
  const oracle::Oracle *o = oracle::findOracle(w.oracle);
  w.tensors.clear();
  std::set<std::string> seen;
  for (const lower::LoweredKernel *lk : kernels)
  for (const sema::Param &p : lk->kernel->params) {
    if (p.type.space != sema::Space::Global || !seen.insert(p.name).second)
      continue;
    oracle::TensorSpec t;
    t.name = p.name;
    auto dt = pipeline::tensorDType(p.type.elem.value_or(sema::Elem::U8));
    if (!dt)
      return Error(Error::InvalidArgument, "parameter '" + p.name + "' has an element type the runner cannot generate");
    t.dtype = *dt;
    for (const sema::Dim &d : p.type.dims)
      t.shape.push_back(d.value ? std::to_string(*d.value) : !d.symbol.empty() ? d.symbol : syntax::print(*d.expr));
    t.role = roles.count(p.name) ? roles[p.name] : oracle::Role::Input;
    if (o)
      for (const oracle::OracleTensor &ot : o->tensors)
        if (ot.name == p.name)
          t.role = ot.role;
    t.init = inits[p.name];
    w.tensors.push_back(t);
  }
  return Ok{};
}

struct HangRecord { // mirrors cake::rt::HangRecord (cake_device.cuh)
  uint32_t hung, site, parity, blockX, blockY, blockZ, thread, barrier;
  uint64_t waitedNs;
};

/// An external oracle: every tensor is written to a private folder as raw
/// little-endian bytes with a manifest.json (name, dtype, shape, role, file),
/// and the workload's command runs with that folder as its last argument;
/// exit 0 means correct, anything else is a mismatch with its output.
oracle::CheckReport checkWithCommand(const CakeRun &run, const oracle::TensorMap &tensors) {
  oracle::CheckReport r;
  for (const oracle::TensorSpec &spec : run.workload.tensors)
    if (spec.role == oracle::Role::Output)
      if (auto u = oracle::countUnwritten(tensors.at(spec.name)); u.count) {
        r.unwritten += u.count;
        r.summary = spec.name + ": " + std::to_string(u.count) + " elements never written (first at flat index " +
                    std::to_string(u.first) + ")";
      }
  if (r.unwritten)
    return r;
  char dir[] = "/tmp/cake-oracle-XXXXXX";
  if (!mkdtemp(dir)) {
    r.summary = "cannot create a folder for the external oracle";
    return r;
  }
  json manifest = {{"sizes", run.workload.sizes}, {"tensors", json::array()}};
  for (const oracle::TensorSpec &spec : run.workload.tensors) {
    const oracle::HostTensor &t = tensors.at(spec.name);
    std::string file = spec.name + ".bin";
    std::ofstream(std::string(dir) + "/" + file, std::ios::binary)
        .write(reinterpret_cast<const char *>(t.bytes.data()), std::streamsize(t.byteSize()));
    manifest["tensors"].push_back({{"name", spec.name},
                                   {"dtype", std::string(oracle::dtypeName(t.dtype))},
                                   {"shape", t.shape},
                                   {"role", spec.role == oracle::Role::Output ? "output" : "input"},
                                   {"file", file}});
  }
  std::ofstream(std::string(dir) + "/manifest.json") << manifest.dump(2) << "\n";
  std::vector<std::string> argv = run.command;
  argv.push_back(dir);
  runner::ProcessResult p = runner::runProcess(argv, 600);
  std::filesystem::remove_all(dir);
  r.ok = p.started && !p.timedOut && p.exitCode == 0;
  std::string output = p.output.size() > 600 ? "..." + p.output.substr(p.output.size() - 600) : p.output;
  while (!output.empty() && (output.back() == '\n' || output.back() == ' '))
    output.pop_back();
  r.summary = "external oracle '" + run.command[0] + "' " +
              (r.ok ? "passed" : p.timedOut ? "timed out" : "failed (exit " + std::to_string(p.exitCode) + ")") +
              (output.empty() ? "" : ": " + output);
  r.firstMismatch = r.ok ? "" : r.summary;
  return r;
}

/// The GPU side of `cake run FILE.cake` (pipeline::GpuWork): the workload's
/// tensors (seeded inputs, poisoned outputs), the pipeline's launch plans,
/// the hang record of --watch-hangs, the oracle.
class CakeWork : public pipeline::GpuWork {
public:
  CakeWork(CakeRun &run, const lower::LoweredKernel &lk, const runner::BuildResult &built)
      : run_(run), lk_(lk), built_(built) {}

  Expected<std::string> image(const DeviceInfo &device) override {
    // a cubin runs on its own architecture; elsewhere (sm_80 code on an H200)
    // the driver compiles the PTX
    std::string arch = "sm_" + std::to_string(device.major) + std::to_string(device.minor);
    bool native = std::string(targetName(lk_.kernel->target)).starts_with(arch);
    return native ? built_.cubin : built_.ptx;
  }

  Expected<std::vector<pipeline::GpuLaunch>> prepare(Runner &gpu) override {
    auto made = oracle::makeTensors(run_.workload);
    if (!made)
      return made.takeError();
    tensors_ = std::move(*made);
    for (auto &[name, t] : tensors_) {
      auto p = gpu.alloc(t.byteSize());
      if (!p)
        return p.takeError();
      if (auto s = gpu.copyToDevice(*p, t.bytes.data(), t.byteSize()); !s)
        return s.takeError();
      buffers_[name] = *p;
    }
    lower::Bindings sizes(run_.workload.sizes.begin(), run_.workload.sizes.end());
    // The parameters and launch configuration of each kernel of the pipeline
    // (compiler/runner/LaunchLowered.h, the path libcake_kmeans shares).
    std::vector<pipeline::GpuLaunch> launches;
    for (const lower::LoweredKernel *k : run_.pipeline) {
      auto plan = planLowered(*k, buffers_, sizes, gpu.device().smCount);
      if (!plan)
        return plan.takeError();
      if (plan->needsHangRecord && !hang_) {
        auto m = gpu.allocMapped(sizeof(HangRecord));
        if (!m)
          return m.takeError();
        hang_ = *m;
      }
      auto l = packLowered(gpu, *plan, hang_ ? hang_->device : 0);
      if (!l)
        return l.takeError();
      launches.push_back({l->kernel->name, l->config, std::move(l->params)});
      kernels_.push_back(k);
    }
    grid_ = launches.back().config.grid;
    return launches;
  }

  Error launchFailed(Runner &, Error error) override {
    const auto *rec = hang_ ? static_cast<const HangRecord *>(hang_->host) : nullptr;
    const lower::LoweredKernel &hungKernel = *kernels_.back();
    if (!rec || !rec->hung || rec->site >= hungKernel.waits.size())
      return error;
    const lower::WaitSite &site = hungKernel.waits[rec->site];
    std::ostringstream m;
    m << "role '" << site.role << "' waited on " << site.what << " for phase parity " << rec->parity << " for "
      << std::setprecision(3) << double(rec->waitedNs) / 1e9 << " s without progress: the kernel would hang (CTA ("
      << rec->blockX << ", " << rec->blockY << ", " << rec->blockZ << "), thread " << rec->thread << ")";
    Diagnostic d;
    d.code = "run.hang";
    d.range = site.range;
    d.message = m.str();
    return Error(Error::Timeout, d.message, {std::move(d)});
  }

  std::optional<Expected<oracle::CheckReport>> check(Runner &gpu) override {
    if (!run_.check || run_.workload.oracle.empty())
      return std::nullopt;
    for (auto &[name, t] : tensors_)
      if (std::any_of(run_.workload.tensors.begin(), run_.workload.tensors.end(),
                      [&](const oracle::TensorSpec &s) { return s.name == name && s.role == oracle::Role::Output; }))
        if (auto s = gpu.copyToHost(t.bytes.data(), buffers_.at(name), t.byteSize()); !s)
          return Expected<oracle::CheckReport>(s.takeError());
    const oracle::Oracle *o = oracle::findOracle(run_.workload.oracle);
    return Expected<oracle::CheckReport>(o ? o->check(tensors_, run_.workload.check) : checkWithCommand(run_, tensors_));
  }

  double tensorBytes() const {
    double bytes = 0;
    for (auto &[name, tensor] : tensors_)
      bytes += double(tensor.byteSize());
    return bytes;
  }
  const Dim3 &grid() const { return grid_; }

private:
  CakeRun &run_;
  const lower::LoweredKernel &lk_;
  const runner::BuildResult &built_;
  oracle::TensorMap tensors_;
  Buffers buffers_;
  std::optional<MappedBuffer> hang_;
  std::vector<const lower::LoweredKernel *> kernels_;
  Dim3 grid_;
};

std::string sizesText(const std::map<std::string, int64_t> &sizes) {
  std::string s;
  for (auto &[k, v] : sizes)
    s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}

/// Everything that touches the GPU; runs in the watchdog's child.
int runOnGpu(CakeRun &run, SourceManager &sm, const lower::LoweredKernel &lk, const runner::BuildResult &built,
             const Watch &watch) {
  std::vector<Diagnostic> diags;
  DiagnosticSink sink(diags);
  SourceRange kernelRange = lk.kernel->decl->name.range;
  auto report = [&](int code) {
    logRun(run, diags, "run");
    renderText(std::cerr, sm, diags, TextStyle{run.color});
    std::string first = diags.empty() ? std::string("the run failed") : diags.front().message;
    writeFailure(code == TimedOut ? "timeout" : "failed", first, diagnosticsToJson(sm, diags)["diagnostics"]);
    return code;
  };
  CakeWork work(run, lk, built);
  pipeline::RunOptions options;
  options.device = run.device;
  options.timing = run.timing;
  options.phase = [&](double budget, const std::string &what) { watch.phase(budget, what); };
  options.timeFailedCheck = run.json;
  auto outcome = pipeline::runOnGpu(work, options);
  if (!outcome) {
    const Error &e = outcome.error();
    if (e.noGpu()) {
      writeFailure("no-gpu", describeNoGpu(e));
      return fail(describeNoGpu(e), UsageError);
    }
    if (e.kind == Error::InvalidArgument || e.kind == Error::Unsupported)
      return fail(e.message, UsageError);
    if (!e.diagnostics.empty())
      diags.insert(diags.end(), e.diagnostics.begin(), e.diagnostics.end());
    else
      sink.report("run.launch", kernelRange, "kernel '" + lk.name + "': " + e.message);
    return report(e.kind == Error::Timeout ? TimedOut : InputErrors);
  }
  const pipeline::RunOutcome &o = *outcome;
  run.log.device = o.device.name;
  json checkJson;
  if (o.check) {
    const oracle::CheckReport &r = *o.check;
    checkJson = {{"oracle", run.workload.oracle}, {"ok", r.ok},           {"checked", r.checked},
                 {"mismatches", r.mismatches},    {"unwritten", r.unwritten}, {"max_rel_error", r.maxRelError},
                 {"summary", r.summary}};
    if (!r.ok) {
      sink.report(r.unwritten ? "run.unwritten" : "run.mismatch", kernelRange,
                  "kernel '" + lk.name + "' at " + sizesText(run.workload.sizes) + ": " +
                      (r.unwritten ? std::to_string(r.unwritten) +
                                         " output elements still hold the poison pattern (never written); " + r.summary
                                   : r.firstMismatch.empty() ? r.summary : r.firstMismatch));
      if (!run.json)
        return report(InputErrors);
    }
  }
  // Invariant 15: a run that was not checked says so, in every format.
  std::string unchecked = o.check                  ? ""
                          : !run.check             ? "not checked (--no-check)"
                                                   : "not checked (the workload names no oracle)";
  const runner::Timing &t = o.time;
  // the flops formula may use the file's constants too ("2*B*N*K*D", D a parameter)
  std::map<std::string, int64_t> terms = run.workload.sizes;
  for (const auto &[name, value] : lk.kernel->consts)
    terms.emplace(name, value);
  double flops = product(run.flops, terms);
  double bytes = work.tensorBytes();
  const TargetDesc &desc = *lk.kernel->desc;
  double seconds = t.medianMs / 1e3;
  double floorSeconds = std::max(flops / desc.bf16DenseFlopsPerSecond, bytes / desc.dramBytesPerSecond);

  json out;
  out["kernel"] = lk.name;
  out["file"] = run.path;
  out["target"] = std::string(targetName(lk.kernel->target));
  out["device"] = o.device.name;
  out["sizes"] = run.workload.sizes;
  out["launch"] = {{"grid", {work.grid().x, work.grid().y, work.grid().z}},
                   {"block", lk.block},
                   {"dynamic_shared", lk.dynamicShared},
                   {"registers", o.attributes ? o.attributes->registers : 0}};
  out["time_ms"] = {{"median", t.medianMs}, {"min", t.minMs},   {"p10", t.p10Ms},
                    {"p90", t.p90Ms},       {"mean", t.meanMs}, {"spread_percent", t.spreadPercent},
                    {"reps", int(t.samplesMs.size())}, {"warmup", run.timing.warmup}, {"cold_l2", t.coldL2}};
  if (flops > 0)
    out["tflops"] = flops / seconds / 1e12;
  out["gbps"] = bytes / seconds / 1e9;
  out["floor_ms"] = floorSeconds * 1e3;
  out["fraction_of_floor"] = floorSeconds / seconds;
  if (o.launches.size() > 1) {
    json pipelineJson = json::array();
    for (const pipeline::LaunchTime &l : o.launches)
      pipelineJson.push_back({{"kernel", l.kernel}, {"median_ms", l.timing.medianMs}});
    out["pipeline"] = pipelineJson;
  }
  out["checked"] = o.check.has_value();
  if (!checkJson.is_null())
    out["check"] = checkJson;
  else
    out["check"] = {{"ok", nullptr}, {"summary", unchecked}};
  if (!diags.empty())
    out["diagnostics"] = diagnosticsToJson(sm, diags)["diagnostics"];
  out["ok"] = !countErrors(diags);
  if (!out["ok"].get<bool>()) {
    out["status"] = "failed";
    for (const Diagnostic &d : diags)
      if (d.severity == Severity::Error && !out.contains("message"))
        out["message"] = d.message;
  }
  writeReport(out);
  if (run.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << lk.name << " (" << out["target"].get<std::string>() << ", " << o.device.name << "): median "
              << std::setprecision(4) << t.medianMs << " ms over " << t.samplesMs.size() << " launches (spread "
              << std::setprecision(3) << t.spreadPercent << "%)";
    if (flops > 0)
      std::cout << ", " << std::setprecision(4) << flops / seconds / 1e12 << " TFLOP/s";
    std::cout << ", " << std::setprecision(3) << 100 * floorSeconds / seconds << "% of the floor";
    std::cout << "; " << (o.check ? checkJson["summary"].get<std::string>() : unchecked) << "\n";
  }
  if (countErrors(diags))
    return report(InputErrors);
  logRun(run, diags, "run", t.medianMs);
  return Success;
}

} // namespace

int runCake(int argc, char **argv) {
  cxxopts::Options o("cake run", "Lower a CAKE IR kernel, run it on the GPU against its workload's oracle, and "
                                 "time it.\nWithout a GPU it says so and exits 2; a launch past --timeout exits 3.");
  o.add_options()("workload", "The workload contract (JSON)", cxxopts::value<std::string>())(
      "size", "Bind a size symbol: NAME=VALUE (repeat; overrides the workload)",
      cxxopts::value<std::vector<std::string>>())("k,kernel", "The kernel (default: the workload's, or the only one)",
                                                  cxxopts::value<std::string>())(
      "warmup", "Untimed launches first", cxxopts::value<int>()->default_value("10"))(
      "reps", "Timed launches", cxxopts::value<int>()->default_value("50"))(
      "cold-l2", "Flush L2 before each timed launch")(
      "timeout", "Seconds one launch may take", cxxopts::value<double>()->default_value("10"))(
      "no-check", "Skip the oracle")("no-verify", "Skip the verifier's rules (to force a schedule past them)")(
      "watch-hangs", "Bound every barrier wait: a hang becomes a run.hang diagnostic at the waiting operation")(
      "hang-ms", "With --watch-hangs: how long a wait may take", cxxopts::value<uint32_t>()->default_value("2000"))(
      "no-watchdog", "Run in this process (for debuggers and compute-sanitizer)")(
      "no-workload-commands", "Refuse a workload whose oracle is a \"command\" (the language server passes this "
                              "unless its client enabled workload commands)")(
      "seed", "Seed of the inputs (overrides the workload)", cxxopts::value<uint64_t>())(
      "report", "Write the run's result as JSON to FILE, also when it fails (ok, status, message, diagnostics)", cxxopts::value<std::string>())(
      "device", "GPU ordinal", cxxopts::value<int>()->default_value("0"))(
      "format", "Output format: text or json", cxxopts::value<std::string>()->default_value("text"))(
      "h,help", "Show this help")("file", "Input file", cxxopts::value<std::string>());
  addInstanceOptions(o, /*forCheck=*/false);
  o.parse_positional({"file"});
  o.positional_help("FILE.cake");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  // first: every failure after this point is reported there too (a workload that does not read was not: the
  // report was named only after the workload, the sizes and the instantiation had been read; cake tune found it)
  if (args.count("report"))
    reportPath = args["report"].as<std::string>();
  CakeRun run;
  run.path = args["file"].as<std::string>();
  // the arguments after the file, for the failure log (what runs the program again); --report is this run's
  run.log.args = argumentsAgain(argc, argv, run.path, {"--report"});
  // the instantiation (a file with parameters), whose manifest may name the workload
  SourceManager sm;
  std::string text;
  if (auto error = readInput(run.path, text); !error)
    return fail(error.error().message, UsageError);
  FileId file = sm.addBuffer(run.path, std::move(text));
  std::optional<library::Manifest> manifest;
  auto insts = instantiationsFor(args, sm, run.path, file, /*forCheck=*/false, &manifest);
  if (!insts)
    return fail(insts.error().message, UsageError);
  std::string workloadPath = args.count("workload") ? args["workload"].as<std::string>() : "";
  if (workloadPath.empty() && manifest && insts->size() == 1)
    if (const library::Instance *i = manifest->instance(insts->front().name); i && !i->workload.empty())
      workloadPath = (manifest->dir.empty() ? "" : manifest->dir + "/") + i->workload;
  if (!workloadPath.empty())
    if (auto error = readWorkload(workloadPath, run); !error)
      return fail(error.error().message, UsageError);
  // A workload's "command" runs any program: a feature for the CLI user who
  // wrote it, not for a document an editor opened (issue #16).
  if (args.count("no-workload-commands") && !run.command.empty())
    return fail(workloadPath + ": the workload's oracle is a command (" + run.command[0] +
                    "), and workload commands are disabled here; a language server client enables them with "
                    "initializationOptions {\"allowWorkloadCommands\": true}",
                UsageError);
  std::string sizeError;
  auto given = sizeArgs(args, "size", sizeError);
  if (!given)
    return fail(sizeError, UsageError);
  for (const auto &[name, v] : *given)
    run.workload.sizes[name] = v;
  if (args.count("seed"))
    run.workload.seed = args["seed"].as<uint64_t>();
  run.check = !args.count("no-check");
  run.timing.warmup = args["warmup"].as<int>();
  run.timing.repetitions = args["reps"].as<int>();
  run.timing.coldL2 = args.count("cold-l2") > 0;
  run.timing.timeoutSeconds = args["timeout"].as<double>();
  run.json = args["format"].as<std::string>() == "json";
  run.color = shouldUseColor(STDERR_FILENO);
  run.device = args["device"].as<int>();
  if (run.timing.repetitions < 1 || run.timing.warmup < 0 || !(run.timing.timeoutSeconds > 0))
    return fail("--reps must be at least 1, --warmup at least 0 and --timeout positive", UsageError);

  lower::LowerOptions lowering;
  lowering.boundedWaits = args.count("watch-hangs") > 0;
  lowering.hangTimeoutMs = args["hang-ms"].as<uint32_t>();
  CheckOptions check;
  check.verify = !args.count("no-verify");
  check.instantiations = std::move(*insts);
  run.ir = sm.text(file);
  if (check.instantiations.size() == 1)
    run.log.instance = check.instantiations.front().name;
  auto loweredFile = pipeline::lowerFile(sm, file, lowering, check);
  if (!loweredFile) {
    logRun(run, loweredFile.error().diagnostics, "");
    renderText(std::cerr, sm, loweredFile.error().diagnostics, TextStyle{run.color});
    writeFailure("source", loweredFile.error().message, diagnosticsToJson(sm, loweredFile.error().diagnostics)["diagnostics"]);
    return InputErrors;
  }
  const std::unique_ptr<pipeline::LoweredFile> &lowered = *loweredFile;
  std::string name = args.count("kernel") ? args["kernel"].as<std::string>() : run.workload.kernel;
  if (name.empty() && lowered->module.kernels.size() == 1)
    name = lowered->module.kernels[0].name;
  if (!run.kernels.empty() && !args.count("kernel"))
    name = run.kernels.back();
  const lower::LoweredKernel *lk = lowered->module.kernel(name);
  if (!lk) {
    std::string names;
    for (const lower::LoweredKernel &k : lowered->module.kernels)
      names += (names.empty() ? "" : ", ") + k.name;
    return fail(name.empty() ? "which kernel? " + run.path + " has " + std::to_string(lowered->module.kernels.size()) +
                                   " (" + names + "): name one with --kernel, or give the --workload that names them"
                             : "which kernel? '" + name + "' is not a kernel of " + run.path + "; it has " + names,
                UsageError);
  }
  for (const std::string &k : run.kernels) // the kernels that run before it
    if (k != name) {
      const lower::LoweredKernel *before = lowered->module.kernel(k);
      if (!before)
        return fail("the workload's kernel '" + k + "' is not a kernel of " + run.path, UsageError);
      run.pipeline.push_back(before);
    }
  run.pipeline.push_back(lk);
  run.log.kernel = lk->name;
  if (auto error = bindTensors(run.pipeline, run.workload); !error)
    return fail(error.error().message, UsageError);

  // NVRTC runs in the child too: a parent that touched CUDA before fork()
  // leaves the child's cuInit failing (CUDA_ERROR_NOT_INITIALIZED).
  auto body = [&](const Watch &w) {
    w.phase(600 + kGrace, "compiling " + run.path);
    CudaCompile cuda;
    cuda.build.target = lk->kernel->target;
    cuda.build.includeDirs.push_back(pipeline::runtimeIncludeDir());
    runner::BuildResult built = compileCuda(sm, lowered->cuda, cuda);
    renderText(std::cerr, sm, built.diagnostics, TextStyle{run.color});
    if (!built.success) {
      logRun(run, built.diagnostics, "build");
      writeFailure("source", "the generated CUDA does not build", diagnosticsToJson(sm, built.diagnostics)["diagnostics"]);
      return int(InputErrors);
    }
    return runOnGpu(run, sm, *lk, built, w);
  };
  if (args.count("no-watchdog"))
    return body(Watch(-1));
  if (!reportPath.empty())
    std::filesystem::remove(reportPath); // the child writes it; if it cannot (killed), the parent does
  // the child's event goes to a file beside the log, which the parent moves into it; a child the watchdog
  // ended (or that crashed) wrote none, and the parent logs that instead
  const std::string logPath = formats::logPathFor(run.path);
  if (!logPath.empty())
    run.log.eventPath = logPath + ".run-" + std::to_string(::getpid());
  int rc = superviseChild(body);
  if (!logPath.empty() && !formats::forwardEvents(run.log.eventPath, logPath) && rc != UsageError) {
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = rc == TimedOut ? "run.timeout" : "run.crash";
    run.log.eventPath.clear();
    logRun(run, {d}, "run");
  }
  if (!reportPath.empty() && !std::filesystem::exists(reportPath))
    writeFailure(rc == TimedOut ? "timeout" : "failed",
                 rc == TimedOut ? "the watchdog ended the run (a phase ran past its time budget)"
                                : "the run ended without a report (exit " + std::to_string(rc) + ")");
  return rc;
}

} // namespace cake::cli
