//===- Worker.h - Threads for the language server's long work --*- C++ -*-===//
//
// Part of CAKE. A small pool of threads that runs jobs in the order they were
// posted: cake.compile, cake.run and cake.bench run here so that the main
// thread keeps answering hovers and publishing diagnostics meanwhile. A job
// owns what it reads (a Snapshot, copies of the options); it observes
// cancellation through its own CancelFlag. The destructor waits for the
// jobs that are running and drops the ones that have not started.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cake::lsp {

class Worker {
public:
  explicit Worker(unsigned threads);
  ~Worker();
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;

  void post(std::function<void()> job);
  /// Blocks until no job is queued or running (tests, shutdown).
  void waitIdle();

private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<std::function<void()>> jobs_;
  unsigned running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace cake::lsp
