//===- Build.cpp - NVRTC and nvcc builds ----------------------------------===//
//
// Part of CAKE. See Build.h. Compiled with CAKE_HAVE_NVRTC when CMake found
// the CUDA toolkit; without it the NVRTC path reports that it is missing and
// the nvcc path still works when nvcc is installed.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/Build.h"
#include "compiler/runner/Process.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#if CAKE_HAVE_NVRTC
#include <dlfcn.h>
#include <nvrtc.h>
#endif

namespace cake::runner {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// Diagnostics for the front-end log, then ptxas's; an error when the build
/// failed without saying why.
void finish(BuildResult &r, LogMapper &mapper, std::string_view frontEndLog, std::string_view ptxasLog, FileId source,
            Target target) {
  r.report = parsePtxasLog(ptxasLog);
  r.diagnostics = mapper.mapFrontEnd(frontEndLog);
  std::vector<Diagnostic> ptxas = mapper.mapPtxas(r.report, r.ptx, source);
  r.diagnostics.insert(r.diagnostics.end(), ptxas.begin(), ptxas.end());
  if (!r.success && countErrors(r.diagnostics) == 0) {
    // NVRTC 13 reports a kernel over the shared-memory limit with no message.
    const TargetDesc &desc = targetDesc(target);
    std::string message;
    SourceRange range;
    for (const PtxasFunction *f : r.report.entries())
      if (f->sharedBytes > desc.smemPerBlock) {
        message = "kernel '" + baseName(f->name) + "' uses " + std::to_string(f->sharedBytes) +
                  " bytes of static shared memory; " + std::string(desc.name) + " allows at most " +
                  std::to_string(desc.smemPerBlock) + " per block";
        range = mapper.kernelRange(source, f->name);
      }
    if (message.empty()) {
      std::string tail(frontEndLog.size() > 400 ? frontEndLog.substr(frontEndLog.size() - 400) : frontEndLog);
      message = r.tool + " failed without an error message" + (tail.empty() ? "" : "; its log ends: " + tail);
    }
    r.diagnostics.push_back({"cuda.error", Severity::Error, range, message, {}, {}});
  }
  sortDiagnostics(r.diagnostics);
}

/// A private temporary directory, removed with the object.
struct TempDir {
  fs::path path;
  TempDir() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    std::string pattern = ((ec ? fs::path("/tmp") : base) / "cake-build-XXXXXX").string();
    if (mkdtemp(pattern.data()))
      path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path.empty())
      fs::remove_all(path, ignored);
  }
};

/// Whether \p log (NVRTC's or ptxas's) says why a build failed: an error or
/// fatal line other than "Ptx assembly aborted due to errors".
bool logExplainsFailure(std::string_view log) {
  PtxasReport report = parsePtxasLog(log);
  for (const PtxasMessage &m : report.messages)
    if (m.severity == Severity::Error && m.text.find("aborted due to errors") == std::string::npos)
      return true;
  return !parseFrontEndLog(log).empty();
}

/// ptxas run again, as a program, on the PTX of a build that failed in ptxas
/// without a reason in NVRTC's log: NVRTC 13 drops ptxas's fatal lines (a
/// C7600 register allocation failure leaves only an info line). Returns its
/// log, or "" when there is no ptxas.
std::string rerunPtxas(const std::string &ptx, const BuildOptions &options) {
  std::string ptxas = findProgram("ptxas", {options.cudaHome + "/bin"});
  TempDir dir;
  if (ptxas.empty() || dir.path.empty())
    return "";
  std::string in = (dir.path / "nvrtc.ptx").string(), out = (dir.path / "nvrtc.cubin").string();
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
  }
  std::vector<std::string> cmd{ptxas, "-arch=" + std::string(targetName(options.target))};
  if (options.maxRegisters > 0)
    cmd.push_back("--maxrregcount=" + std::to_string(options.maxRegisters));
  cmd.insert(cmd.end(), {in, "-o", out});
  ProcessResult p = runProcess(cmd, options.toolTimeoutSeconds);
  return p.started && !p.timedOut ? p.output : "";
}

} // namespace

