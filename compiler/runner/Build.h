//===- Build.h - Compiling generated CUDA to PTX and cubin -----*- C++ -*-===//
//
// Part of CAKE. The lowering emits CUDA C++ with `#line N "file.cake"`
// directives; this header compiles such source in process with NVRTC (or
// ahead of time with nvcc + ptxas), parses ptxas's resource report per kernel
// and maps every message of the tool chain to a cake::Diagnostic located at
// the line the directives name. Nothing here needs a GPU: NVRTC, nvcc and
// ptxas run on any machine with the CUDA toolkit. See docs/runner.md.
//
// The parsers (parseFrontEndLog, parsePtxasLog, LineMap, PtxLocMap) and the
// mapping (LogMapper) work on text only, so they are unit-tested on captured
// logs (tests/unit/RunnerTest.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/target/Target.h"
#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::runner {

//===----------------------------------------------------------------------===//
// Options and results
//===----------------------------------------------------------------------===//

struct BuildOptions {
  Target target = Target::SM90a;
  /// -G and -DCAKE_DEBUG (device debug information; ptxas then ignores
  /// setmaxnreg and -lineinfo).
  bool debug = false;
  /// -lineinfo: PTX .loc directives, which map ptxas errors to source lines
  /// and let profilers show IR lines. Ignored with debug.
  bool lineInfo = true;
  /// --maxrregcount; 0 leaves the limit to ptxas.
  int maxRegisters = 0;
  /// The CUDA toolkit: include/ and include/cccl are searched, bin/ holds
  /// nvcc and ptxas for the ahead-of-time path (nvcc on PATH comes first).
  std::string cudaHome = "/usr/local/cuda";
  std::vector<std::string> includeDirs; ///< -I, searched after the toolkit's
  std::vector<std::string> defines;     ///< -D, "NAME" or "NAME=VALUE"
  std::vector<std::string> extraFlags;  ///< passed to NVRTC or nvcc as they are
  /// Wall-clock limit for each nvcc or ptxas process (ahead-of-time path).
  double toolTimeoutSeconds = 600;
};

/// One function of ptxas's report (`ptxas -v`).
struct PtxasFunction {
  std::string name;      ///< as ptxas prints it (mangled for C++ kernels)
  std::string demangled; ///< "vadd" or "spill(float*, int)"; equal to name when not mangled
  bool entry = false;    ///< a kernel ("Compiling entry function"), not a device function
  std::string arch;      ///< "sm_90a", for entries
  int registers = -1;    ///< -1 when the report has no "Used N registers" line
  int barriers = -1;     ///< named barriers, -1 when not reported
  uint64_t stackFrame = 0;
  uint64_t spillStores = 0;
  uint64_t spillLoads = 0;
  uint64_t cumulativeStack = 0;
  uint64_t sharedBytes = 0;              ///< static shared memory
  uint64_t localBytes = 0;               ///< "N bytes lmem" (older ptxas)
  std::map<int, uint64_t> constantBanks; ///< cmem[bank] -> bytes
  double compileTimeMs = -1;

  bool spills() const { return spillStores > 0 || spillLoads > 0; }
};

/// A warning, error or notable info line of ptxas.
struct PtxasMessage {
  Severity severity = Severity::Warning; ///< Error (error/fatal), Warning, or Remark (info)
  std::string text;                      ///< the message after "error   : " and the like
  std::string ptxFile;                   ///< "application ptx input" or a path, when a PTX line is named
  uint32_t ptxLine = 0;                  ///< 1-based, 0 when none
  std::string id;                        ///< "C7508" when ptxas gives one
};

struct PtxasReport {
  std::vector<PtxasFunction> functions; ///< in the order ptxas reports them
  std::vector<PtxasMessage> messages;
  uint64_t globalBytes = 0; ///< "N bytes gmem"

  const PtxasFunction *find(std::string_view name) const;
  /// The kernels (entry functions) only.
  std::vector<const PtxasFunction *> entries() const;
};

