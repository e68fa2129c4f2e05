//===- Process.cpp - Running a tool as a child process --------------------===//
#include "compiler/runner/Process.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace cake::runner {

std::string findProgram(const std::string &name, const std::vector<std::string> &fallbackDirs) {
  namespace fs = std::filesystem;
  auto executable = [](const fs::path &p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos)
    return executable(name) ? name : std::string();
  if (const char *path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (true) {
      size_t colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      if (!dir.empty() && executable(fs::path(dir) / name))
        return (fs::path(dir) / name).string();
      if (colon == std::string_view::npos)
        break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (const std::string &dir : fallbackDirs)
    if (executable(fs::path(dir) / name))
      return (fs::path(dir) / name).string();
  return {};
}

bool drainWithDeadline(int fd, pid_t pid, std::chrono::steady_clock::time_point &deadline,
                       const std::function<void(std::string_view)> &onData, const std::atomic<bool> *stop) {
  using Clock = std::chrono::steady_clock;
  char buf[1 << 14];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || (stop && stop->load())) {
      kill(pid, SIGKILL);
      return true;
    }
    pollfd p{fd, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<long long>(left, stop ? 20 : 1000)));
    if (n < 0 && errno != EINTR)
      return false;
    if (n <= 0)
      continue;
    ssize_t got = read(fd, buf, sizeof buf);
    if (got > 0)
      onData(std::string_view(buf, static_cast<size_t>(got)));
    else if (got == 0 || errno != EINTR)
      return false;
  }
}

ProcessResult runProcess(const std::vector<std::string> &argv, double timeoutSeconds) {
  return runProcess(argv, timeoutSeconds, nullptr);
}

ProcessResult runProcess(const std::vector<std::string> &argv, double timeoutSeconds, const std::atomic<bool> *stop) {
  ProcessResult result;
  if (argv.empty()) {
    result.output = "no program to run";
    return result;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (stop) { // a group of its own, so that a stop reaches its children too
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    result.output = argv[0] + ": cannot run: " + std::strerror(rc);
    return result;
  }
  result.started = true;

  using Clock = std::chrono::steady_clock;
  auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeoutSeconds));
  bool killed = drainWithDeadline(
      fds[0], stop ? -pid : pid, deadline, [&](std::string_view chunk) { result.output += chunk; }, stop);
  result.stopped = killed && stop && stop->load();
  result.timedOut = killed && !result.stopped;
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

} // namespace cake::runner
