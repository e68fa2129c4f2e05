//===- RunSignature.h - A failure found by running the program --*- C++ -*-===//
//
// Part of CAKE (issue #21). The reducer's signature for a code that only a run
// or a build finds (compiler/driver/Reduce.h keeps the core free of GPUs and
// of the CLI): each candidate is checked, then built and run by this cake
// (`cake run FILE ARGS --report R` in a child process, with its own watchdog),
// or built (`cake build FILE ARGS --report R`), and kept when the child
// reports the code. Used by `cake reduce --run/--build` and `cake evolve`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/driver/Reduce.h"

#include <memory>
#include <string>
#include <vector>

namespace cake::cli {

/// Whether \p code is found by running a program (run.*, cuda.*), not by the checks.
bool isRunCode(const std::string &code);
/// Whether \p code can be found by building a program (ptxas.*, cuda.*: the tool chain's findings).
bool isBuildCode(const std::string &code);

/// How many candidates keepsRun ran, and how many it answered from a run before (the same tokens: a
/// comment or a blank line deleted).
struct RunCount {
  size_t runs = 0, remembered = 0;
};

/// The signature "`cake run CANDIDATE ARGS` reports \p code": the candidate is written, under \p input's name,
/// into a folder of its own holding copies of the JSON files beside \p input (the manifest that names its
/// instantiation, its workloads; \p args resolve from the working directory as they did), checked first (a candidate with errors is not a program to run), then run as a child with --report; the
/// report's diagnostics are searched for the code ("run.timeout": the report's status is "timeout", the
/// watchdog ended the run), and the finding must be one of the first run's (the original's, which the caller
/// tests first): the same names quoted in its message (a hang: the role and the ring it waited on). The children's runs stay out of the failure log (CAKE_LOG=0 for them).
/// With --no-verify among \p args the candidates are checked as that run checks them: the front end's errors
/// reject one, the rules' do not. A candidate with the tokens of one run before is answered as that run
/// was. \p count, when given, counts the runs and the answers remembered.
Signature keepsRun(const std::string &code, const std::string &input, std::vector<std::string> args,
                   double timeoutSeconds, std::shared_ptr<RunCount> count = nullptr);

/// The same for a code the build finds (ptxas.wgmma-serialized, ptxas.spill, cuda.error): each candidate
/// compiled by `cake build CANDIDATE --report R ARGS` (NVRTC and ptxas; no GPU), the finding one of the
/// first build's (the same names and ptxas codes: C7518 does not become C7514).
Signature keepsBuild(const std::string &code, const std::string &input, std::vector<std::string> args,
                     double timeoutSeconds, std::shared_ptr<RunCount> count = nullptr);

/// \p s split at whitespace (the --run string).
std::vector<std::string> splitArgs(const std::string &s);

} // namespace cake::cli