/// Parses the text ptxas prints with -v, alone or inside an NVRTC or nvcc
/// log (other lines are ignored). Accepts the CUDA 11 to 13 formats: the
/// properties line with or without the "ptxas         ." prefix, and the
/// "Used N registers, ..." list in any order.
PtxasReport parsePtxasLog(std::string_view log);

/// One message of the CUDA front end (EDG), as NVRTC and nvcc print it:
///
///   k.cake(7): error: a value of type "const char *" cannot be used ...
///         int x = "hello";
///                 ^
///             detected during instantiation of ...
struct FrontEndMessage {
  std::string file;
  uint32_t line = 0;
  Severity severity = Severity::Error;
  std::string text;
  std::string number;             ///< "177-D" for "warning #177-D: ..."
  std::string sourceLine;         ///< the front end's copy of the line, its 2-space indent removed
  int caret = -1;                 ///< 0-based byte column of '^' in sourceLine, -1 when none
  std::vector<std::string> notes; ///< indented continuation lines ("detected during ...")
};

/// Messages with a location ("file(line): severity: text"), in log order.
std::vector<FrontEndMessage> parseFrontEndLog(std::string_view log);

/// Lines of an NVRTC or nvcc log that report an error without a location:
/// "nvcc fatal   : ...", "error: ...", "catastrophic error: ...".
std::vector<std::string> unlocatedErrors(std::string_view log);

/// Maps lines of generated CUDA to the lines their `#line N "file"` (or
/// `# N "file"`) directives name.
class LineMap {
public:
  explicit LineMap(std::string_view source);
  struct Location {
    std::string file; ///< empty: the line is not under any directive
    uint32_t line = 0;
  };
  /// Where 1-based line \p generatedLine of the source comes from.
  Location map(uint32_t generatedLine) const;
  bool empty() const { return directives_.empty(); }

private:
  struct Directive {
    uint32_t at;   ///< the directive's own line
    uint32_t line; ///< the line number it sets for the next line
    std::string file;
  };
  std::vector<Directive> directives_;
};

/// Maps PTX lines to source locations through the PTX's `.file` and `.loc`
/// directives (present with -lineinfo or -G).
class PtxLocMap {
public:
  explicit PtxLocMap(std::string_view ptx);
  struct Location {
    std::string file; ///< empty when no .loc precedes the line
    uint32_t line = 0;
    uint32_t column = 0; ///< 1-based, 0 when unknown
  };
  /// The location of the last .loc at or before 1-based PTX line \p ptxLine.
  Location map(uint32_t ptxLine) const;

private:
  std::map<int, std::string> files_;
  std::vector<std::pair<uint32_t, Location>> locs_; ///< (PTX line, location), ascending
};

/// Resolves the file names of compiler messages to buffers of a
/// SourceManager and turns messages into Diagnostics.
///
/// A name resolves to, in order: an alias (see alias()); a buffer of that
/// name; a buffer whose absolute, normalized path is the same; a file the
/// loader returns the text of (added as a new buffer); otherwise a stand-in
/// buffer (SourceManager::addStandIn), so the diagnostic still says
/// file:line, without a source line.
class LogMapper {
public:
  using Loader = std::function<std::optional<std::string>(const std::string &name)>;
  explicit LogMapper(SourceManager &sm, Loader loader = {}) : sm_(sm), loader_(std::move(loader)) {}

  /// Messages naming \p name (e.g. the temporary copy nvcc compiled) belong
  /// to \p file.
  void alias(std::string name, FileId file) { aliases_[std::move(name)] = file; }

  /// The buffer for \p name; a stand-in buffer gets at least \p minLines lines.
  FileId resolve(const std::string &name, uint32_t minLines = 1);

  /// The range of 1-based \p line of \p file: from its first non-blank byte
  /// to its end; with \p column (1-based, 0 = unknown) the identifier or
  /// single character that starts there.
  SourceRange lineRange(FileId file, uint32_t line, uint32_t column = 0) const;

