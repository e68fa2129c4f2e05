//===- Dispatch.cpp - The instantiations and the rules, from the manifest -===//
//
// Part of CAKE. To add a kernel to the library: an instantiation in
// kernels/knn/knn.manifest.json (a source and its parameters) and a rule that
// sends problems to it; the library builds and embeds it
// (lib/core/CakeLibrary.cmake) and checks every call's tensors against its IR
// (lib/core/Launch.h), so a rule that sends a problem to an instantiation
// that cannot take it fails with a message instead of computing garbage.
//
//===----------------------------------------------------------------------===//
#include "lib/knn/Dispatch.h"

#include "compiler/target/Target.h"
#include "lib/knn/Embedded.h"

#include <algorithm>
#include <atomic>
#include <set>

namespace cake::knn {

namespace {

std::atomic<const library::Instance *> forced{nullptr};

std::string describe(const Problem &p) {
  std::string s = "search for " + std::string(dtypeName(p.dtype)) + " with D = " + std::to_string(p.D) +
                  ", k = " + std::to_string(p.k) + " (Q = " + std::to_string(p.Q) + ", N = " + std::to_string(p.N) +
                  ")";
  if (p.computeCapability)
    s += " on a GPU of compute capability " + std::to_string(p.computeCapability / 10) + "." +
         std::to_string(p.computeCapability % 10);
  return s;
}

/// What the build's instantiations take, in one sentence: their dtypes, the
/// largest D and k (the parameters DP and KP of kernels/knn/knn_sm90.cake),
/// their targets.
std::string supported() {
  const library::Manifest &m = embeddedManifest();
  std::set<std::string> dtypes, targets;
  int64_t dp = 0, kp = 0;
  for (const library::Instance &i : m.instances) {
    for (const auto &[key, value] : i.domain)
      if (key == "dtype")
        dtypes.insert(value);
    targets.insert(i.target + " (compute capability " + std::to_string(library::targetComputeCapability(i.target) / 10) +
                   "." + std::to_string(library::targetComputeCapability(i.target) % 10) + ")");
    for (const auto &b : i.params) {
      if (b.name == "DP")
        dp = std::max<int64_t>(dp, std::stoll(b.value));
      if (b.name == "KP")
        kp = std::max<int64_t>(kp, std::stoll(b.value));
    }
  }
  auto join = [](const std::set<std::string> &s) {
    std::string out;
    for (const std::string &v : s)
      out += (out.empty() ? "" : ", ") + v;
    return out;
  };
  const bool passes = std::any_of(m.entries.begin(), m.entries.end(), [](const auto &e) { return !e.repeat.empty(); });
  return "the library's search kernels take " + join(dtypes) + ", D a multiple of 8 up to " + std::to_string(dp) +
         ", k up to " + std::to_string(kp) + (passes ? " a pass (larger k in passes, as " + m.path + " allows)" : "") +
         " and k <= N, on " + join(targets);
}

Expected<Choice> choiceOf(const library::Instance &i, const Problem &p) {
  const library::Manifest &m = embeddedManifest();
  Choice c;
  c.instance = &i;
  c.entry = m.entry(i.entry);
  if (!c.entry)
    return internal("instantiation '" + i.name + "' names the entry '" + i.entry + "', which the manifest lacks");
  std::string error;
  auto sizes = library::sizesOf(m, i, manifestProblem(p), &error);
  if (!sizes)
    return internal("the sizes of '" + i.name + "' do not evaluate for " + describe(p) + ": " + error);
  c.sizes = {{"Q", p.Q}, {"N", p.N}, {"D", p.D}, {"k", p.k}};
  c.sizes.insert(c.sizes.end(), sizes->begin(), sizes->end());
  return c;
}

} // namespace

std::string_view dtypeName(DType t) { return t == DType::BF16 ? "bf16" : "fp16"; }

library::Problem manifestProblem(const Problem &p) {
  // before the GPU is known: the H200 the rules were fitted on
  const int64_t sms = p.smCount > 0 ? p.smCount : int64_t(targetDesc(Target::SM90a).smCount);
  library::Problem out;
  out.values = {{"op", "search"},
                {"dtype", std::string(dtypeName(p.dtype))},
                {"Q", std::to_string(p.Q)},
                {"N", std::to_string(p.N)},
                {"D", std::to_string(p.D)},
                {"k", std::to_string(p.k)},
                {"SMS", std::to_string(sms)},
                {"cc", std::to_string(p.computeCapability)}};
  return out;
}

Expected<Choice> dispatch(const Problem &p) {
  if (const library::Instance *f = forced.load()) {
    // forcing bypasses the rules, not the conditions of the kernel: D <= DP, k <= KP, the dtype
    std::string failed;
    if (!library::domainHolds(embeddedManifest(), *f, manifestProblem(p), failed))
      return unsupported("the forced instantiation '" + f->name + "' cannot take this " + describe(p) + ": " + failed);
    return choiceOf(*f, p);
  }
  library::Decision d = library::dispatch(embeddedManifest(), manifestProblem(p));
  if (!d.chosen)
    return unsupported("there is no " + describe(p) + "; " + supported());
  return choiceOf(*d.chosen, p);
}

std::string explain(const Problem &p) {
  if (const library::Instance *f = forced.load())
    return f->name + ": forced (cake_knn_force_variant)\n";
  library::Decision d = library::dispatch(embeddedManifest(), manifestProblem(p));
  std::string out;
  for (const std::string &line : d.trace)
    out += line + "\n";
  if (!d.chosen)
    return out + d.why + "\n";
  auto c = choiceOf(*d.chosen, p);
  if (!c)
    return out + c.error().message + "\n";
  out += "sizes:";
  for (const auto &[name, value] : c->sizes)
    out += " " + name + " = " + std::to_string(value);
  return out + "\n";
}

Status forceVariant(std::string_view name) {
  if (name.empty()) {
    forced = nullptr;
    return Ok{};
  }
  const library::Manifest &m = embeddedManifest();
  const library::Instance *i = m.instance(name);
  if (!i) {
    std::string known;
    for (const library::Instance &k : m.instances)
      known += (known.empty() ? "" : ", ") + k.name;
    return invalid("there is no instantiation '" + std::string(name) + "'; the library's are " + known);
  }
  forced = i;
  return Ok{};
}

const library::Instance *forcedInstance() { return forced.load(); }

} // namespace cake::knn
