//===- Watchdog.h - Running GPU work in a child a watchdog can kill -*- C++ -*-===//
//
// Part of CAKE. A kernel that never finishes cannot be stopped from inside
// the process that launched it. `cake run` therefore does its GPU work in a
// child process (fork, before any CUDA call in the parent) that announces
// each phase on a pipe with its time budget; the parent kills the child
// (SIGKILL) when a phase runs past its budget, which ends the kernel with the
// child's CUDA context, and reports which phase it was.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/pipeline/Pipeline.h"

#include <functional>
#include <string>
#include <unistd.h>

namespace cake::cli {

/// Exit code of a launch that timed out or was killed by the watchdog.
constexpr int TimedOut = 3;
// The budgets of the pipeline's phases (compiler/pipeline/Pipeline.h).
using pipeline::kGrace;
using pipeline::kStartBudget;

/// The child's end of the watchdog pipe: each phase says how long it may take.
class Watch {
public:
  explicit Watch(int fd) : fd_(fd) {}
  bool active() const { return fd_ >= 0; }
  void phase(double budgetSeconds, const std::string &what) const {
    if (fd_ < 0)
      return;
    std::string line = std::to_string(budgetSeconds) + " " + what + "\n";
    ssize_t ignored = write(fd_, line.data(), line.size());
    (void)ignored;
  }

private:
  int fd_;
};

/// Runs \p body in a child process under the watchdog and returns its exit
/// code (TimedOut when it was killed; the reason is printed on stderr).
int superviseChild(const std::function<int(const Watch &)> &body);

} // namespace cake::cli
