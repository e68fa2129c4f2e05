//===- Process.h - Running a tool as a child process -----------*- C++ -*-===//
//
// Part of CAKE. Runs nvcc and ptxas for the ahead-of-time build: argv in,
// exit status and the merged stdout/stderr out, with a wall-clock limit.
// The language server also runs `cake run` through it on a worker thread,
// and stops it when the client cancels the request (the stop flag).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace cake::runner {

struct ProcessResult {
  bool started = false;  ///< false: the program could not be run (see output)
  bool timedOut = false; ///< killed after the limit
  bool stopped = false;  ///< killed because the stop flag was set
  int exitCode = -1;     ///< the exit status, or -1 when killed by a signal
  int signal = 0;        ///< the signal that ended it, 0 when none
  std::string output;    ///< stdout and stderr, interleaved as written
};

/// Runs \p argv (argv[0] is a path or a name looked up on PATH), waits at most
/// \p timeoutSeconds, then kills it (SIGKILL) and reports timedOut.
ProcessResult runProcess(const std::vector<std::string> &argv, double timeoutSeconds);

/// As above, and also stops the child as soon as \p stop becomes true (it is
/// polled every 20 ms), reporting stopped. With a stop flag the child runs in
/// a process group of its own and the kill (stop or timeout) goes to the whole
/// group: `cake run` forks the process that launches the kernel, and a
/// cancelled run must not leave that one behind.
ProcessResult runProcess(const std::vector<std::string> &argv, double timeoutSeconds, const std::atomic<bool> *stop);

/// Reads \p fd until it closes, handing each chunk to \p onData, which may
/// move \p deadline (a child reporting progress). When the deadline passes,
/// or \p stop (when given) becomes true, \p pid is killed (SIGKILL; a
/// negative pid names a process group) and the result is true.
bool drainWithDeadline(int fd, pid_t pid, std::chrono::steady_clock::time_point &deadline,
                       const std::function<void(std::string_view)> &onData,
                       const std::atomic<bool> *stop = nullptr);

/// The first executable \p name on PATH, then in each of \p fallbackDirs; empty
/// when none.
std::string findProgram(const std::string &name, const std::vector<std::string> &fallbackDirs = {});

} // namespace cake::runner
