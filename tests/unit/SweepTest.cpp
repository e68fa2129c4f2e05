//===- SweepTest.cpp - Items of a sweep handed out to several GPUs --------===//
//
// cli/Sweep.h with a run function instead of `cake run` children: every item
// runs once and comes back at its place; a GPU that hangs loses only the item
// in flight, which another GPU runs; a GPU with two faults in a row gets no more
// items; an item that faults everywhere fails with its attempts named.
//
//===----------------------------------------------------------------------===//
#include "cli/Sweep.h"
#include "formats/TuneDb.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

using namespace cake::cli;
using json = nlohmann::ordered_json;

namespace {

SweepAttempt ok(size_t item) { return {json{{"ok", true}, {"item", item}}, false}; }
SweepAttempt hung() { return {json{{"ok", false}, {"error", "timed out"}}, true}; }

} // namespace

TEST(Sweep, EveryItemOnceInItsPlace) {
  std::mutex m;
  std::map<size_t, int> runs;
  std::vector<size_t> finished;
  SweepOutcome out = runSweep(
      40, {"0", "1", "2"}, 1,
      [&](size_t i, const std::string &) {
        std::this_thread::sleep_for(std::chrono::microseconds(50 * (i % 7)));
        std::lock_guard lock(m);
        ++runs[i];
        return ok(i);
      },
      [&](size_t i, const json &) { finished.push_back(i); });
  ASSERT_EQ(out.results.size(), 40u);
  for (size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(runs[i], 1) << i;
    EXPECT_EQ(out.results[i]["item"].get<size_t>(), i); // in the items' order, whatever order they ended in
    EXPECT_FALSE(out.results[i].contains("attempts"));
  }
  EXPECT_EQ(finished.size(), 40u);
  int total = 0;
  for (const json &g : out.gpus) {
    total += g["items"].get<int>();
    EXPECT_FALSE(g.contains("retired"));
  }
  EXPECT_EQ(total, 40);
}

TEST(Sweep, AHungGpuLosesOnlyItsItemInFlight) {
  // GPU "1" hangs on everything: each item it takes is run again on "0"; after two faults it takes no more
  SweepOutcome out = runSweep(12, {"0", "1"}, 1, [](size_t i, const std::string &gpu) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return gpu == "1" ? hung() : ok(i);
  });
  for (size_t i = 0; i < 12; ++i) {
    ASSERT_TRUE(out.results[i]["ok"].get<bool>()) << out.results[i].dump();
    EXPECT_EQ(out.results[i]["gpu"], "0");
    if (out.results[i].contains("attempts")) {
      ASSERT_EQ(out.results[i]["attempts"].size(), 1u);
      EXPECT_EQ(out.results[i]["attempts"][0]["gpu"], "1");
      EXPECT_EQ(out.results[i]["attempts"][0]["error"], "timed out");
    }
  }
  ASSERT_EQ(out.gpus.size(), 2u);
  EXPECT_EQ(out.gpus[1]["faults"].get<int>(), 2);
  EXPECT_EQ(out.gpus[1]["items"].get<int>(), 2);
  EXPECT_TRUE(out.gpus[1].contains("retired"));
  EXPECT_EQ(out.gpus[0]["items"].get<int>(), 12);
}

TEST(Sweep, AnItemThatHangsEverywhereFailsWithItsAttempts) {
  std::atomic<int> calls{0};
  SweepOutcome out = runSweep(3, {"a", "b", "c"}, 5, [&](size_t i, const std::string &) {
    ++calls;
    return i == 1 ? hung() : ok(i);
  });
  EXPECT_TRUE(out.results[0]["ok"].get<bool>());
  EXPECT_TRUE(out.results[2]["ok"].get<bool>());
  const json &bad = out.results[1];
  EXPECT_FALSE(bad["ok"].get<bool>());
  // tried once on each GPU (never twice on one), the last fault its result, the others its attempts
  ASSERT_TRUE(bad.contains("attempts"));
  EXPECT_EQ(bad["attempts"].size(), 2u);
  EXPECT_EQ(calls.load(), 5);
}

TEST(Sweep, NoRetriesAndOneGpu) {
  // --retries 0: a fault is the item's result; one GPU (the environment's, "") as a sweep without --gpus
  SweepOutcome out = runSweep(4, {""}, 0, [](size_t i, const std::string &) { return i == 2 ? hung() : ok(i); });
  EXPECT_FALSE(out.results[2]["ok"].get<bool>());
  EXPECT_FALSE(out.results[2].contains("attempts"));
  EXPECT_TRUE(out.results[3]["ok"].get<bool>());
  EXPECT_EQ(out.results[3]["gpu"], "");
}

TEST(Sweep, AllGpusRetiredFailTheRest) {
  SweepOutcome out = runSweep(6, {"0", "1"}, 1, [](size_t, const std::string &) { return hung(); });
  for (const json &r : out.results)
    EXPECT_FALSE(r["ok"].get<bool>()) << r.dump();
  EXPECT_TRUE(out.gpus[0].contains("retired"));
  EXPECT_TRUE(out.gpus[1].contains("retired"));
}

// The tuning database under concurrent writers (cake tune --gpus, a cluster's shards on one folder): each append
// opens the file for itself (as another process would), locks it and writes its line whole (lines of 20 KB and
// more: larger than a stream's buffer, which wrote them in pieces that other writers could split); every line parses.
TEST(Sweep, TuningDatabaseAppendsNeverInterleave) {
  const std::string path = testing::TempDir() + "/cake-tune-concurrent.jsonl";
  std::remove(path.c_str());
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 200; ++i) {
        json row = {{"key", {{"writer", w}, {"i", i}}}, {"pad", std::string(20000 + 997 * w, 'x')}};
        ASSERT_TRUE(cake::formats::appendTuneRow(path, row));
      }
    });
  for (std::thread &t : writers)
    t.join();
  std::vector<json> rows = cake::formats::readTuneDb(path);
  ASSERT_EQ(rows.size(), 800u);
  std::map<int, int> perWriter;
  for (const json &r : rows)
    ++perWriter[r["key"]["writer"].get<int>()];
  for (int w = 0; w < 4; ++w)
    EXPECT_EQ(perWriter[w], 200);
  std::remove(path.c_str());
}
