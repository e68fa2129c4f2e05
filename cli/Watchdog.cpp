//===- Watchdog.cpp - Running GPU work in a child a watchdog can kill ------===//
#include "cli/Watchdog.h"
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/runner/Process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sstream>
#include <sys/wait.h>

namespace cake::cli {
namespace {

int fail(const std::string &message, int code) {
  return reportFailure("cake run", message, code);
}

} // namespace


int superviseChild(const std::function<int(const Watch &)> &body) {
  std::cout.flush();
  std::cerr.flush();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return fail(std::string("cannot create the watchdog pipe: ") + std::strerror(errno), UsageError);
  pid_t pid = fork();
  if (pid < 0)
    return fail(std::string("cannot start the launch process: ") + std::strerror(errno), UsageError);
  if (pid == 0) {
    close(fds[0]);
    int rc = body(Watch(fds[1]));
    std::cout.flush();
    std::cerr.flush();
    _exit(rc); // no destructors of the parent's state run twice
  }
  close(fds[1]);

  using Clock = std::chrono::steady_clock;
  auto budget = [](double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); };
  double phaseBudget = kStartBudget;
  std::string phase = "starting the GPU";
  auto deadline = Clock::now() + budget(phaseBudget);
  std::string pending;
  bool killed = runner::drainWithDeadline(fds[0], pid, deadline, [&](std::string_view chunk) {
    // The child reports each phase as a line: "<budget seconds> <what>".
    pending += chunk;
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
      std::string line = pending.substr(0, nl);
      size_t space = line.find(' ');
      phaseBudget = std::strtod(line.c_str(), nullptr);
      phase = space == std::string::npos ? line : line.substr(space + 1);
      deadline = Clock::now() + budget(phaseBudget);
    }
  });
  close(fds[0]);

  // The child closed the pipe by exiting; its exit may still take a moment
  // (the driver tears the context down).
  int status = 0;
  auto exitDeadline = Clock::now() + budget(killed ? 30 : kGrace + 20);
  while (true) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR)
      return fail("lost the launch process", UsageError);
    if (Clock::now() >= exitDeadline) {
      if (!killed) {
        kill(pid, SIGKILL);
        killed = true;
        exitDeadline = Clock::now() + budget(30);
        continue;
      }
      return fail("the launch process (pid " + std::to_string(pid) +
                      ") does not exit after SIGKILL; the GPU "
                      "driver may be stuck",
                  TimedOut);
    }
    usleep(10000);
  }
  if (killed) {
    std::ostringstream s;
    s << phase << " did not finish within " << phaseBudget
      << " s; the watchdog killed the launch process (a kernel that hangs cannot be stopped inside a process; "
         "ending the process frees the GPU)";
    return fail(s.str(), TimedOut);
  }
  if (WIFSIGNALED(status))
    return fail("the launch process died of signal " + std::to_string(WTERMSIG(status)) + " (" +
                    strsignal(WTERMSIG(status)) + ")",
                InputErrors);
  return WIFEXITED(status) ? WEXITSTATUS(status) : InputErrors;
}

} // namespace cake::cli
