//===- Dispatch.cpp - The variants and the rules table --------------------===//
//
// Part of CAKE. To add a variant: a kernel file under kernels/kmeans/ (listed
// in lib/kmeans/CMakeLists.txt so that it is built and embedded), a row of
// kVariants, and rules that send problems to it. Rules are tried in order;
// put narrow, measured regions (from a sweep over B, N, K on a given SM
// count) before the catch-all row of each (op, dtype, D). The library checks
// every call's tensors against the variant's IR (element type and shape at
// the bound sizes), so a rule that sends a problem to a variant that cannot
// take it fails with a message instead of computing garbage.
//
//===----------------------------------------------------------------------===//
#include "lib/kmeans/Dispatch.h"

namespace cake::kmeans {

namespace {

// KP: the assign kernel streams centroid tiles of BN = 128 in pairs, so the
// padded count is a multiple of 256 (kernels/kmeans/assign_sm90.cake).
const Variant kVariants[] = {
    {.name = "assign_sm90",
     .op = Op::Assign,
     .file = "assign_sm90",
     .kernels = {"kmeans_cnorm", "kmeans_assign_sm90"},
     .scratch = {"cn"},
     .zeroKernel = "",
     .kPad = 256,
     .target = "sm_90a",
     .computeCapability = 90,
     .covers = "bf16, D = 128"},
    // kernels/kmeans/update.cake (branch update-kernels): sums and counts per
    // cluster, then the means and each batch's largest centroid shift.
    {.name = "update",
     .op = Op::Update,
     .file = "update",
     .kernels = {"kmeans_update_sums", "kmeans_update_means"},
     .scratch = {"sums", "counts", "shift"},
     .zeroKernel = "kmeans_update_zero",
     .kPad = 256,
     .target = "sm_90a",
     .computeCapability = 90,
     .covers = "bf16, D = 128"},
};

// The rules. One assign variant and one update pipeline so far; the sweep
// will add rows (e.g. a BN = 64 assign for small K, split-N updates for small
// B on many SMs) above these catch-alls.
const Rule kRules[] = {
    {.op = Op::Assign, .dtype = DType::BF16, .D = 128, .computeCapability = 90, .variant = "assign_sm90"},
    {.op = Op::Update, .dtype = DType::BF16, .D = 128, .computeCapability = 90, .variant = "update"},
};

std::string describe(const Problem &p) {
  std::string s = std::string(opName(p.op)) + " kernel for " + std::string(dtypeName(p.dtype)) +
                  " with D = " + std::to_string(p.D) + " (B = " + std::to_string(p.B) + ", N = " + std::to_string(p.N) +
                  ", K = " + std::to_string(p.K) + ")";
  if (p.computeCapability)
    s += " on a GPU of compute capability " + std::to_string(p.computeCapability / 10) + "." +
         std::to_string(p.computeCapability % 10);
  return s;
}

} // namespace

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

std::span<const Variant> variants() { return kVariants; }

const Variant *findVariant(std::string_view name) {
  for (const Variant &v : kVariants)
    if (v.name == name)
      return &v;
  return nullptr;
}

std::span<const Rule> rules() { return kRules; }

bool matches(const Rule &r, const Problem &p) {
  if (r.op != p.op || r.dtype != p.dtype || (r.D && r.D != p.D))
    return false;
  if (r.computeCapability && p.computeCapability && r.computeCapability != p.computeCapability)
    return false;
  if (p.N < r.minN || p.N > r.maxN || p.K < r.minK || p.K > r.maxK || p.B < r.minB || p.B > r.maxB)
    return false;
  if (p.smCount && (p.smCount < r.minSms || p.smCount > r.maxSms))
    return false;
  return true;
}

Dispatched dispatch(const Problem &p) {
  for (const Rule &r : kRules)
    if (matches(r, p)) {
      const Variant *v = findVariant(r.variant);
      if (!v)
        return {nullptr, internal("the dispatch rule for " + describe(p) + " names the unknown variant '" +
                                  std::string(r.variant) + "'")};
      return {v, std::nullopt};
    }
  std::string have;
  for (const Variant &v : kVariants)
    if (v.op == p.op)
      have += (have.empty() ? "" : "; ") + std::string(v.covers) + " on compute capability " +
              std::to_string(v.computeCapability / 10) + "." + std::to_string(v.computeCapability % 10) + " (" +
              std::string(v.target) + ")";
  return {nullptr, unsupported("there is no " + describe(p) + "; the library's " + std::string(opName(p.op)) +
                               " kernels take " + (have.empty() ? "nothing" : have))};
}

} // namespace cake::kmeans
