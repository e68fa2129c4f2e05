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

#include "compiler/target/Target.h"

#include <atomic>

namespace cake::kmeans {

namespace {

// KP: the Hopper assign kernels stream centroid tiles of BN = 128 in pairs, so
// the padded count is a multiple of 256 (kernels/kmeans/assign_sm90.cake).
Variant assignVariant(std::string_view name, std::string_view kernel, std::string_view cnorm,
                      std::string_view covers) {
  return {.name = name,
          .op = Op::Assign,
          .file = name,
          .kernels = {cnorm, kernel},
          .distanceKernel = "kmeans_distance",
          .scratch = {"cn"},
          .zeroKernel = "",
          .kPad = 256,
          .target = "sm_90a",
          .computeCapability = 90,
          .covers = covers};
}

// kernels/kmeans/assign_sm80.cake and its variants: Ampere (compute
// capability 8.x), cp.async and mma.sync, KP a multiple of BN = 64.
Variant ampereVariant(std::string_view name, std::string_view kernel, std::string_view cnorm,
                      std::string_view covers) {
  Variant v = assignVariant(name, kernel, cnorm, covers);
  v.kPad = 64;
  v.target = "sm_80";
  v.computeCapability = 80;
  return v;
}

// Split-K: the centroid range in 4 parts over 4x the work tiles, partials
// merged by kmeans_argmin_merge; KP a multiple of 2 x 128 x 4.
Variant splitVariant(std::string_view name, std::string_view kernel, std::string_view covers) {
  return {.name = name,
          .op = Op::Assign,
          .file = name,
          .kernels = {"kmeans_cnorm", kernel, "kmeans_argmin_merge"},
          .distanceKernel = "kmeans_distance",
          .scratch = {"cn", "pv", "pi"},
          .zeroKernel = "",
          .kPad = 1024,
          .target = "sm_90a",
          .computeCapability = 90,
          .covers = covers};
}

// kernels/kmeans/update.cake (and its D = 64, 256 instances): sums and counts
// per cluster, then the means and each batch's largest centroid shift.
Variant updateVariant(std::string_view name, std::string_view covers) {
  return {.name = name,
          .op = Op::Update,
          .file = name,
          .kernels = {"kmeans_update_sums", "kmeans_update_means"},
          .distanceKernel = "",
          .scratch = {"sums", "counts", "shift"},
          .zeroKernel = "kmeans_update_zero",
          .kPad = 256,
          .target = "sm_90a",
          .computeCapability = 90,
          .covers = covers};
}

// kernels/kmeans/update_sorted.cake: the rows counted and ranked per cluster,
// a prefix sum, a scatter into cluster order, then one warp per chunk of a
// cluster sums its rows in registers; no fp32 reduction per row.
Variant sortedUpdateVariant() {
  return {.name = "update_sorted",
          .op = Op::Update,
          .file = "update_sorted",
          .kernels = {"kmeans_sort_count", "kmeans_sort_scan", "kmeans_sort_scatter", "kmeans_sort_means"},
          .distanceKernel = "",
          .scratch = {"counts", "runs", "rank", "sizes", "starts", "xoff", "emap", "nextra", "sums", "ticket",
                      "order", "shift"},
          .zeroKernel = "kmeans_sort_zero",
          .kPad = 256,
          .target = "sm_90a",
          .computeCapability = 90,
          .covers = "bf16, D = 128, counting sort"};
}

const Variant kVariants[] = {
    assignVariant("assign_sm90", "kmeans_assign_sm90", "kmeans_cnorm", "bf16, D = 128, three compute warpgroups"),
    assignVariant("assign_d128_wg2", "kmeans_assign_d128_wg2", "kmeans_cnorm", "bf16, D = 128, two compute warpgroups"),
    assignVariant("assign_d64_wg3", "kmeans_assign_d64_wg3", "kmeans_cnorm", "bf16, D = 64, three compute warpgroups"),
    assignVariant("assign_d64_wg2", "kmeans_assign_d64_wg2", "kmeans_cnorm", "bf16, D = 64, two compute warpgroups"),
    splitVariant("assign_d128_split4", "kmeans_assign_d128_split4", "bf16, D = 128, split-K"),
    splitVariant("assign_d64_split4", "kmeans_assign_d64_split4", "bf16, D = 64, split-K"),
    assignVariant("assign_d256_wg2", "kmeans_assign_d256_wg2", "kmeans_cnorm", "bf16, D = 256"),
    assignVariant("assign_d32_wg2", "kmeans_assign_d32_wg2", "kmeans_cnorm", "bf16, D = 32"),
    assignVariant("assign_d512_wg1", "kmeans_assign_d512_wg1", "kmeans_cnorm", "bf16, D = 512"),
    assignVariant("assign_d128_f16", "kmeans_assign_d128_f16", "kmeans_cnorm_f16", "fp16, D = 128"),
    assignVariant("assign_d32_f16", "kmeans_assign_d32_f16", "kmeans_cnorm_f16", "fp16, D = 32"),
    assignVariant("assign_d64_f16", "kmeans_assign_d64_f16", "kmeans_cnorm_f16", "fp16, D = 64"),
    assignVariant("assign_d256_f16", "kmeans_assign_d256_f16", "kmeans_cnorm_f16", "fp16, D = 256"),
    assignVariant("assign_d512_f16", "kmeans_assign_d512_f16", "kmeans_cnorm_f16", "fp16, D = 512"),
    ampereVariant("assign_sm80", "kmeans_assign_sm80", "kmeans_cnorm", "bf16, D = 128"),
    ampereVariant("assign_sm80_d32", "kmeans_assign_sm80_d32", "kmeans_cnorm", "bf16, D = 32"),
    ampereVariant("assign_sm80_d64", "kmeans_assign_sm80_d64", "kmeans_cnorm", "bf16, D = 64"),
    ampereVariant("assign_sm80_d256", "kmeans_assign_sm80_d256", "kmeans_cnorm", "bf16, D = 256"),
    ampereVariant("assign_sm80_d32_f16", "kmeans_assign_sm80_d32_f16", "kmeans_cnorm_f16", "fp16, D = 32"),
    ampereVariant("assign_sm80_d64_f16", "kmeans_assign_sm80_d64_f16", "kmeans_cnorm_f16", "fp16, D = 64"),
    ampereVariant("assign_sm80_d128_f16", "kmeans_assign_sm80_d128_f16", "kmeans_cnorm_f16", "fp16, D = 128"),
    ampereVariant("assign_sm80_d256_f16", "kmeans_assign_sm80_d256_f16", "kmeans_cnorm_f16", "fp16, D = 256"),
    sortedUpdateVariant(),
    updateVariant("update", "bf16, D = 128"),
    updateVariant("update_d32", "bf16, D = 32"),
    updateVariant("update_d64", "bf16, D = 64"),
    updateVariant("update_d256", "bf16, D = 256"),
    updateVariant("update_d512", "bf16, D = 512"),
    updateVariant("update_d32_f16", "fp16, D = 32"),
    updateVariant("update_d64_f16", "fp16, D = 64"),
    updateVariant("update_d128_f16", "fp16, D = 128"),
    updateVariant("update_d256_f16", "fp16, D = 256"),
    updateVariant("update_d512_f16", "fp16, D = 512"),
};

} // namespace

bool threeWarpgroupsPay(const Problem &p);
bool splitPays(const Problem &p);

namespace {

// The rules, first match wins: for D = 64 and 128 split-K when few work tiles
// leave SMs idle, else three compute warpgroups when they pay, else two.
const Rule kRules[] = {
    {.op = Op::Assign, .dtype = DType::BF16, .D = 128, .computeCapability = 90, .when = splitPays,
     .variant = "assign_d128_split4"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 128, .computeCapability = 90, .when = threeWarpgroupsPay,
     .variant = "assign_sm90"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 128, .computeCapability = 90, .variant = "assign_d128_wg2"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 64, .computeCapability = 90, .when = splitPays,
     .variant = "assign_d64_split4"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 64, .computeCapability = 90, .when = threeWarpgroupsPay,
     .variant = "assign_d64_wg3"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 64, .computeCapability = 90, .variant = "assign_d64_wg2"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 256, .computeCapability = 90, .variant = "assign_d256_wg2"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 32, .computeCapability = 90, .variant = "assign_d32_wg2"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 512, .computeCapability = 90, .variant = "assign_d512_wg1"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 128, .computeCapability = 90, .variant = "assign_d128_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 32, .computeCapability = 90, .variant = "assign_d32_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 64, .computeCapability = 90, .variant = "assign_d64_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 256, .computeCapability = 90, .variant = "assign_d256_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 512, .computeCapability = 90, .variant = "assign_d512_f16"},
    // Ampere and later 8.x parts (A100, A10, L4, RTX 30/40): the mma.sync schedule
    {.op = Op::Assign, .dtype = DType::BF16, .D = 128, .computeCapability = 80, .variant = "assign_sm80"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 32, .computeCapability = 80, .variant = "assign_sm80_d32"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 64, .computeCapability = 80, .variant = "assign_sm80_d64"},
    {.op = Op::Assign, .dtype = DType::BF16, .D = 256, .computeCapability = 80, .variant = "assign_sm80_d256"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 32, .computeCapability = 80, .variant = "assign_sm80_d32_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 64, .computeCapability = 80, .variant = "assign_sm80_d64_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 128, .computeCapability = 80, .variant = "assign_sm80_d128_f16"},
    {.op = Op::Assign, .dtype = DType::F16, .D = 256, .computeCapability = 80, .variant = "assign_sm80_d256_f16"},
    // the counting sort: no contention cliff when many rows share a cluster (the reductions of
    // `update` serialize on one row: 8.2 ms with every row in one cluster at the paper cell)
    {.op = Op::Update, .dtype = DType::BF16, .D = 128, .computeCapability = 90, .variant = "update_sorted"},
    {.op = Op::Update, .dtype = DType::BF16, .D = 64, .computeCapability = 90, .variant = "update_d64"},
    {.op = Op::Update, .dtype = DType::BF16, .D = 256, .computeCapability = 90, .variant = "update_d256"},
    {.op = Op::Update, .dtype = DType::BF16, .D = 32, .computeCapability = 90, .variant = "update_d32"},
    {.op = Op::Update, .dtype = DType::BF16, .D = 512, .computeCapability = 90, .variant = "update_d512"},
    {.op = Op::Update, .dtype = DType::F16, .D = 32, .computeCapability = 90, .variant = "update_d32_f16"},
    {.op = Op::Update, .dtype = DType::F16, .D = 64, .computeCapability = 90, .variant = "update_d64_f16"},
    {.op = Op::Update, .dtype = DType::F16, .D = 128, .computeCapability = 90, .variant = "update_d128_f16"},
    {.op = Op::Update, .dtype = DType::F16, .D = 256, .computeCapability = 90, .variant = "update_d256_f16"},
    {.op = Op::Update, .dtype = DType::F16, .D = 512, .computeCapability = 90, .variant = "update_d512_f16"},
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

/// Whether three compute warpgroups (x tiles of 192 rows) beat two (128):
/// a persistent CTA takes ceil(tiles / SMs) work tiles, so the time goes as
/// ceil(tiles / SMs) x BM x (cost per row), and a row costs 0.90 as much with
/// three (they overlap each other's folds). Fitted on the sweep in
/// bench/results/kmeans/variants_h200.md: right at all 26 of its cells
/// (any factor from 0.90 to 0.95 is).
bool threeWarpgroupsPay(const Problem &p) {
  const int64_t sms = p.smCount > 0 ? p.smCount : int64_t(targetDesc(Target::SM90a).smCount); // before the GPU is known: the H200 the rules were fitted on
  auto rowTime = [&](int64_t bm, double perRow) {
    int64_t tiles = p.B * ((p.N + bm - 1) / bm);
    return double((tiles + sms - 1) / sms) * double(bm) * perRow;
  };
  return rowTime(192, 0.90) < rowTime(128, 1.0);
}

/// Whether splitting the centroid range S = 4 ways pays: a persistent CTA
/// folds ceil(tiles / SMs) x KP / BN centroid tiles unsplit and
/// ceil(S x tiles / SMs) x KP / (S x BN) split; the split pays when that at
/// least halves the centroid tiles per CTA (not a wave-quantization crumb of a
/// large problem) and saves at least 24 of them, what its third kernel (the
/// merge) and its shorter work tiles cost. Fitted on the split-K sweep in
/// bench/results/kmeans/split_h200.md: right at 13 of its 14 cells (1 x 4096
/// points, 32 work tiles: K = 4096 saves 24 and wins; 4 x 4096 points, 128
/// work tiles: saves nothing and loses); the miss, K = 1024 at D = 128, costs
/// 0.004 ms.
bool splitPays(const Problem &p) {
  constexpr int64_t S = 4, BN = 128, BM = 128, kSplitKPad = 1024;
  const int64_t sms = p.smCount > 0 ? p.smCount : int64_t(targetDesc(Target::SM90a).smCount); // before the GPU is known: the H200 the rules were fitted on
  const int64_t tiles = p.B * ((p.N + BM - 1) / BM);
  const int64_t centroidTiles = (p.K + kSplitKPad - 1) / kSplitKPad * kSplitKPad / BN;
  const double unsplit = double((tiles + sms - 1) / sms);
  const double split = double((S * tiles + sms - 1) / sms) / double(S);
  return split <= unsplit / 2 && (unsplit - split) * double(centroidTiles) >= 24.0;
}

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
  // a rule for 8.0 covers the 8.x family (8.6, 8.9 run sm_80 code); 9.0's sm_90a code runs on 9.0 only
  if (r.computeCapability && p.computeCapability && r.computeCapability / 10 != p.computeCapability / 10)
    return false;
  if (p.N < r.minN || p.N > r.maxN || p.K < r.minK || p.K > r.maxK || p.B < r.minB || p.B > r.maxB)
    return false;
  if (p.smCount && (p.smCount < r.minSms || p.smCount > r.maxSms))
    return false;
  return !r.when || r.when(p);
}

namespace {
std::atomic<const Variant *> forcedAssign{nullptr}, forcedUpdate{nullptr};
std::atomic<uint64_t> generation{0};
} // namespace

Status forceVariant(std::string_view name) {
  if (name.empty()) {
    forcedAssign = nullptr, forcedUpdate = nullptr;
    ++generation;
    return Ok{};
  }
  const Variant *v = findVariant(name);
  if (!v) {
    std::string known;
    for (const Variant &k : kVariants)
      known += (known.empty() ? "" : ", ") + std::string(k.name);
    return invalid("there is no variant '" + std::string(name) + "'; the library's variants are " + known);
  }
  (v->op == Op::Assign ? forcedAssign : forcedUpdate) = v;
  ++generation;
  return Ok{};
}

uint64_t forcingGeneration() { return generation; }

Dispatched dispatch(const Problem &p) {
  if (const Variant *forced = p.op == Op::Assign ? forcedAssign.load() : forcedUpdate.load())
    return forced;
  for (const Rule &r : kRules)
    if (matches(r, p)) {
      const Variant *v = findVariant(r.variant);
      if (!v)
        return internal("the dispatch rule for " + describe(p) + " names the unknown variant '" +
                        std::string(r.variant) + "'");
      return v;
    }
  std::string have;
  for (const Variant &v : kVariants)
    if (v.op == p.op)
      have += (have.empty() ? "" : "; ") + std::string(v.covers) + " on compute capability " +
              std::to_string(v.computeCapability / 10) + "." + std::to_string(v.computeCapability % 10) + " (" +
              std::string(v.target) + ")";
  return unsupported("there is no " + describe(p) + "; the library's " + std::string(opName(p.op)) + " kernels take " +
                     (have.empty() ? "nothing" : have));
}

} // namespace cake::kmeans
