//===- Estimate.cpp - The pipeline, waves and memory model ----------------===//
//
// Per tile, each role's phases run in sequence and the resources within a
// phase overlap; roles run concurrently but share the SM's resources; each
// ring bounds the initiation interval by its latency over its stages. Tiles
// run in waves over SMs x occupancy; the L2 reuse of a wave's loads gives the
// DRAM bytes. The prediction is
//   launch + max(waves x tile time + fill, DRAM bytes / DRAM rate,
//                loaded bytes / L2 rate)
// times the family's correction. docs/cost-model.md has the derivation.
//
//===----------------------------------------------------------------------===//
#include "compiler/cost/Work.h"

#include <algorithm>
#include <cmath>

namespace cake::cost {
namespace {

constexpr int kResources = 7;
int idx(Bottleneck b) { return int(b); }

double mmaRate(const Calibration &c, MmaKind m) {
  switch (m) {
  case MmaKind::Sync:
    return c.mmaSyncFlopsPerSecondPerSm;
  case MmaKind::Wgmma:
    return c.wgmmaFlopsPerSecondPerSm;
  case MmaKind::Tcgen05:
    return c.tcgen05FlopsPerSecondPerSm;
  case MmaKind::None:
    break;
  }
  return 0;
}

/// Seconds per tile of \p w on its resource, one SM.
double opSeconds(const OpWork &w, const Calibration &c) {
  switch (w.resource) {
  case Bottleneck::L2:
  case Bottleneck::Dram:
    return w.bytes / c.tmaBytesPerSecondPerSm;
  case Bottleneck::Smem:
    return w.bytes / c.smemBytesPerSecondPerSm;
  case Bottleneck::Tensor: {
    double rate = mmaRate(c, w.mma);
    return rate > 0 ? w.flops / rate : 0;
  }
  default:
    // CUDA-core instructions: a warp's stream, one instruction per
    // issue_s_per_op; else a fixed cost per operation (rings, barriers)
    return w.instructions > 0 ? w.warpInstructions * c.issueSecondsPerOp : w.count * c.issueSecondsPerOp;
  }
}

/// Seconds of the SM's issue slots (4 schedulers, one instruction per cycle
/// each) that \p w's instructions take, over all the role's warps.
double slotSeconds(const OpWork &w, const Calibration &c) {
  return w.instructions > 0 && c.smClockHz > 0 ? w.instructions / (4 * c.smClockHz) : 0;
}

/// Seconds of a warp's own issue when \p w also occupies another resource
/// (ld.shared, ld.global): the instructions that issue its accesses.
double issueOfMemoryOp(const OpWork &w, const Calibration &c) {
  return w.resource != Bottleneck::Issue ? w.warpInstructions * c.issueSecondsPerOp : 0;
}

struct Busy {
  double t[kResources] = {};
  double max(Bottleneck *which = nullptr) const {
    int best = 0;
    for (int i = 1; i < kResources; ++i)
      if (t[i] > t[best])
        best = i;
    if (which)
      *which = Bottleneck(best);
    return t[best];
  }
};

/// Distinct tiles along the coordinates \p axes among \p wave concurrent ones.
double distinctTiles(const KernelWork &w, const std::set<std::string> &axes, double wave) {
  if (axes.empty())
    return 1;
  // the fastest coordinate and the slower one, with their extents
  std::string slowName, fastName;
  double slow = 1, fast = 1;
  if (w.scheduled && w.tileDims.size() >= 2) {
    slowName = w.tileDims[0].first, slow = double(w.tileDims[0].second);
    fastName = w.tileDims[1].first, fast = double(w.tileDims[1].second);
  } else if (w.scheduled && w.tileDims.size() == 1) {
    fastName = w.tileDims[0].first, fast = double(w.tileDims[0].second);
  } else {
    slowName = "cta.1", slow = double(w.grid[1]);
    fastName = "cta.0", fast = double(w.grid[0]);
  }
  double dSlow, dFast;
  if (w.group > 0 && wave <= double(w.group) * fast) { // within one group of `group` slow rows
    dSlow = std::min({slow, double(w.group), wave});
    dFast = std::min(fast, std::ceil(wave / double(w.group)));
  } else { // row-major over the fast coordinate (or several whole groups)
    dFast = std::min(fast, wave);
    dSlow = std::min(slow, std::ceil(wave / fast));
  }
  bool hasSlow = axes.count(slowName), hasFast = axes.count(fastName);
  if (axes.size() > size_t(hasSlow) + size_t(hasFast) || (hasSlow && hasFast))
    return wave;
  return hasSlow ? dSlow : dFast;
}

} // namespace

Estimate estimate(const sema::Kernel &k, const Sizes &sizes, const Calibration &cal, std::string_view family) {
  Estimate e;
  e.family = familyKey(family.empty() ? kernelFamily(k.decl->name.name) : family, k.target);
  std::string families;
  for (auto &[key, v] : cal.familyCorrection)
    families += (families.empty() ? "" : ", ") + key;
  e.domain = cal.device + " (" + std::string(targetName(k.target)) + "), " +
             (cal.calibrated ? "calibrated families: " + (families.empty() ? std::string("none") : families)
                             : std::string("datasheet figures, uncalibrated"));
  if (!describes(cal, k.target))
    e.reasons.push_back("the calibration describes " + cal.device + ", not the " +
                        std::string(k.desc->example) + " of " + std::string(targetName(k.target)));
  if (!cal.calibrated)
    e.reasons.push_back("datasheet figures, not measured (run cake calibrate)");
  auto corr = cal.familyCorrection.find(e.family);
  if (corr != cal.familyCorrection.end())
    e.correction = corr->second;
  else if (cal.calibrated)
    e.reasons.push_back("family '" + e.family + "' has no calibrated correction");

  KernelWork w = collectWork(k, sizes);
  // the size-independent facts first, so that an out-of-domain answer still says them
  for (const sema::Param &p : k.params)
    if (p.type.space == sema::Space::Global)
      e.uniqueBytes += paramBytes(k, p, sizes).value_or(0);
  if (!w.problems.empty()) {
    e.reasons.insert(e.reasons.end(), w.problems.begin(), w.problems.end());
    e.inDomain = false;
    return e;
  }

  const double sms = double(std::max(1, cal.smCount)), occ = double(k.residentCtas());
  const double slots = sms * occ;
  e.tiles = w.tiles;
  e.ctas = int64_t(w.scheduled ? std::max(1.0, std::min(slots, w.tiles)) : w.tiles);
  const double wave = std::min(slots, w.tiles);

  // per role: phases in sequence; across roles: shared resources add up
  Busy shared;
  double roleMax = 0, storeBytes = 0, dramLoads = 0, tensorRate = 0;
  Busy critical; // the slowest role's time per tile, attributed to each phase's bound
  for (const RoleWork &rw : w.roles) {
    RoleCost rc;
    rc.name = rw.role->name;
    rc.range = rw.role->decl->name.range;
    std::map<int, Busy> phases;
    for (const OpWork &o : rw.ops) {
      double s = opSeconds(o, cal);
      phases[o.phase].t[idx(o.resource)] += s;
      phases[o.phase].t[idx(Bottleneck::Issue)] += issueOfMemoryOp(o, cal);
      // the SM's issue slots are shared by every warp of every role; a ring
      // operation's fixed cost adds up as before
      shared.t[idx(o.resource)] += o.instructions > 0 && o.resource == Bottleneck::Issue ? 0 : s;
      shared.t[idx(Bottleneck::Issue)] += slotSeconds(o, cal);
      e.ops.push_back({o.call->range, o.op, rc.name, o.resource, o.count, o.bytes, o.flops, s});
      e.flops += o.flops * w.tiles;
      if (o.mma != MmaKind::None)
        tensorRate = std::max(tensorRate, mmaRate(cal, o.mma) * sms);
      if (o.load) {
        e.loadedBytes += o.bytes * w.tiles;
        dramLoads += o.bytes * distinctTiles(w, o.axes, wave) * (w.tiles / wave);
      }
      if (o.store)
        storeBytes += o.bytes * w.tiles;
    }
    Busy attributed;
    for (auto &[id, busy] : phases) {
      Bottleneck b;
      double t = busy.max(&b);
      rc.secondsPerTile += t;
      attributed.t[idx(b)] += t;
    }
    attributed.max(&rc.bound);
    for (auto &[ring, trips] : rw.produced)
      rc.stagesPerTile = std::max(rc.stagesPerTile, trips);
    for (auto &[ring, trips] : rw.consumed)
      rc.stagesPerTile = std::max(rc.stagesPerTile, trips);
    rc.stageSeconds = rc.stagesPerTile > 0 ? rc.secondsPerTile / rc.stagesPerTile : rc.secondsPerTile;
    if (rc.secondsPerTile > roleMax)
      roleMax = rc.secondsPerTile, critical = attributed;
    e.roles.push_back(rc);
  }

  // each ring: a slot's round trip (load latency, both sides' stage times,
  // the barrier hand-offs) is hidden only across its stages
  double latencyBound = 0, fill = cal.memoryLatencySeconds;
  for (const sema::Ring &r : k.rings) {
    const RoleCost *prod = nullptr, *cons = nullptr;
    const RoleWork *prodWork = nullptr;
    for (size_t i = 0; i < w.roles.size(); ++i) {
      if (w.roles[i].role->name == r.producer)
        prod = &e.roles[i], prodWork = &w.roles[i];
      if (w.roles[i].role->name == r.consumer)
        cons = &e.roles[i];
    }
    if (!prod || !cons || !prodWork || !r.stages || *r.stages < 1)
      continue;
    double trips = prodWork->produced.count(r.name) ? prodWork->produced.at(r.name) : 0;
    if (trips <= 0)
      continue;
    bool loads = std::any_of(prodWork->ops.begin(), prodWork->ops.end(), [](const OpWork &o) { return o.load; });
    double lat = (loads ? cal.memoryLatencySeconds : 0) + 2 * cal.mbarrierRoundTripSeconds;
    double cycle = lat + prod->stageSeconds + (cons == prod ? 0 : cons->stageSeconds);
    latencyBound = std::max(latencyBound, trips * cycle / double(*r.stages));
    if (loads)
      fill = std::max(fill, lat + prod->stageSeconds);
  }

  // the pipeline: tiles of a CTA one after the other, each bound by the
  // resources (occ co-resident tiles share an SM) or by a ring's latency
  Bottleneck sharedBound;
  double sharedMax = shared.max(&sharedBound);
  double resource = std::max(roleMax, sharedMax);
  double tile = std::max(resource * occ, latencyBound);
  e.secondsPerTile = tile / occ;
  e.fillSeconds = fill;
  e.waves = w.tiles / slots;
  double fullWaves = std::ceil(e.waves);
  e.tailEfficiency = fullWaves > 0 ? e.waves / fullWaves : 1;
  double rounds = w.scheduled ? std::ceil(w.tiles / double(e.ctas)) : fullWaves; // tiles in sequence per slot
  double pipeline = w.scheduled ? fill + rounds * tile / occ : rounds * (tile + fill);
  // what the pipeline's time is spent on: the fill and exposed ring latency,
  // else the busiest resource
  Busy spent;
  if (sharedMax > roleMax)
    spent.t[idx(sharedBound)] = sharedMax;
  else
    spent = critical;
  for (double &t : spent.t)
    t *= rounds;
  spent.t[idx(Bottleneck::Latency)] =
      (w.scheduled ? fill : rounds * fill) + rounds * std::max(0.0, latencyBound - resource * occ);
  Bottleneck pipeBound;
  spent.max(&pipeBound);

  // DRAM: every input at least once, re-reads beyond what a wave shares in L2
  double inputs = 0;
  for (const sema::Param &p : k.params)
    if (p.type.space == sema::Space::Global)
      inputs += paramBytes(k, p, sizes).value_or(0);
  inputs = std::max(0.0, inputs - storeBytes);
  double loads = e.loadedBytes <= cal.l2Bytes / 2 ? std::min(e.loadedBytes, inputs)
                                                   : std::clamp(dramLoads, std::min(inputs, e.loadedBytes), e.loadedBytes);
  e.dramBytes = loads + storeBytes;
  double dram = e.dramBytes / cal.dramBytesPerSecond, l2 = e.loadedBytes / cal.l2BytesPerSecond;

  double body = std::max({pipeline, dram, l2});
  e.bottleneck = body == pipeline ? pipeBound : body == dram ? Bottleneck::Dram : Bottleneck::L2;
  if (cal.launchOverheadSeconds > body)
    e.bottleneck = Bottleneck::Launch;
  double seconds = (cal.launchOverheadSeconds + body) * e.correction;
  e.seconds = seconds;
  e.floorSeconds = std::max(tensorRate > 0 ? e.flops / tensorRate : 0.0, e.uniqueBytes / cal.dramBytesPerSecond);
  e.fractionOfFloor = seconds > 0 ? e.floorSeconds / seconds : 0;
  e.inDomain = e.reasons.empty();
  return e;
}

} // namespace cake::cost
