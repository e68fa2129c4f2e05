//===- Verifier.cpp - Static hazard rules ---------------------------------===//
//
// Kernels are independent, so they are checked in parallel: each on its own
// sink, the findings then appended in kernel order, which keeps the output
// identical to a serial run.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Verifier.h"

#include "compiler/verify/Rules.h"

#include <atomic>
#include <exception>
#include <thread>

namespace cake::verify {
namespace {

void checkKernel(const sema::Kernel &kernel, RuleContext &ctx) {
  checkResources(kernel, ctx);
  checkIssue(kernel, ctx);
  checkBarriers(kernel, ctx);
  checkRings(kernel, ctx);
  checkAsync(kernel, ctx);
  checkCopies(kernel, ctx);
  checkMma(kernel, ctx);
  checkAccumulators(kernel, ctx);
  checkFolds(kernel, ctx);
  checkBounds(kernel, ctx);
}

} // namespace

void verify(const sema::Module &module, const SourceManager &sm, DiagnosticSink &sink) {
  size_t n = module.kernels.size();
  std::vector<std::vector<Diagnostic>> found(n);
  std::vector<std::exception_ptr> failures(n);
  auto run = [&](size_t i) {
    try {
      DiagnosticSink local(found[i]);
      RuleContext ctx{sm, local};
      checkKernel(module.kernels[i], ctx);
    } catch (...) {
      failures[i] = std::current_exception();
    }
  };
  size_t threads = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i)
      run(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < n;)
          run(i);
      });
    for (std::thread &t : pool)
      t.join();
  }
  for (size_t i = 0; i < n; ++i) {
    if (failures[i])
      std::rethrow_exception(failures[i]);
    sink.append(std::move(found[i]));
  }
}

} // namespace cake::verify
