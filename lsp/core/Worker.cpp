//===- Worker.cpp - Threads for the language server's long work -----------===//
#include "lsp/core/Worker.h"

namespace cake::lsp {

Worker::Worker(unsigned threads) {
  for (unsigned i = 0; i < threads; ++i)
    threads_.emplace_back([this] { loop(); });
}

Worker::~Worker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    jobs_.clear();
  }
  wake_.notify_all();
  for (std::thread &t : threads_)
    t.join();
}

void Worker::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void Worker::waitIdle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && running_ == 0; });
}

void Worker::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (stopping_)
        return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++running_;
    }
    job(); // jobs catch their own errors: they answer a request
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    idle_.notify_all();
  }
}

} // namespace cake::lsp
