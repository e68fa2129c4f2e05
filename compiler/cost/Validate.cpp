//===- Validate.cpp - The cost model against measurements -----------------===//
#include "compiler/cost/Validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace cake::cost {
namespace {

std::vector<double> ranks(const std::vector<double> &v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    double average = (double(i) + double(j)) / 2 + 1;
    for (size_t t = i; t <= j; ++t)
      r[order[t]] = average;
    i = j + 1;
  }
  return r;
}

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string shapeGroup(const Run &r) {
  std::string g = r.problem.empty() ? r.family : r.problem;
  for (auto &[name, v] : r.sizes)
    g += " " + name + "=" + std::to_string(v);
  return g;
}

std::string percent(double x) { return std::to_string(int(std::lround(x * 100))) + "%"; }

} // namespace

double spearman(const std::vector<double> &x, const std::vector<double> &y) {
  if (x.size() != y.size() || x.size() < 2)
    return 0;
  std::vector<double> rx = ranks(x), ry = ranks(y);
  double n = double(x.size());
  double mx = std::accumulate(rx.begin(), rx.end(), 0.0) / n, my = std::accumulate(ry.begin(), ry.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

Validation validate(const std::vector<Run> &runs, const Thresholds &t) {
  Validation v;
  std::vector<double> errors;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> byFamily;
  std::map<std::string, std::vector<size_t>> byShape;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run &r = runs[i];
    if (!r.ok || !r.predicted || r.measuredSeconds <= 0) {
      ++v.skipped;
      continue;
    }
    ++v.pairs;
    double error = std::fabs(*r.predicted / r.measuredSeconds - 1);
    errors.push_back(error);
    if (error > t.mispredict)
      v.targets.push_back(i);
    byFamily[r.family].first.push_back(*r.predicted);
    byFamily[r.family].second.push_back(r.measuredSeconds);
    byShape[shapeGroup(r)].push_back(i);
  }
  v.medianError = median(errors);
  for (auto &[family, xy] : byFamily) {
    v.points[family] = xy.first.size();
    if (xy.first.size() >= 3)
      v.spearman[family] = spearman(xy.first, xy.second);
  }
  double sum = 0;
  for (auto &[group, members] : byShape) {
    // the predicted-fastest variant; a near tie (1%) goes to the one holding
    // less shared memory: the model cannot tell such variants apart, and the
    // smaller footprint is the safer choice (added after seeing 3- and 4-stage
    // rings of the same tile measure up to 6% apart at ragged shapes)
    double fastest = *runs[*std::min_element(members.begin(), members.end(), [&](size_t a, size_t b) {
                        return *runs[a].predicted < *runs[b].predicted;
                      })].predicted;
    size_t chosen = members.front();
    bool have = false;
    for (size_t m : members)
      if (*runs[m].predicted <= fastest * 1.01 &&
          (!have || runs[m].sharedBytes < runs[chosen].sharedBytes ||
           (runs[m].sharedBytes == runs[chosen].sharedBytes && *runs[m].predicted < *runs[chosen].predicted)))
        chosen = m, have = true;
    auto best = *std::min_element(members.begin(), members.end(),
                                  [&](size_t a, size_t b) { return runs[a].measuredSeconds < runs[b].measuredSeconds; });
    ShapeRegret s{group, runs[chosen].kernel, runs[best].kernel, members.size(),
                  runs[chosen].measuredSeconds / runs[best].measuredSeconds - 1};
    v.maxRegret = std::max(v.maxRegret, s.regret);
    sum += s.regret;
    v.regrets.push_back(s);
  }
  v.meanRegret = v.regrets.empty() ? 0 : sum / double(v.regrets.size());
  if (v.pairs == 0)
    v.failures.push_back("no run has both a measurement and a prediction");
  if (v.medianError > t.medianError)
    v.failures.push_back("median error " + percent(v.medianError) + " > " + percent(t.medianError));
  for (auto &[family, rho] : v.spearman)
    if (rho < t.spearman)
      v.failures.push_back("Spearman of family '" + family + "' " + std::to_string(rho).substr(0, 5) + " < " +
                           std::to_string(t.spearman).substr(0, 4));
  if (v.maxRegret > t.maxRegret)
    v.failures.push_back("max regret " + percent(v.maxRegret) + " > " + percent(t.maxRegret));
  return v;
}

std::map<std::string, double, std::less<>> fitCorrections(const std::vector<Run> &runs) {
  std::map<std::string, std::pair<double, int>> logs;
  for (const Run &r : runs)
    if (r.ok && r.predicted && *r.predicted > 0 && r.measuredSeconds > 0) {
      auto &[sum, n] = logs[r.key];
      sum += std::log(r.measuredSeconds / *r.predicted);
      ++n;
    }
  std::map<std::string, double, std::less<>> out;
  for (auto &[key, sn] : logs)
    out[key] = std::exp(sn.first / sn.second);
  return out;
}

std::vector<std::string> fitMicro(const std::vector<MicroRun> &runs, Calibration &cal) {
  // Every timed launch includes the launch itself: rates come from the time
  // past the empty kernel's (micro.launch), and runs shorter than twice that
  // are too short to give a rate.
  std::vector<double> launches;
  for (const MicroRun &r : runs)
    if (r.seconds > 0 && r.family.substr(r.family.rfind('.') + 1) == "launch")
      launches.push_back(r.seconds);
  double launch = launches.empty() ? 0 : median(launches);
  std::map<std::string, std::vector<double>> rates, times;
  for (const MicroRun &r : runs) {
    if (r.seconds <= 0)
      continue;
    std::string kind = r.family.substr(r.family.rfind('.') + 1);
    double work = r.flops > 0 ? r.flops : r.bytes;
    if (work > 0 && r.seconds > 2 * launch)
      rates[kind].push_back(work / (r.seconds - launch));
    times[kind].push_back(r.count > 0 ? r.seconds / r.count : r.seconds);
  }
  std::vector<std::string> log;
  auto line = [&](const char *what, double value, const std::string &kind) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "%s = %.6g (micro.%s)", what, value, kind.c_str());
    log.push_back(buffer);
  };
  auto best = [&](const std::string &kind, double &field, double scale, const char *what) {
    auto it = rates.find(kind);
    if (it == rates.end())
      return;
    field = *std::max_element(it->second.begin(), it->second.end()) * scale;
    line(what, field, kind);
  };
  auto typical = [&](const std::string &kind, double &field, const char *what) {
    auto it = times.find(kind);
    if (it == times.end())
      return;
    field = median(it->second);
    line(what, field, kind);
  };
  double perSm = 1.0 / std::max(1, cal.smCount);
  best("tma_copy", cal.dramBytesPerSecond, 1, "dram_bytes_per_s");
  best("dram", cal.dramBytesPerSecond, 1, "dram_bytes_per_s");
  best("l2", cal.l2BytesPerSecond, 1, "l2_bytes_per_s");
  best("tma_sm", cal.tmaBytesPerSecondPerSm, 1, "tma_bytes_per_s_per_sm");
  best("wgmma", cal.wgmmaFlopsPerSecondPerSm, perSm, "wgmma_flops_per_s_per_sm");
  best("mma_sync", cal.mmaSyncFlopsPerSecondPerSm, perSm, "mma_sync_flops_per_s_per_sm");
  best("tcgen05", cal.tcgen05FlopsPerSecondPerSm, perSm, "tcgen05_flops_per_s_per_sm");
  typical("launch", cal.launchOverheadSeconds, "launch_overhead_s");
  typical("mbarrier", cal.mbarrierRoundTripSeconds, "mbarrier_round_trip_s");
  if (!log.empty())
    cal.calibrated = true;
  return log;
}

} // namespace cake::cost
