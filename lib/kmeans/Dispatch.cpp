//===- Dispatch.cpp - The variants and the rules, from the manifest -------===//
//
// Part of CAKE. The variants are the instantiations of
// kernels/kmeans/kmeans.manifest.json and the rules its "rules", tried in
// order by library::dispatch (compiler/library/Manifest.h), the same code
// `cake dispatch explain` runs. To add a variant: an instantiation (a source
// and its parameters) in the manifest, and a rule that sends problems to it;
// put narrow, measured regions (a predicate fitted on a sweep) before the
// catch-all rule of each (op, dtype, D). The library checks every call's
// tensors against the variant's IR (element type and shape at the bound
// sizes), so a rule that sends a problem to a variant that cannot take it
// fails with a message instead of computing garbage.
//
//===----------------------------------------------------------------------===//
#include "lib/kmeans/Dispatch.h"

#include "compiler/target/Target.h"
#include "lib/kmeans/Embedded.h"

#include <atomic>

namespace cake::kmeans {

namespace {

/// The variants, built once from the embedded manifest (which they point into).
const std::vector<Variant> &variantTable() {
  static const std::vector<Variant> *table = [] {
    auto *out = new std::vector<Variant>; // never destroyed, like the manifest
    const library::Manifest &m = embeddedManifest();
    for (const library::Instance &i : m.instances) {
      const library::Entry *e = m.entry(i.entry);
      if (!e)
        continue; // library::validate ran when `cake build` read the manifest
      Variant v;
      v.name = i.name;
      v.op = e->op == "update" ? Op::Update : Op::Assign;
      v.file = i.name;
      v.kernels.assign(e->kernels.begin(), e->kernels.end());
      v.distanceKernel = e->distance;
      v.scratch.assign(e->scratch.begin(), e->scratch.end());
      v.zeroKernel = e->zero;
      v.kPad = library::kPadOf(m, i).value_or(1);
      v.target = i.target;
      v.computeCapability = library::targetComputeCapability(i.target);
      v.covers = i.covers;
      out->push_back(std::move(v));
    }
    return out;
  }();
  return *table;
}

std::string describe(const Problem &p) {
  std::string s = std::string(opName(p.op)) + " kernel for " + std::string(dtypeName(p.dtype)) +
                  " with D = " + std::to_string(p.D) + " (B = " + std::to_string(p.B) + ", N = " + std::to_string(p.N) +
                  ", K = " + std::to_string(p.K) + ")";
  if (p.computeCapability)
    s += " on a GPU of compute capability " + std::to_string(p.computeCapability / 10) + "." +
         std::to_string(p.computeCapability % 10);
  return s;
}

bool predicate(std::string_view name, const Problem &p) {
  const library::Predicate *pred = embeddedManifest().predicate(name);
  return pred && library::evaluate(pred->expr, manifestProblem(p)).value_or(0) != 0;
}

} // namespace

library::Problem manifestProblem(const Problem &p) {
  // before the GPU is known: the H200 the rules were fitted on
  const int64_t sms = p.smCount > 0 ? p.smCount : int64_t(targetDesc(Target::SM90a).smCount);
  library::Problem out;
  out.values = {{"op", std::string(opName(p.op))}, {"dtype", std::string(dtypeName(p.dtype))},
                {"B", std::to_string(p.B)},        {"N", std::to_string(p.N)},
                {"K", std::to_string(p.K)},        {"D", std::to_string(p.D)},
                {"SMS", std::to_string(sms)},      {"cc", std::to_string(p.computeCapability)}};
  return out;
}

bool threeWarpgroupsPay(const Problem &p) { return predicate("threeWarpgroupsPay", p); }
bool splitPays(const Problem &p) { return predicate("splitPays", p); }

std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "fp16";
  case DType::F32:
    return "fp32";
  }
  return "?";
}

size_t dtypeBytes(DType t) { return t == DType::F32 ? 4 : 2; }

std::string_view opName(Op op) { return op == Op::Assign ? "assign" : "update"; }

std::span<const Variant> variants() { return variantTable(); }

const Variant *findVariant(std::string_view name) {
  for (const Variant &v : variantTable())
    if (v.name == name)
      return &v;
  return nullptr;
}

namespace {
std::atomic<const Variant *> forcedAssign{nullptr}, forcedUpdate{nullptr};
} // namespace

Status forceVariant(std::string_view name) {
  if (name.empty()) {
    forcedAssign = nullptr, forcedUpdate = nullptr;
    return Ok{};
  }
  const Variant *v = findVariant(name);
  if (!v) {
    std::string known;
    for (const Variant &k : variantTable())
      known += (known.empty() ? "" : ", ") + std::string(k.name);
    return invalid("there is no variant '" + std::string(name) + "'; the library's variants are " + known);
  }
  (v->op == Op::Assign ? forcedAssign : forcedUpdate) = v;
  return Ok{};
}

const Variant *forcedVariant(Op op) { return op == Op::Assign ? forcedAssign.load() : forcedUpdate.load(); }

Dispatched dispatch(const Problem &p) {
  if (const Variant *forced = forcedVariant(p.op)) {
    // forcing skips the rules, not the instantiation's domain (its dtype, D <= DP, target)
    const library::Instance *inst = embeddedManifest().instance(std::string(forced->name));
    std::string failed;
    if (inst && !library::domainHolds(embeddedManifest(), *inst, manifestProblem(p), failed))
      return unsupported("the forced variant '" + std::string(forced->name) + "' cannot take this problem (" +
                         describe(p) + "): " + failed);
    return forced;
  }
  library::Decision d = library::dispatch(embeddedManifest(), manifestProblem(p));
  if (d.chosen) {
    const Variant *v = findVariant(d.chosen->name);
    if (!v)
      return internal("the dispatch rule for " + describe(p) + " names the variant '" + d.chosen->name +
                      "', which has no entry");
    return v;
  }
  std::string have;
  for (const Variant &v : variantTable())
    if (v.op == p.op)
      have += (have.empty() ? "" : "; ") + std::string(v.covers) + " on compute capability " +
              std::to_string(v.computeCapability / 10) + "." + std::to_string(v.computeCapability % 10) + " (" +
              std::string(v.target) + ")";
  return unsupported("there is no " + describe(p) + "; the library's " + std::string(opName(p.op)) + " kernels take " +
                     (have.empty() ? "nothing" : have));
}

std::string explain(const Problem &p) {
  if (const Variant *forced = p.op == Op::Assign ? forcedAssign.load() : forcedUpdate.load())
    return std::string(forced->name) + ": forced (cake_kmeans_force_variant)\n";
  library::Decision d = library::dispatch(embeddedManifest(), manifestProblem(p));
  std::string out;
  for (const std::string &line : d.trace)
    out += line + "\n";
  if (!d.chosen)
    out += d.why + "\n";
  return out;
}

} // namespace cake::kmeans
