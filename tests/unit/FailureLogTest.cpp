//===- FailureLogTest.cpp - The failure log (issue #21) -------------------===//
//
// formats/FailureLog.h: events round-trip through the JSON-lines file, lines
// that are not events are skipped and counted, a failure is fixed when the
// next event of its file on another IR passed, and the log of a file is the
// nearest project's (.git or .cake), unless CAKE_LOG says otherwise; runs
// carry their kernel, sizes and time, and a watchdog child's events move in.
//
//===----------------------------------------------------------------------===//
#include "formats/FailureLog.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace cake;
using namespace cake::formats;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/cake-log-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

LogEvent event(std::string file, std::string text, std::vector<std::string> errors) {
  LogEvent e;
  e.time = "2026-12-03T23:00:00Z";
  e.command = "check";
  e.stage = "static";
  e.file = std::move(file);
  e.irHash = hashText(text);
  e.ok = errors.empty();
  e.errors = std::move(errors);
  return e;
}

TEST(FailureLog, EventsRoundTripAndBadLinesAreSkipped) {
  TempDir d;
  std::string log = (d.path / "sub" / "log.jsonl").string(); // the folder is created
  LogEvent a = event("a.cake", "x", {"name.unknown", "ring.linear"});
  a.warnings = {"perf.stages"};
  ASSERT_TRUE(bool(appendEvent(log, a)));
  { std::ofstream(log, std::ios::app) << "not json\n{\"file\": 3}\n"; }
  ASSERT_TRUE(bool(appendEvent(log, event("b.cake", "y", {}))));
  size_t skipped = 0;
  auto events = readLog(log, &skipped);
  ASSERT_TRUE(bool(events));
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ(skipped, 2u);
  const LogEvent &r = (*events)[0];
  EXPECT_EQ(r.file, "a.cake");
  EXPECT_EQ(r.errors, (std::vector<std::string>{"name.unknown", "ring.linear"}));
  EXPECT_EQ(r.warnings, std::vector<std::string>{"perf.stages"});
  EXPECT_EQ(r.irHash, hashText("x"));
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE((*events)[1].ok);
  // a missing log is an empty one
  auto none = readLog((d.path / "none.jsonl").string());
  ASSERT_TRUE(bool(none));
  EXPECT_TRUE(none->empty());
}

// A run's event carries its kernel, instantiation, sizes and time; a child's
// events written beside the log are moved into it (and the file removed).
TEST(FailureLog, RunEventsRoundTripAndAreForwardedFromAChild) {
  TempDir d;
  std::string log = (d.path / "log.jsonl").string(), child = log + ".run-1";
  LogEvent e = event("k.cake", "kernel k", {});
  e.command = "run";
  e.stage = "run";
  e.kernel = "knn_merge";
  e.instance = "search_fp16_d64_k8";
  e.sizes = {{"Q", 100}, {"N", 1000}};
  e.ms = 0.25;
  ASSERT_TRUE(appendEvent(child, e));
  EXPECT_FALSE(fs::exists(log));
  EXPECT_TRUE(forwardEvents(child, log));
  EXPECT_FALSE(fs::exists(child));
  auto back = readLog(log);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  const LogEvent &r = back->front();
  EXPECT_EQ(r.command, "run");
  EXPECT_EQ(r.kernel, "knn_merge");
  EXPECT_EQ(r.instance, "search_fp16_d64_k8");
  EXPECT_EQ(r.sizes, (std::map<std::string, int64_t>{{"N", 1000}, {"Q", 100}}));
  ASSERT_TRUE(r.ms);
  EXPECT_DOUBLE_EQ(*r.ms, 0.25);
  // a child that wrote nothing (ended by the watchdog): nothing to forward, and the caller logs that
  EXPECT_FALSE(forwardEvents(child, log));
  // a check's event has none of the run's fields
  ASSERT_TRUE(appendEvent(log, event("k.cake", "kernel k", {})));
  auto both = readLog(log);
  ASSERT_TRUE(both);
  EXPECT_TRUE(both->back().kernel.empty());
  EXPECT_FALSE(both->back().ms);
}

TEST(FailureLog, AFailureIsFixedWhenTheNextChangeOfItsFilePassed) {
  std::vector<LogEvent> e = {
      event("a.cake", "v1", {"ring.linear"}), // fixed by v3 (v1 again in between is no change)
      event("b.cake", "w1", {"smem.bounds"}), // the next change of b fails again: not fixed
      event("a.cake", "v1", {"ring.linear"}),
      event("b.cake", "w2", {"smem.bounds"}), // never changed after: not fixed
      event("a.cake", "v3", {}),
  };
  EXPECT_EQ(fixedByNext(e), (std::vector<bool>{false, false, true, false, false}));
  // the failure of a (the one before the change) is what the change fixed
  EXPECT_EQ(hashText("abc"), hashText("abc"));
  EXPECT_NE(hashText("abc"), hashText("abd"));
  EXPECT_EQ(hashText("").size(), 16u);
}

TEST(FailureLog, AFailingIrIsKeptOnceBesideTheLog) {
  TempDir d;
  std::string log = (d.path / ".cake" / "log.jsonl").string();
  std::string hash = hashText("kernel k()");
  EXPECT_EQ(irPathFor(log, hash), (d.path / ".cake" / "ir" / (hash + ".cake")).string());
  ASSERT_TRUE(bool(keepIr(log, hash, "kernel k()")));
  ASSERT_TRUE(bool(keepIr(log, hash, "not written again"))); // the same hash: already kept
  std::ifstream in(irPathFor(log, hash));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "kernel k()");
  EXPECT_FALSE(fs::exists(irPathFor(log, hash) + ".tmp"));
}

TEST(FailureLog, TheLogIsTheNearestProjectsUnlessCakeLogSaysOtherwise) {
  TempDir d;
  fs::create_directories(d.path / "repo" / ".git");
  fs::create_directories(d.path / "repo" / "kernels" / "knn");
  std::string file = (d.path / "repo" / "kernels" / "knn" / "k.cake").string();
  unsetenv("CAKE_LOG");
  EXPECT_EQ(logPathFor(file), (d.path / "repo" / ".cake" / "log.jsonl").string());
  setenv("CAKE_LOG", "0", 1);
  EXPECT_EQ(logPathFor(file), "");
  setenv("CAKE_LOG", "/tmp/elsewhere.jsonl", 1);
  EXPECT_EQ(logPathFor(file), "/tmp/elsewhere.jsonl");
  unsetenv("CAKE_LOG");
  // the nearest project wins: a .cake folder inside the repository makes its own
  fs::create_directories(d.path / "repo" / "kernels" / ".cake");
  EXPECT_EQ(logPathFor(file), (d.path / "repo" / "kernels" / ".cake" / "log.jsonl").string());
}

// What cake evolve groups: an event's errors and its tool-chain findings (ptxas.*), not the generic
// cuda.warning nor a rule's warning.
TEST(FailureLog, EvolveGroupsErrorsAndToolChainFindings) {
  LogEvent e;
  e.errors = {"cuda.error"};
  e.warnings = {"cuda.warning", "perf.stages", "ptxas.spill", "ptxas.wgmma-serialized"};
  EXPECT_EQ(findingsOf(e), (std::vector<std::string>{"cuda.error", "ptxas.spill", "ptxas.wgmma-serialized"}));
  EXPECT_TRUE(isToolFinding("ptxas.setmaxnreg"));
  EXPECT_FALSE(isToolFinding("cuda.warning"));
}

} // namespace
