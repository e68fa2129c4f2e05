//===- BenchPeers.cpp - Peers' times joined to `cake bench` results -------===//
#include "cli/BenchPeers.h"

#include <algorithm>
#include <cmath>

namespace cake::cli {

namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kSuffix = "_ms";

/// Whether \p row names the same value for every size \p sizes and it share.
bool sameShape(const json &sizes, const json &row) {
  bool any = false;
  for (auto &[name, value] : sizes.items())
    if (row.contains(name)) {
      if (!row[name].is_number_integer() || row[name] != value)
        return false;
      any = true;
    }
  return any;
}

/// The peers' times of \p row: every "<name>_ms" number.
json peerTimes(const json &row) {
  json out = json::object();
  for (auto &[key, value] : row.items())
    if (key.size() > kSuffix.size() && key.ends_with(kSuffix) && value.is_number() && value.get<double>() > 0)
      out[key.substr(0, key.size() - kSuffix.size())] = value;
  return out;
}

} // namespace

std::string checkPeers(const json &peers) {
  if (!peers.is_object() || !peers.contains("rows") || !peers["rows"].is_array())
    return "the peers file must be a JSON object with a \"rows\" array (bench/kmeans/peers_assign.py writes one)";
  return "";
}

std::string joinPeers(json &results, const json &peers) {
  if (std::string error = checkPeers(peers); !error.empty())
    return error;
  double logSum = 0, worst = INFINITY;
  int compared = 0, below = 0;
  for (json &run : results["runs"]) {
    if (!run.value("ok", false))
      continue;
    json sizes = run.value("sizes", json::object());
    const json constants = run.value("constants", json::object()); // named: items() must not outlive it
    for (auto &[name, value] : constants.items())
      sizes[name] = value;
    const double ours = run.contains("pipeline_ms") ? run["pipeline_ms"].get<double>() : run.value("median_ms", 0.0);
    for (const json &row : peers["rows"]) {
      if (!row.is_object() || !sameShape(sizes, row))
        continue;
      json times = peerTimes(row);
      if (times.empty() || ours <= 0)
        break;
      double best = INFINITY;
      for (auto &[name, t] : times.items())
        best = std::min(best, t.get<double>());
      run["peers"] = times;
      run["best_peer_ms"] = best;
      run["speedup_vs_best_peer"] = best / ours;
      logSum += std::log(best / ours);
      worst = std::min(worst, best / ours);
      below += best / ours < 0.9;
      ++compared;
      break;
    }
  }
  results["peer_summary"] = {{"compared", compared}};
  if (compared)
    results["peer_summary"].update(
        json{{"geomean", std::exp(logSum / compared)}, {"min", worst}, {"below_0_9", below}});
  return "";
}

} // namespace cake::cli
