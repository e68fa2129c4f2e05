//===- BenchPeers.h - Peers' times joined to `cake bench` results -*- C++ -*-===//
//
// Part of CAKE. `cake bench --peers PEERS.json` puts each run beside the
// peers measured at its shape: the peers' times, the faster one, the speedup
// over it, and a summary (geometric mean, minimum, runs below 0.9x).
//
// PEERS.json: {"rows": [{"B": 32, "N": 65536, "K": 1024, "D": 128,
//                        "flashlib_ms": 1.46, "flash_kmeans_ms": 1.58}, ...]}
// (what bench/kmeans/peers_assign.py writes): a row matches a run when every
// size they both name is equal; a plan entry's "constants" (e.g. {"D": 128},
// the file's compile-time sizes) count as the run's sizes for matching.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace cake::cli {

/// An error sentence for a peers file of the wrong shape, else "".
std::string checkPeers(const nlohmann::ordered_json &peers);

/// Adds "peers", "best_peer_ms" and "speedup_vs_best_peer" to every run of
/// \p results that a row of \p peers matches (the run's time: its pipeline's,
/// else its kernel's), and "peer_summary" to \p results. Returns checkPeers'
/// sentence, changing nothing, for a peers file of the wrong shape.
std::string joinPeers(nlohmann::ordered_json &results, const nlohmann::ordered_json &peers);

} // namespace cake::cli
