//===- BenchPeersTest.cpp - cake bench --peers ----------------------------===//
#include "cli/BenchPeers.h"

#include <gtest/gtest.h>

using json = nlohmann::ordered_json;
using cake::cli::joinPeers;

namespace {

json results() {
  return json::parse(R"({"runs": [
    {"file": "a.cake", "sizes": {"B": 1, "N": 4096, "K": 1024, "KP": 1024}, "constants": {"D": 64},
     "median_ms": 0.01, "pipeline_ms": 0.02, "ok": true},
    {"file": "b.cake", "sizes": {"B": 1, "N": 4096, "K": 1024, "KP": 1024}, "constants": {"D": 128},
     "median_ms": 0.04, "ok": true},
    {"file": "c.cake", "sizes": {"B": 2, "N": 8, "K": 8, "KP": 256}, "median_ms": 1.0, "ok": true},
    {"file": "d.cake", "sizes": {"B": 1, "N": 4096, "K": 1024, "KP": 1024}, "constants": {"D": 64}, "ok": false}
  ]})");
}

json peers() {
  return json::parse(R"({"rows": [
    {"B": 1, "N": 4096, "K": 1024, "D": 128, "flashlib_ms": 0.05, "flash_kmeans_ms": 0.06},
    {"B": 1, "N": 4096, "K": 1024, "D": 64, "flashlib_ms": 0.03, "flash_kmeans_error": "boom"}
  ]})");
}

} // namespace

TEST(BenchPeers, JoinsOnSharedSizesAndConstants) {
  json r = results();
  ASSERT_EQ(joinPeers(r, peers()), "");
  // D = 64: the pipeline's time against the one peer that ran
  EXPECT_EQ(r["runs"][0]["peers"], json::parse(R"({"flashlib": 0.03})"));
  EXPECT_DOUBLE_EQ(r["runs"][0]["best_peer_ms"].get<double>(), 0.03);
  EXPECT_DOUBLE_EQ(r["runs"][0]["speedup_vs_best_peer"].get<double>(), 1.5);
  // D = 128: the faster of two peers, against the kernel's time
  EXPECT_DOUBLE_EQ(r["runs"][1]["speedup_vs_best_peer"].get<double>(), 1.25);
  // no row at that shape; a failed run is not compared
  EXPECT_FALSE(r["runs"][2].contains("peers"));
  EXPECT_FALSE(r["runs"][3].contains("peers"));
  EXPECT_EQ(r["peer_summary"]["compared"], 2);
  EXPECT_NEAR(r["peer_summary"]["geomean"].get<double>(), std::sqrt(1.5 * 1.25), 1e-12);
  EXPECT_DOUBLE_EQ(r["peer_summary"]["min"].get<double>(), 1.25);
  EXPECT_EQ(r["peer_summary"]["below_0_9"], 0);
}

TEST(BenchPeers, SlowerThanAPeerIsCounted) {
  json r = results();
  json p = peers();
  p["rows"][0]["flashlib_ms"] = 0.02; // 0.5x for b.cake
  joinPeers(r, p);
  EXPECT_EQ(r["peer_summary"]["below_0_9"], 1);
  EXPECT_DOUBLE_EQ(r["peer_summary"]["min"].get<double>(), 0.5);
}

TEST(BenchPeers, RefusesAFileWithoutRows) {
  json r = results();
  EXPECT_NE(joinPeers(r, json::parse(R"({"shapes": []})")).find("a \"rows\" array"), std::string::npos);
  EXPECT_NE(joinPeers(r, json::parse("[1, 2]")).find("JSON object"), std::string::npos);
  json none = results();
  ASSERT_EQ(joinPeers(none, json::parse(R"({"rows": []})")), "");
  EXPECT_EQ(none["peer_summary"], json::parse(R"({"compared": 0})"));
}
