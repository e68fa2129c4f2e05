//===- RunCommand.cpp - `cake run` ----------------------------------------===//
//
// Compiles a CUDA source (or loads a .ptx/.cubin), launches one kernel with
// the given grid, block, cluster, dynamic shared memory and arguments, and
// times it with events.
//
// The watchdog. A kernel that never finishes cannot be stopped from inside
// the process that launched it: the runner's waits time out and report, but
// the GPU stays busy until the process ends. So the GPU work runs in a child
// process (fork, before any CUDA call in the parent). The child announces
// each phase on a pipe with its time budget ("<seconds> <what>\n": the GPU's
// start, the compile, the module load, every launch); the parent kills the
// child (SIGKILL) when a phase runs past its budget, which ends the kernel
// with the child's CUDA context, and reports. --no-watchdog runs in process
// (for debuggers and compute-sanitizer).
//
// Exit codes: 0 ran, 1 the source has errors or a launch failed, 2 usage,
// I/O, or no GPU, 3 a launch timed out (reported in process or killed by the
// watchdog).
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "compiler/runner/Process.h"
#include "cli/Options.h"
#include "cli/CudaSupport.h"
#include "formats/Input.h"
#include "cli/Watchdog.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/runner/Runner.h"
#include "diagnostics/TextRenderer.h"

