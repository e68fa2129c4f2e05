//===- Commands.h - cake subcommands ---------------------------*- C++ -*-===//
//
// Each subcommand parses its own options (cxxopts) and returns the process
// exit code: 0 success, 1 the input has errors (or would change, for
// `fmt --check`), 2 usage or I/O error.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace cake::formats {}

namespace cake::cli {

// The subcommands read and write the project's files through formats/.
using namespace cake::formats;

/// Exit codes. 3 is a launch that timed out or hung (cake run); 70 an internal
/// error (a bug: the last-resort handler in main); 74 output that could not
/// be written (stdout at /dev/full, a closed pipe).
enum ExitCode { Success = 0, InputErrors = 1, UsageError = 2, InternalError = 70, OutputError = 74 };

/// argv[0] is the subcommand name.
int runCheck(int argc, char **argv);
int runFmt(int argc, char **argv);
/// `cake reduce`: shrink a file while it keeps a diagnostic (compiler/driver/Reduce.h).
int runReduce(int argc, char **argv);
/// `cake tactic`: named schedule rewrites (compiler/driver/Tactics.h).
int runTactic(int argc, char **argv);
/// `cake tune`: a file's instantiations ranked by the cost model, the best run on the GPU.
int runTune(int argc, char **argv);
/// `cake log`: the project's failure log (formats/FailureLog.h), listed or summed up.
int runLog(int argc, char **argv);
/// `cake evolve`: proposals from the failure log (recurring rule codes, reduced).
int runEvolve(int argc, char **argv);
int runRules(int argc, char **argv);
int runTargets(int argc, char **argv);
int runExplain(int argc, char **argv);
int runCorpus(int argc, char **argv);
int runLsp(int argc, char **argv);
int runBuild(int argc, char **argv);
int runRun(int argc, char **argv);
int runEmit(int argc, char **argv);
int runBench(int argc, char **argv);
/// `cake run FILE.cake`: lowered kernels with workloads and oracles.
int runCake(int argc, char **argv);
/// `cake cost`: the cost model's estimate, or --validate against results.
int runCost(int argc, char **argv);
int runDispatch(int argc, char **argv);
/// `cake calibrate`: fit the cost model's calibration file.
int runCalibrate(int argc, char **argv);
/// `cake task list|init|check|score` (TaskCommand.cpp, docs/tasks.md).
int runTask(int argc, char **argv);

} // namespace cake::cli