  /// Front-end messages and unlocated errors of an NVRTC or nvcc log.
  std::vector<Diagnostic> mapFrontEnd(std::string_view log);

  /// Diagnostics for ptxas's errors and warnings, spills and ignored
  /// setmaxnreg. \p ptx maps PTX lines (may be empty); \p cuda is the
  /// generated CUDA source, used to place findings that ptxas reports per
  /// function (the kernel's __global__ line) or for no function (the first
  /// setmaxnreg), mapped through its #line directives.
  std::vector<Diagnostic> mapPtxas(const PtxasReport &report, std::string_view ptx, FileId cuda);

  /// Where kernel (or device function) \p symbol is declared in the
  /// generated CUDA \p cuda, mapped through its #line directives: its name
  /// when the mapped line holds it, else the whole line. Invalid when the
  /// declaration is not found.
  SourceRange kernelRange(FileId cuda, std::string_view symbol);

private:
  SourceRange locate(const std::string &file, uint32_t line, uint32_t column = 0);
  /// \p range (one line) narrowed to the first whole word \p word on it.
  SourceRange narrow(SourceRange range, std::string_view word) const;
  /// \p generatedLine of \p cuda, through its #line directives.
  SourceRange locateGenerated(FileId cuda, uint32_t generatedLine);
  /// Places a ptxas message that names no PTX line: a failed register count
  /// at the role whose setmaxnreg asked for it, a named function at its
  /// declaration.
  void locateUnlined(Diagnostic &d, std::string_view text, FileId cuda, std::string_view cudaText);

  SourceManager &sm_;
  Loader loader_;
  std::map<std::string, FileId> aliases_;
  std::map<std::string, FileId> resolved_;
};

/// The 1-based line of \p source that declares kernel \p name (mangled or
/// not): the line holding the name's identifier after `__global__`. 0 when
/// not found.
uint32_t findKernelLine(std::string_view source, std::string_view name);

/// "vadd" for "vadd", "spill" for "_Z5spillPfi": the unqualified name of a
/// function, demangled.
std::string baseName(std::string_view symbol);

struct BuildResult {
  bool success = false;
  std::string tool; ///< "NVRTC 13.0" or the nvcc command line
  std::string log;  ///< everything the tools printed
  std::string ptx;
  std::string cubin; ///< ELF bytes; empty when ptxas failed
  PtxasReport report;
  std::vector<Diagnostic> diagnostics; ///< sorted by sortDiagnostics
  double seconds = 0;                  ///< wall-clock time of the build
};

/// Compiles buffer \p source of \p sm in process with NVRTC, for
/// options.target, with ptxas's report (--ptxas-options=-v). Its name is the
/// program name: messages about lines outside any #line directive name it.
/// Files that messages name are resolved with LogMapper (\p loader reads
/// those not in \p sm).
BuildResult buildWithNvrtc(SourceManager &sm, FileId source, const BuildOptions &options,
                           LogMapper::Loader loader = {});

/// The ahead-of-time path: `nvcc -ptx` then `ptxas -v` on the PTX, as child
/// processes, with the same mapping. nvcc is looked up on PATH, then in
/// options.cudaHome/bin; ptxas next to the nvcc found.
BuildResult buildWithNvcc(SourceManager &sm, FileId source, const BuildOptions &options, LogMapper::Loader loader = {});

/// "NVRTC 13.0", or a sentence saying NVRTC is not available in this build.
std::string nvrtcVersion();
/// False when CAKE was built without the CUDA toolkit.
bool nvrtcAvailable();

/// The NVRTC options buildWithNvrtc passes (for tests and --verbose).
std::vector<std::string> nvrtcOptions(const BuildOptions &options);

/// Reads a file relative to the current directory, then relative to each of
/// \p dirs: a LogMapper::Loader for files on disk.
LogMapper::Loader fileLoader(std::vector<std::string> dirs = {});

} // namespace cake::runner
