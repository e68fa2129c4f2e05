//===- GpuHarness.h - The GPU test programs' small harness -----*- C++ -*-===//
//
// Part of CAKE. The GPU tests are plain programs rather than GoogleTest ones,
// so that they build on a GPU machine with a C++ compiler and the CUDA
// toolkit alone: named tests, EXPECT / REQUIRE_OK, a failure count, and a
// runner that takes one test's name from the command line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdio>
#include <iostream>
#include <span>
#include <string>

namespace cake::gputest {

inline int failures = 0;
inline std::string currentTest;

struct Test {
  const char *name;
  void (*run)();
};

/// Runs \p tests (only the one named by argv[1] when given, and none that
/// \p skip refuses), printing each verdict; returns the exit status: 1 when
/// a test failed or none ran.
inline int runTests(std::span<const Test> tests, int argc, char **argv, bool (*skip)(const Test &) = nullptr) {
  int ran = 0;
  for (const Test &t : tests) {
    if ((argc > 1 && std::string(argv[1]) != t.name) || (skip && skip(t)))
      continue;
    currentTest = t.name;
    int before = failures;
    std::printf("[ RUN  ] %s\n", t.name);
    std::fflush(stdout);
    t.run();
    std::printf("[ %s ] %s\n", failures == before ? " OK " : "FAIL", t.name);
    std::fflush(stdout);
    ++ran;
  }
  std::printf("%d tests, %d failures\n", ran, failures);
  std::fflush(stdout);
  return failures ? 1 : ran ? 0 : 1;
}

} // namespace cake::gputest

#define EXPECT(cond)                                                                                                   \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      ++::cake::gputest::failures;                                                                                     \
      std::cerr << __FILE__ << ":" << __LINE__ << ": " << ::cake::gputest::currentTest << ": failed: " #cond "\n";     \
    }                                                                                                                  \
  } while (0)

/// Fails the test (and returns from it) when an Expected or Status holds an error.
#define REQUIRE_OK(expr)                                                                                               \
  do {                                                                                                                 \
    auto &&r_ = (expr);                                                                                                \
    if (!r_) {                                                                                                         \
      ++::cake::gputest::failures;                                                                                     \
      std::cerr << __FILE__ << ":" << __LINE__ << ": " << ::cake::gputest::currentTest << ": " #expr ": "              \
                << r_.error().message << "\n";                                                                         \
      return;                                                                                                          \
    }                                                                                                                  \
  } while (0)