#include <cxxopts.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <poll.h>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace cake::cli {
namespace {

using namespace cake::runner;
using json = nlohmann::ordered_json;


//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// One --arg: a scalar (its bytes) or a device buffer.
struct ArgSpec {
  std::string text;
  bool buffer = false;
  std::string type; ///< i32 u32 i64 u64 f32 f64 (scalars); buffers also f16 bf16 i8 u8
  std::vector<unsigned char> bytes;
  size_t align = 1;
  size_t count = 0;       ///< buffer elements
  std::string init = "0"; ///< a number, "iota" or "rand"
};

size_t typeBytes(const std::string &t) {
  if (t == "i8" || t == "u8")
    return 1;
  if (t == "f16" || t == "bf16")
    return 2;
  if (t == "i32" || t == "u32" || t == "f32")
    return 4;
  if (t == "i64" || t == "u64" || t == "f64")
    return 8;
  return 0;
}

uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t toHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000;
  int exp = static_cast<int>((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffff;
  if (((u >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10)
      return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return static_cast<uint16_t>(half);
}

float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float f;
  if (exp == 0)
    f = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    f = mant ? NAN : INFINITY;
  else
    f = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u |= sign;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Stores \p value as one element of type \p t at \p out.
void storeElement(const std::string &t, double value, unsigned char *out) {
  auto put = [&](auto v) { std::memcpy(out, &v, sizeof v); };
  if (t == "f32")
    put(static_cast<float>(value));
  else if (t == "f64")
    put(value);
  else if (t == "f16")
    put(toHalf(static_cast<float>(value)));
  else if (t == "bf16")
    put(toBf16(static_cast<float>(value)));
  else if (t == "i8")
    put(static_cast<int8_t>(value));
  else if (t == "u8")
    put(static_cast<uint8_t>(value));
  else if (t == "i32")
    put(static_cast<int32_t>(value));
  else if (t == "u32")
    put(static_cast<uint32_t>(value));
  else if (t == "i64")
    put(static_cast<int64_t>(value));
  else if (t == "u64")
    put(static_cast<uint64_t>(value));
}

double loadElement(const std::string &t, const unsigned char *in) {
  auto get = [&](auto v) {
    std::memcpy(&v, in, sizeof v);
    return v;
  };
  if (t == "f32")
    return get(float());
  if (t == "f64")
    return get(double());
  if (t == "f16")
    return fromHalf(get(uint16_t()));
  if (t == "bf16")
    return fromBf16(get(uint16_t()));
  if (t == "i8")
    return get(int8_t());
  if (t == "u8")
    return get(uint8_t());
  if (t == "i32")
    return get(int32_t());
  if (t == "u32")
    return get(uint32_t());
  if (t == "i64")
    return static_cast<double>(get(int64_t()));
  return static_cast<double>(get(uint64_t()));
}

std::optional<double> parseNumber(const std::string &s) {
  if (s.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (*end || errno)
    return std::nullopt;
  return v;
}

/// "i32:5", "f32:1.5", "buf:f32:1024", "buf:bf16:4096=rand", "buf:i32:64=iota".
Status parseArg(const std::string &text, ArgSpec &a) {
  a.text = text;
  std::string bad = "bad --arg '" + text + "': ";
  if (text.starts_with("buf:")) {
    a.buffer = true;
    std::string rest = text.substr(4);
    size_t colon = rest.find(':');
    if (colon == std::string::npos)
      return Error(Error::InvalidArgument, bad + "a buffer is buf:TYPE:COUNT[=INIT]");
    a.type = rest.substr(0, colon);
    if (!typeBytes(a.type))
      return Error(Error::InvalidArgument, bad + "unknown element type '" + a.type + "' (f32 f16 bf16 f64 i8 u8 i32 u32 i64 u64)");
    std::string count = rest.substr(colon + 1);
    if (size_t eq = count.find('='); eq != std::string::npos) {
      a.init = count.substr(eq + 1);
      count.resize(eq);
    }
    auto n = parseNumber(count);
    if (!n || *n < 1 || *n != std::floor(*n))
      return Error(Error::InvalidArgument, bad + "the element count must be a positive integer");
    a.count = static_cast<size_t>(*n);
    if (a.init != "iota" && a.init != "rand" && !parseNumber(a.init))
      return Error(Error::InvalidArgument, bad + "INIT is a number, iota or rand");
    a.align = 8;
    return Ok{};
  }
  size_t colon = text.find(':');
  if (colon == std::string::npos)
    return Error(Error::InvalidArgument, bad + "expected TYPE:VALUE or buf:TYPE:COUNT[=INIT]");
  a.type = text.substr(0, colon);
  if (a.type == "f16" || a.type == "bf16" || a.type == "i8" || a.type == "u8" || !typeBytes(a.type))
    return Error(Error::InvalidArgument, bad + "scalar types are i32 u32 i64 u64 f32 f64");
  auto v = parseNumber(text.substr(colon + 1));
  if (!v)
    return Error(Error::InvalidArgument, bad + "'" + text.substr(colon + 1) + "' is not a number");
  a.bytes.resize(typeBytes(a.type));
  a.align = a.bytes.size();
  storeElement(a.type, *v, a.bytes.data());
  return Ok{};
}

std::optional<Dim3> parseDim(const std::string &s) {
  Dim3 d;
  uint32_t *parts[] = {&d.x, &d.y, &d.z};
  size_t at = 0, i = 0;
  while (true) {
    if (i == 3)
      return std::nullopt;
    size_t sep = s.find_first_of(",x", at);
    std::string part = s.substr(at, sep == std::string::npos ? std::string::npos : sep - at);
    auto n = parseNumber(part);
    if (!n || *n < 1 || *n > 4294967295.0 || *n != std::floor(*n))
      return std::nullopt;
    *parts[i++] = static_cast<uint32_t>(*n);
    if (sep == std::string::npos)
      return d;
    at = sep + 1;
  }
}

std::string dimText(const Dim3 &d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

struct RunArgs {
  std::string path;
  CudaCompile cuda;
  std::string kernel;
  LaunchConfig config;
  std::vector<ArgSpec> args;
  TimingOptions timing;
  bool watchdog = true;
  bool json = false;
  bool color = false;
  bool printBuffers = false;
  int device = 0;
};

//===----------------------------------------------------------------------===//
// The child: everything that touches the GPU
//===----------------------------------------------------------------------===//

std::string gib(uint64_t bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1u << 30) << " GiB";
  return s.str();
}

std::string ms(double v) {
  std::ostringstream s;
  s << std::setprecision(4) << v << " ms";
  return s.str();
}

int fail(const std::string &message, int code) {
  return reportFailure("cake run", message, code);
}

/// The GPU side of `cake run FILE.cu|.ptx|.cubin` (pipeline::GpuWork): the
/// image built for the GPU's target, the --arg buffers. There is no oracle:
/// the run is reported as not checked.
class CudaWork : public pipeline::GpuWork {
public:
  CudaWork(RunArgs &a, const Watch &watch) : a_(a), watch_(watch) {}

  Error usage(Error::Kind kind, std::string message) {
    usageFailed_ = true;
    return Error(kind, std::move(message));
  }

  Expected<std::string> image(const DeviceInfo &dev) override {
    if (isCakeSource(a_.path))
      return Error(Error::Internal, "a .cake file reached the CUDA runner");
    std::string text;
    if (auto error = readInput(a_.path, text); !error)
      return usage(Error::Io, error.error().message);
    // The image: built here from CUDA source, or given as PTX or a cubin.
    std::string ext = std::filesystem::path(a_.path).extension().string();
    compiled_ = ext != ".ptx" && ext != ".cubin" && ext != ".fatbin";
    if (!compiled_) {
      if (a_.kernel.empty())
        return usage(Error::InvalidArgument, "--kernel is needed to run a .ptx or .cubin file");
      kernel_ = a_.kernel;
      return text;
    }
    if (!a_.cuda.targetGiven) {
      std::string t = dev.cakeTarget();
      if (t.empty())
        return usage(Error::InvalidArgument, "CAKE has no target for this GPU (compute capability " +
                                                 std::to_string(dev.major) + "." + std::to_string(dev.minor) +
                                                 "); pass --target");
      a_.cuda.build.target = *parseTarget(t);
    }
    watch_.phase(a_.cuda.build.toolTimeoutSeconds + pipeline::kGrace, "compiling " + a_.path);
    SourceManager sm;
    FileId file = sm.addBuffer(a_.path == "-" ? "<stdin>" : a_.path, text);
    built_ = compileCuda(sm, file, a_.cuda);
    renderText(std::cerr, sm, built_.diagnostics, TextStyle{a_.color});
    renderSummary(std::cerr, built_.diagnostics);
    if (!built_.success)
      return Error(Error::Source, "the CUDA source has errors");
    // The kernel: given, or the only one of the report.
    std::vector<const PtxasFunction *> entries = built_.report.entries();
    std::string names;
    for (const PtxasFunction *f : entries)
      names += (names.empty() ? "" : ", ") + f->demangled;
    if (a_.kernel.empty()) {
      if (entries.size() != 1)
        return usage(Error::InvalidArgument, entries.empty() ? "the source has no kernel"
                                                             : "the source has " + std::to_string(entries.size()) +
                                                                   " kernels; pick one with --kernel: " + names);
      kernel_ = entries[0]->name;
    } else if (const PtxasFunction *f = built_.report.find(a_.kernel)) {
      kernel_ = f->name; // a demangled or plain name -> the symbol
    } else {
      return usage(Error::InvalidArgument, "the source has no kernel '" + a_.kernel + "'; its kernels: " + names);
    }
    return built_.cubin;
  }

  Expected<std::vector<pipeline::GpuLaunch>> prepare(Runner &gpu) override {
    // Arguments: scalars as given, buffers allocated and initialized.
    KernelParams params;
    buffers_.assign(a_.args.size(), 0);
    std::mt19937 rng(1234);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (size_t i = 0; i < a_.args.size(); ++i) {
      const ArgSpec &s = a_.args[i];
      if (!s.buffer) {
        params.addBytes(s.bytes.data(), s.bytes.size(), s.align);
        continue;
      }
      size_t elem = typeBytes(s.type);
      std::vector<unsigned char> host(elem * s.count);
      auto fill = parseNumber(s.init);
      for (size_t k = 0; k < s.count; ++k)
        storeElement(s.type,
                     s.init == "iota"   ? static_cast<double>(k)
                     : s.init == "rand" ? uniform(rng)
                                        : *fill,
                     host.data() + k * elem);
      auto p = gpu.alloc(host.size());
      if (!p)
        return p.takeError();
      buffers_[i] = *p;
      if (auto st = gpu.copyToDevice(*p, host.data(), host.size()); !st)
        return st.takeError();
      params.add(*p);
    }
    return std::vector<pipeline::GpuLaunch>{{kernel_, a_.config, std::move(params)}};
  }

  Status finish(Runner &gpu) override {
    if (a_.printBuffers)
      for (size_t i = 0; i < a_.args.size(); ++i) {
        const ArgSpec &s = a_.args[i];
        if (!s.buffer)
          continue;
        size_t elem = typeBytes(s.type), n = std::min<size_t>(s.count, 8);
        std::vector<unsigned char> host(elem * n);
        if (auto st = gpu.copyToHost(host.data(), buffers_[i], host.size()); !st)
          return st;
        std::vector<double> values;
        for (size_t k = 0; k < n; ++k)
          values.push_back(loadElement(s.type, host.data() + k * elem));
        shown.push_back({i, values});
      }
    for (DevicePtr p : buffers_)
      if (p)
        if (Status freed = gpu.free(p); !freed)
          return freed;
    return Ok{};
  }

  bool compiled() const { return compiled_; }
  /// Whether the run stopped on the command line's fault (exit 2), not the kernel's.
  bool usageFailed() const { return usageFailed_; }
  const std::string &kernel() const { return kernel_; }
  const BuildResult &built() const { return built_; }
  std::vector<std::pair<size_t, std::vector<double>>> shown; ///< --print-buffers

private:
  RunArgs &a_;
  const Watch &watch_;
  bool compiled_ = false, usageFailed_ = false;
  std::string kernel_;
  BuildResult built_;
  std::vector<DevicePtr> buffers_;
};

int runOnGpu(RunArgs &a, const Watch &watch) {
  CudaWork work(a, watch);
  pipeline::RunOptions options;
  options.device = a.device;
  options.timing = a.timing;
  options.phase = [&](double budget, const std::string &what) { watch.phase(budget, what); };
  auto outcome = pipeline::runOnGpu(work, options);
  if (!outcome) {
    const Error &e = outcome.error();
    if (e.noGpu())
      return fail(describeNoGpu(e), UsageError);
    if (e.kind == Error::Source)
      return InputErrors; // its diagnostics are printed
    if (work.usageFailed())
      return fail(e.message, UsageError);
    std::cerr << "cake run: " << shown(e.message) << "\n";
    if (e.kind == Error::Timeout) {
      std::cerr << "cake run: a kernel cannot be stopped from inside the process; exiting ends it\n";
      std::cout.flush();
      std::cerr.flush();
      _exit(TimedOut); // skip destructors: they would wait on the GPU
    }
    return InputErrors;
  }
  const pipeline::RunOutcome &o = *outcome;
  const DeviceInfo &dev = o.device;
  const Timing &t = o.time;
  const std::string &kernel = work.kernel();
  // Invariant 15: no oracle checks a CUDA file's outputs, and the report says so.
  const std::string unchecked = "not checked: a .cu, .ptx or .cubin run has no oracle (run a .cake kernel with "
                                "--workload for a checked run)";
  if (a.json) {
    json out;
    out["version"] = 1;
    out["device"] = {
        {"name", dev.name},       {"computeCapability", std::to_string(dev.major) + "." + std::to_string(dev.minor)},
        {"sms", dev.smCount},     {"memoryBytes", dev.globalMemoryBytes},
        {"l2Bytes", dev.l2Bytes}, {"driverVersion", dev.driverVersion}};
    out["kernel"] = kernel;
    out["target"] = work.compiled() ? std::string(targetName(a.cuda.build.target)) : std::string();
    auto dim = [](const Dim3 &d) { return json::array({d.x, d.y, d.z}); };
    out["launch"] = {{"grid", dim(a.config.grid)},
                     {"block", dim(a.config.block)},
                     {"cluster", dim(a.config.cluster)},
                     {"dynamicShared", a.config.dynamicShared}};
    if (o.attributes)
      out["registers"] = o.attributes->registers;
    out["timing"] = {{"warmup", a.timing.warmup},
                     {"repetitions", a.timing.repetitions},
                     {"coldL2", t.coldL2},
                     {"medianMs", t.medianMs},
                     {"minMs", t.minMs},
                     {"maxMs", t.maxMs},
                     {"meanMs", t.meanMs},
                     {"stddevMs", t.stddevMs},
                     {"p10Ms", t.p10Ms},
                     {"p90Ms", t.p90Ms},
                     {"spreadPercent", t.spreadPercent},
                     {"samplesMs", t.samplesMs}};
    out["checked"] = false;
    out["check"] = {{"ok", nullptr}, {"summary", unchecked}};
    if (work.compiled())
      out["kernels"] = ptxasToJson(work.built().report);
    json bufs = json::array();
    for (auto &[i, values] : work.shown)
      bufs.push_back({{"arg", i}, {"spec", a.args[i].text}, {"first", values}});
    if (a.printBuffers)
      out["buffers"] = bufs;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "device " << dev.ordinal << ": " << dev.name << ", compute capability " << dev.major << "."
              << dev.minor << ", " << dev.smCount << " SMs, " << gib(dev.globalMemoryBytes) << ", L2 "
              << dev.l2Bytes / (1 << 20) << " MiB, driver " << dev.driverVersion / 1000 << "."
              << dev.driverVersion % 1000 / 10 << "\n";
    if (work.compiled())
      printPtxasReport(std::cout, work.built(), a.cuda.build);
    std::cout << "kernel " << baseName(kernel) << ": grid " << dimText(a.config.grid) << ", block "
              << dimText(a.config.block) << ", cluster " << dimText(a.config.cluster) << ", " << a.config.dynamicShared
              << " bytes dynamic shared memory";
    if (o.attributes)
      std::cout << ", " << o.attributes->registers << " registers";
    std::cout << "\n";
    std::cout << "time: median " << ms(t.medianMs) << " (min " << ms(t.minMs) << ", max " << ms(t.maxMs)
              << ", p10-p90 spread " << std::setprecision(3) << t.spreadPercent << "%) over " << a.timing.repetitions
              << " launches after " << a.timing.warmup << " warm-up, " << (t.coldL2 ? "cold" : "warm") << " L2\n";
    std::cout << unchecked << "\n";
    for (auto &[i, values] : work.shown) {
      std::cout << "arg " << i << " (" << a.args[i].text << "):";
      for (double v : values)
        std::cout << " " << v;
      std::cout << (a.args[i].count > values.size() ? " ..." : "") << "\n";
    }
  }
  return Success;
}

int usage(const std::string &message) { return fail(message, UsageError); }

} // namespace

int runRun(int argc, char **argv) {
  cxxopts::Options o("cake run",
                     "Compile a kernel, launch it on the GPU and time it. FILE is CUDA source (.cu), PTX\n"
                     "(.ptx) or a cubin (.cubin), run without an oracle (reported as not checked); a .cake\n"
                     "file takes the options of 'cake run FILE.cake --help'. Without a GPU it says so and exits 2. Launches run in a child process that a watchdog kills when a\n"
                     "launch runs past --timeout (exit 3).\n\n"
                     "Arguments (--arg, in the kernel's parameter order): TYPE:VALUE for scalars (i32 u32\n"
                     "i64 u64 f32 f64) and buf:TYPE:COUNT[=INIT] for device buffers (f32 f16 bf16 f64 i8\n"
                     "u8 i32 u32 i64 u64; INIT is a number, iota or rand; default 0).");
  o.add_options()("k,kernel", "The kernel (default: the only one)", cxxopts::value<std::string>())(
      "grid", "Grid X[,Y[,Z]]", cxxopts::value<std::string>()->default_value("1"))(
      "block", "Block X[,Y[,Z]]", cxxopts::value<std::string>()->default_value("128"))(
      "cluster", "Cluster X[,Y[,Z]] (sm_90a and later)", cxxopts::value<std::string>()->default_value("1"))(
      "smem", "Dynamic shared memory in bytes", cxxopts::value<uint32_t>()->default_value("0"))(
      "arg", "A kernel argument (repeat in order)", cxxopts::value<std::vector<std::string>>())(
      "warmup", "Untimed launches first",
      cxxopts::value<int>()->default_value("3"))("reps", "Timed launches", cxxopts::value<int>()->default_value("20"))(
      "cold-l2", "Flush L2 (write a buffer twice its size) before each timed launch")(
      "timeout", "Seconds one launch may take", cxxopts::value<double>()->default_value("10"))(
      "no-watchdog", "Run in this process (for debuggers): a launch past --timeout is still reported, but "
                     "nothing kills a stuck driver call")(
      "print-buffers", "Print the first elements of each buffer argument after the run")(
      "device", "GPU ordinal", cxxopts::value<int>()->default_value("0"))(
      "format", "Output format: text or json", cxxopts::value<std::string>()->default_value("text"))(
      "color", "Colour diagnostics: auto, always or never", cxxopts::value<std::string>()->default_value("auto"))(
      "h,help", "Show this help")("file", "Input file", cxxopts::value<std::string>());
  addCudaOptions(o);
  o.parse_positional({"file"});
  o.positional_help("FILE");

  for (int i = 1; i < argc; ++i) // CAKE IR has its own options (RunCakeCommand.cpp)
    if (isCakeSource(argv[i]))
      return runCake(argc, argv);
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  RunArgs a;
  if (!args.count("file"))
    return usage("which file? (see 'cake run --help')");
  a.path = args["file"].as<std::string>();
  if (auto error = readCudaOptions(args, a.cuda); !error)
    return usage(error.error().message);
  if (args.count("kernel"))
    a.kernel = args["kernel"].as<std::string>();
  struct {
    const char *name;
    Dim3 *out;
  } dimsToRead[] = {{"grid", &a.config.grid}, {"block", &a.config.block}, {"cluster", &a.config.cluster}};
  for (auto &d : dimsToRead) {
    auto v = parseDim(args[d.name].as<std::string>());
    if (!v)
      return usage(std::string("--") + d.name + " takes X[,Y[,Z]] with positive integers, not '" +
                   args[d.name].as<std::string>() + "'");
    *d.out = *v;
  }
  a.config.dynamicShared = args["smem"].as<uint32_t>();
  if (args.count("arg"))
    for (const std::string &text : args["arg"].as<std::vector<std::string>>()) {
      ArgSpec s;
      if (auto error = parseArg(text, s); !error)
        return usage(error.error().message);
      a.args.push_back(std::move(s));
    }
  a.timing.warmup = args["warmup"].as<int>();
  a.timing.repetitions = args["reps"].as<int>();
  a.timing.coldL2 = args.count("cold-l2") > 0;
  a.timing.timeoutSeconds = args["timeout"].as<double>();
  if (a.timing.warmup < 0 || a.timing.repetitions < 1)
    return usage("--warmup must be at least 0 and --reps at least 1");
  if (!(a.timing.timeoutSeconds > 0))
    return usage("--timeout must be positive");
  a.watchdog = args.count("no-watchdog") == 0;
  a.printBuffers = args.count("print-buffers") > 0;
  a.device = args["device"].as<int>();
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json")
    return usage("unknown format '" + format + "' (expected text or json)");
  a.json = format == "json";
  std::string color = args["color"].as<std::string>();
  if (color != "auto" && color != "always" && color != "never")
    return usage("unknown colour mode '" + color + "'");
  a.color = color == "always" || (color == "auto" && shouldUseColor(STDERR_FILENO));

  return a.watchdog ? superviseChild([&](const Watch &w) { return runOnGpu(a, w); }) : runOnGpu(a, Watch(-1));
}

} // namespace cake::cli
