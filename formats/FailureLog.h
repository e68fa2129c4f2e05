//===- FailureLog.h - The project's log of outcomes (JSON lines) -*- C++ -*-===//
//
// Part of CAKE. Issue #21's failure log: every `cake check`, `cake build` and `cake run` of a file (and every
// save in the language server; `cake bench` through its runs) appends one event (what ran, on which file and
// IR, which rule or error codes it found, whether it passed; for a run the kernel, the instantiation, the
// sizes and the median time) to a project-local JSON-lines file, <root>/.cake/log.jsonl, where
// the root is the nearest folder above the file holding .git or .cake. Nothing
// leaves the machine; CAKE_LOG=0 turns it off, CAKE_LOG=PATH puts it at PATH.
// `cake log` reads it back: a failure is "fixed" when the next event of the
// same file, on a different IR, passed. The log is what `cake evolve` will
// group recurring failures from.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"
#include "diagnostics/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::formats {

/// What a run (command "run") adds to its event: what ran at which shape, and how long it took.
struct RunFields {
  std::string kernel;                   ///< "knn_sm90"
  std::string instance;                 ///< the manifest's instantiation, "search_fp16_d128_k16"
  std::map<std::string, int64_t> sizes; ///< the bound sizes, {"Q": 4096, ...}
  std::optional<double> ms;             ///< the median time of a run that passed
  std::string device;                   ///< the GPU it ran on, "NVIDIA H200"
  /// The command's arguments after the file, and the folder it ran in: what runs the program again (cake
  /// evolve --run reduces a run's failure with them).
  std::vector<std::string> args;
  std::string cwd;
};

struct LogEvent : RunFields {
  std::string time;    ///< UTC, ISO 8601: "2026-12-03T23:30:00Z"
  std::string command; ///< "check"
  std::string stage;   ///< what caught it: "static" (the verifier), "lower", "build", "run"
  std::string file;    ///< as the command was given it
  std::string irHash;  ///< FNV-1a 64 of the file's text, 16 hex digits
  std::vector<std::string> errors;   ///< the error codes found, sorted, once each
  std::vector<std::string> warnings; ///< the warning codes, likewise
  bool ok = true;                    ///< no error
};

/// A run's fields for its event (the folder is filled in when the event is written), and where it goes.
struct RunDetails : RunFields {
  /// The file the event is appended to instead of the project's log (a watchdog's child writes its event
  /// there and the parent moves it into the log: forwardEvents); "" = the log.
  std::string eventPath;
};

/// FNV-1a 64 of \p text as 16 hex digits.
std::string hashText(std::string_view text);

/// Where the log of the project holding \p file is ("-": the working
/// directory): projectDataDir(file)/log.jsonl; "" when no folder above is a
/// project's, or logging is off (CAKE_LOG=0). CAKE_LOG set to anything else
/// is the path itself.
std::string logPathFor(const std::string &file);

/// The project's own folder for what CAKE keeps (the failure log, the tuning
/// database): <the nearest folder above \p file with .git or .cake>/.cake;
/// "" when no folder above is a project's.
std::string projectDataDir(const std::string &file);

/// Appends \p e to the log at \p path as one line (creating its folder), in
/// one write so that concurrent commands do not interleave their lines.
Status appendEvent(const std::string &path, const LogEvent &e);

/// The log at \p path, oldest first (a missing file is an empty log); a line
/// that is not an event is skipped and counted in \p skipped.
Expected<std::vector<LogEvent>> readLog(const std::string &path, size_t *skipped = nullptr);

/// For each event, whether it failed and the next event of the same file, on
/// another IR, passed (the change that fixed it).
std::vector<bool> fixedByNext(const std::vector<LogEvent> &events);

/// Where the log at \p log keeps the text of a failing IR: <its folder>/ir/<hash>.cake
/// (what `cake evolve` reduces).
std::string irPathFor(const std::string &log, const std::string &hash);

/// Keeps \p text as the IR \p hash beside the log \p log (once: an IR already
/// kept is not written again).
Status keepIr(const std::string &log, const std::string &hash, std::string_view text);

/// What a command appends for one file, best effort (a log that cannot be
/// written never fails the command): \p command ("check", "build", "lsp")
/// on \p path (its IR \p ir, what it found). The stage is \p stage, or, when
/// empty, "lower" when an error is the lowering's and "static" otherwise. A
/// failing IR, or one with a tool-chain finding, is kept beside the log
/// (keepIr). Nothing for stdin ("-").
/// Whether warning \p code is a finding of the tool chain that `cake evolve`
/// proposes from as it does from errors (ptxas.*: a serialized wgmma pipeline,
/// a spill, an ignored setmaxnreg); the generic cuda.warning is not.
bool isToolFinding(std::string_view code);

/// What of \p e `cake evolve` groups: its errors and its tool-chain findings.
std::vector<std::string> findingsOf(const LogEvent &e);

void logOutcome(std::string_view command, const std::string &path, std::string_view ir,
                const std::vector<Diagnostic> &found, std::string stage = "", const RunDetails &run = {});

/// Moves the events of \p eventPath (written by a child process, RunDetails::eventPath) into the log \p log
/// and removes the file; false when it held none (the child died before it could write).
bool forwardEvents(const std::string &eventPath, const std::string &log);

} // namespace cake::formats