std::vector<std::string> nvrtcOptions(const BuildOptions &o) {
  std::vector<std::string> opts{"--gpu-architecture=" + std::string(targetName(o.target)), "-std=c++17",
                                "-I" + o.cudaHome + "/include", "-I" + o.cudaHome + "/include/cccl"};
  for (const std::string &dir : o.includeDirs)
    opts.push_back("-I" + dir);
  for (const std::string &d : o.defines)
    opts.push_back("-D" + d);
  if (o.debug) {
    opts.push_back("-G");
    opts.push_back("-DCAKE_DEBUG");
  } else if (o.lineInfo) {
    opts.push_back("-lineinfo");
  }
  if (o.maxRegisters > 0)
    opts.push_back("--maxrregcount=" + std::to_string(o.maxRegisters));
  opts.push_back("--ptxas-options=-v");
  opts.insert(opts.end(), o.extraFlags.begin(), o.extraFlags.end());
  return opts;
}

bool nvrtcAvailable() { return CAKE_HAVE_NVRTC != 0; }

#if CAKE_HAVE_NVRTC

namespace {

/// NVRTC, loaded on first use: linking it would make every `cake` command
/// (check, fmt, lsp) pay for mapping a 100 MB library at start-up.
struct Nvrtc {
  void *handle = nullptr;
  std::string error;
#define CAKE_NVRTC_FUNCTIONS(X)                                                                                        \
  X(Version) X(CreateProgram) X(CompileProgram) X(GetProgramLogSize) X(GetProgramLog) X(GetPTXSize) X(GetPTX)          \
  X(GetCUBINSize) X(GetCUBIN) X(DestroyProgram) X(GetErrorString)
#define X(f) decltype(&::nvrtc##f) f = nullptr;
  CAKE_NVRTC_FUNCTIONS(X)
#undef X
};

const Nvrtc &nvrtcLibrary() {
  static const Nvrtc lib = [] {
    Nvrtc l;
    // NVRTC 13 keeps compiled programs in the CUDA compute cache; a hit skips
    // ptxas, and with it the report (registers, spills) CAKE surfaces, so a
    // second build of the same source came back with no kernels. Unless the
    // user chose otherwise, turn the cache off for this process.
    setenv("CUDA_CACHE_DISABLE", "1", /*overwrite=*/0);
    for (const char *path : {CAKE_NVRTC_LIBRARY, "libnvrtc.so.13", "libnvrtc.so"})
      if ((l.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!l.handle) {
      const char *why = dlerror();
      l.error = std::string("NVRTC could not be loaded: ") + (why ? why : "unknown error");
      return l;
    }
#define X(f)                                                                                                           \
  if (!(l.f = reinterpret_cast<decltype(l.f)>(dlsym(l.handle, "nvrtc" #f))))                                           \
    l.error = "NVRTC lacks nvrtc" #f;
    CAKE_NVRTC_FUNCTIONS(X)
#undef X
    return l;
  }();
  return lib;
}

} // namespace

std::string nvrtcVersion() {
  const Nvrtc &api = nvrtcLibrary();
  if (!api.error.empty())
    return api.error;
  int major = 0, minor = 0;
  if (api.Version(&major, &minor) != NVRTC_SUCCESS)
    return "NVRTC (version unknown)";
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

BuildResult buildWithNvrtc(SourceManager &sm, FileId source, const BuildOptions &options, LogMapper::Loader loader) {
  auto start = Clock::now();
  BuildResult r;
  r.tool = nvrtcVersion();
  LogMapper mapper(sm, std::move(loader));
  std::string text(sm.text(source));
  const std::string &name = sm.name(source);

  const Nvrtc &api = nvrtcLibrary();
  if (!api.error.empty()) {
    r.diagnostics.push_back({"cuda.error", Severity::Error, {}, api.error, {}, {}});
    r.seconds = secondsSince(start);
    return r;
  }
  nvrtcProgram program = nullptr;
  nvrtcResult rc = api.CreateProgram(&program, text.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    r.diagnostics.push_back({"cuda.error",
                             Severity::Error,
                             {},
                             std::string("nvrtcCreateProgram failed: ") + api.GetErrorString(rc),
                             {},
                             {}});
    r.seconds = secondsSince(start);
    return r;
  }
  // Quoted includes are searched next to the source, as nvcc does.
  BuildOptions withSourceDir = options;
  if (fs::path(name).has_parent_path())
    withSourceDir.includeDirs.insert(withSourceDir.includeDirs.begin(), fs::path(name).parent_path().string());
  std::vector<std::string> opts = nvrtcOptions(withSourceDir);
  std::vector<const char *> argv;
  for (const std::string &o : opts)
    argv.push_back(o.c_str());
  rc = api.CompileProgram(program, static_cast<int>(argv.size()), argv.data());
  r.success = rc == NVRTC_SUCCESS;

  size_t size = 0;
  if (api.GetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
    r.log.resize(size);
    api.GetProgramLog(program, r.log.data());
    r.log.resize(size - 1); // the terminating NUL
  }
  // NVRTC keeps the PTX even when ptxas failed: it maps ptxas's PTX lines.
  if (api.GetPTXSize(program, &size) == NVRTC_SUCCESS && size > 1) {
    r.ptx.resize(size);
    api.GetPTX(program, r.ptx.data());
    r.ptx.resize(size - 1);
  }
  if (r.success && api.GetCUBINSize(program, &size) == NVRTC_SUCCESS && size > 0) {
    r.cubin.resize(size);
    api.GetCUBIN(program, r.cubin.data());
  }
  api.DestroyProgram(&program);
  if (!r.success && rc != NVRTC_ERROR_COMPILATION)
    r.log += std::string(r.log.empty() || r.log.back() == '\n' ? "" : "\n") +
             "nvrtc: error: " + api.GetErrorString(rc) + "\n";
  if (!r.success && rc == NVRTC_ERROR_COMPILATION && !r.ptx.empty() && !logExplainsFailure(r.log)) {
    std::string again = rerunPtxas(r.ptx, options);
    if (logExplainsFailure(again)) {
      // Its PTX lines name NVRTC's PTX, which r.ptx holds.
      std::string messages;
      std::istringstream lines(again);
      for (std::string line; std::getline(lines, line);)
        if (line.find("error") != std::string::npos || line.find("fatal") != std::string::npos)
          messages += line + "\n";
      r.log += std::string(r.log.empty() || r.log.back() == '\n' ? "" : "\n") + messages;
    }
  }
  finish(r, mapper, r.log, r.log, source, options.target);
  r.seconds = secondsSince(start);
  return r;
}

#else

std::string nvrtcVersion() { return "NVRTC is not available: CAKE was built without the CUDA toolkit"; }

BuildResult buildWithNvrtc(SourceManager &, FileId, const BuildOptions &, LogMapper::Loader) {
  BuildResult r;
  r.tool = "NVRTC";
  r.diagnostics.push_back({"cuda.error",
                           Severity::Error,
                           {},
                           "CAKE was built without the CUDA toolkit, so NVRTC is not available; "
                           "use --nvcc or rebuild with CUDA installed",
                           {},
                           {}});
  return r;
}

#endif

BuildResult buildWithNvcc(SourceManager &sm, FileId source, const BuildOptions &options, LogMapper::Loader loader) {
  auto start = Clock::now();
  BuildResult r;
  LogMapper mapper(sm, std::move(loader));
  std::string nvcc = findProgram("nvcc", {options.cudaHome + "/bin"});
  if (nvcc.empty()) {
    r.tool = "nvcc";
    r.diagnostics.push_back(
        {"cuda.error", Severity::Error, {}, "nvcc was not found on PATH or in " + options.cudaHome + "/bin", {}, {}});
    return r;
  }
  std::string ptxas = findProgram((fs::path(nvcc).parent_path() / "ptxas").string());
  if (ptxas.empty())
    ptxas = findProgram("ptxas", {options.cudaHome + "/bin"});

  // A private directory for the PTX, the cubin and (for a buffer that is not
  // a file on disk) the source.
  TempDir tmp;
  if (tmp.path.empty()) {
    r.tool = nvcc;
    r.diagnostics.push_back({"cuda.error", Severity::Error, {}, "cannot create a temporary directory", {}, {}});
    return r;
  }
  const fs::path &dir = tmp.path;

  const std::string &name = sm.name(source);
  std::string text(sm.text(source));
  // nvcc runs its stages through a shell, so no text of the user's reaches
  // its command line: the source is always compiled from a copy named by us,
  // and the directory of quoted includes is reached through a link named by
  // us (issue #16: `cake build --nvcc 'k$(touch PWNED).cake'` ran the command).
  std::string input = (dir / "input.cu").string();
  std::vector<std::string> includeDirs;
  {
    std::ofstream out(input, std::ios::binary);
    out << text;
    if (!out) {
      r.tool = nvcc;
      r.diagnostics.push_back({"cuda.error", Severity::Error, {}, "cannot write a temporary copy of the source", {}, {}});
      return r;
    }
    mapper.alias(input, source);
    std::error_code linkError;
    fs::path parent = fs::absolute(fs::path(name), linkError).parent_path();
    if (!linkError && !parent.empty()) {
      fs::create_directory_symlink(parent, dir / "src", linkError);
      if (!linkError)
        includeDirs.push_back((dir / "src").string());
    }
  }
  std::string arch(targetName(options.target));
  std::string ptxPath = (dir / "out.ptx").string(), cubinPath = (dir / "out.cubin").string();

  // compute_XX: PTX only; ptxas runs next, on its own, so that its errors
  // name lines of a PTX file we have.
  std::string virtualArch = "compute_" + arch.substr(3);
  std::vector<std::string> cmd{nvcc,
                               "-ptx",
                               "-arch=" + virtualArch,
                               "-std=c++17",
                               "-I" + options.cudaHome + "/include",
                               "-I" + options.cudaHome + "/include/cccl"};
  for (const std::string &d : includeDirs)
    cmd.push_back("-I" + d);
  for (const std::string &d : options.includeDirs)
    cmd.push_back("-I" + d);
  for (const std::string &d : options.defines)
    cmd.push_back("-D" + d);
  if (options.debug) {
    cmd.push_back("-G");
    cmd.push_back("-DCAKE_DEBUG");
  } else if (options.lineInfo) {
    cmd.push_back("-lineinfo");
  }
  cmd.insert(cmd.end(), options.extraFlags.begin(), options.extraFlags.end());
  cmd.push_back(input);
  cmd.push_back("-o");
  cmd.push_back(ptxPath);
  for (const std::string &a : cmd)
    r.tool += (r.tool.empty() ? "" : " ") + a;

  ProcessResult front = runProcess(cmd, options.toolTimeoutSeconds);
  std::string frontLog = front.output, ptxasLog;
  if (!front.started || front.timedOut || front.exitCode != 0) {
    if (front.timedOut)
      frontLog += "\nnvcc fatal   : timed out after " + std::to_string(static_cast<int>(options.toolTimeoutSeconds)) +
                  " s and was killed\n";
    else if (front.signal)
      frontLog += "\nnvcc fatal   : killed by signal " + std::to_string(front.signal) + "\n";
    else if (!front.started)
      frontLog = "nvcc fatal   : " + front.output + "\n";
  } else {
    std::ifstream in(ptxPath, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    r.ptx = ss.str();
    if (ptxas.empty()) {
      ptxasLog = "ptxas fatal   : ptxas was not found next to " + nvcc + "\n";
    } else {
      std::vector<std::string> pcmd{ptxas, "-v", "-arch=" + arch};
      if (options.debug)
        pcmd.push_back("--device-debug");
      else if (options.lineInfo)
        pcmd.push_back("--generate-line-info");
      if (options.maxRegisters > 0)
        pcmd.push_back("--maxrregcount=" + std::to_string(options.maxRegisters));
      pcmd.insert(pcmd.end(), {ptxPath, "-o", cubinPath});
      std::string ptxasLine;
      for (const std::string &a : pcmd)
        ptxasLine += (ptxasLine.empty() ? "" : " ") + a;
      r.tool += " && " + ptxasLine;
      ProcessResult back = runProcess(pcmd, options.toolTimeoutSeconds);
      ptxasLog = back.output;
      if (back.timedOut)
        ptxasLog += "\nptxas fatal   : timed out and was killed\n";
      else if (!back.started)
        ptxasLog = "ptxas fatal   : " + back.output + "\n";
      if (back.started && !back.timedOut && back.exitCode == 0) {
        std::ifstream cin(cubinPath, std::ios::binary);
        std::ostringstream cs;
        cs << cin.rdbuf();
        r.cubin = cs.str();
        r.success = !r.cubin.empty();
      }
    }
  }
  if (r.ptx.empty()) {
    // nvcc -ptx checks its PTX with ptxas: errors of that check name lines
    // of the PTX it left behind.
    std::ifstream in(ptxPath, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    r.ptx = ss.str();
  }
  r.log = frontLog + ptxasLog;
  finish(r, mapper, frontLog, frontLog + ptxasLog, source, options.target);
  r.seconds = secondsSince(start);
  return r;
}

} // namespace cake::runner
