//===- Mma.cpp - wgmma, mma.sync, ld.matrix and st.matrix -----------------===//
//
// Part of CAKE. wgmma.mma over swizzled shared tiles is a loop of m64nNk16
// instructions whose descriptors step through the tile (the hardware applies
// the XOR): 32 bytes along the rows of a K-major tile, 16 rows down an
// MN-major one (`tile.t(v)`: v is [K, M] or [K, N]); the fence/commit/wait protocol is the
// author's, plus a wgmma.fence before each call (the accumulator may have
// been written by threads) and fence_operands after each wait (so the
// compiler cannot move accumulator uses across it). ld.matrix, st.matrix and
// mma.sync work on the fragment layouts of language.md 4.6.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include <set>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

std::string swizzleEnum(uint32_t bytes) {
  switch (bytes) {
  case 128:
    return "cake::rt::Swizzle::B128";
  case 64:
    return "cake::rt::Swizzle::B64";
  case 32:
    return "cake::rt::Swizzle::B32";
  }
  return "cake::rt::Swizzle::None";
}

/// N of a wgmma shape keyword "m64nNk16", or 0.
int64_t wgmmaN(const Expr *shape) {
  if (!shape || shape->kind != ExprKind::Name)
    return 0;
  const std::string &s = shape->text;
  size_t n = s.find('n'), kk = s.find('k');
  if (!s.starts_with("m64") || n == std::string::npos || kk == std::string::npos || s.substr(kk) != "k16")
    return 0;
  return std::stoll(s.substr(n + 1, kk - n - 1));
}

/// The shared address of the operand tile's k-th element along K (its first
/// row's column k when K-major; row k's first column when MN-major, tile.t).
std::string kAddress(Lowerer &L, const Val &v, const std::string &k) {
  std::vector<std::string> idx(v.viewShape().size(), "0");
  (v.transposed ? idx.front() : idx.back()) = k;
  return "u32(" + L.sharedAddress(v, idx) + ")";
}

/// Bytes between the column panels (swizzle / element bytes wide) of a swizzled shared tile: its rows times
/// the swizzle span, as Lowerer::sharedAddress lays them out.
int64_t panelStride(const Val &v) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < v.type->dims.size(); ++d)
    rows *= v.type->dims[d].value.value_or(1);
  return rows * v.type->swizzle;
}

/// The wgmma descriptor of the operand tile \p v at shared address \p address. K-major: rows of the swizzle
/// span, 8-row groups SBO = 8 x span apart (LBO unused). MN-major (tile.t): the canonical layout of the PTX
/// ISA's shared memory matrix layouts, ((T, span / 16 B, m), (8, k)) : ((1, T, LBO), (span, SBO)) as CUTLASS's
/// make_gmma_desc<Major::MN> writes it: the rows are K (SBO = 8 x span between 8-row groups), and the panels
/// of span / element bytes along M or N are LBO = the storage's panel stride apart.
std::string descriptor(const Val &v, const std::string &address) {
  const std::string lbo = v.transposed ? std::to_string(panelStride(v)) + "u" : "16u";
  return "cake::rt::wgmma_desc(" + address + ", " + lbo + ", " + std::to_string(8 * v.type->swizzle) + "u, " +
         swizzleEnum(v.type->swizzle) + ")";
}

/// The operand's logical shape, [M or N, K]: the view's, swapped for tile.t.
std::vector<int64_t> operandShape(const Val &v) {
  std::vector<int64_t> s = v.viewShape();
  if (v.transposed && s.size() == 2)
    std::swap(s[0], s[1]);
  return s;
}

/// An integer literal's value (a view's origin as C++), or nullopt.
std::optional<int64_t> literal(const std::string &cxx) {
  if (cxx.empty() || cxx.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoll(cxx);
}

/// Why an MN-major operand (tile.t) cannot be described, or "": its panels must be whole (M or N a multiple of
/// the panel, starting on one) and its rows start on an 8-row swizzle atom.
std::string mnMajorProblem(const Val &v) {
  if (!v.transposed)
    return "";
  const int64_t panel = v.type->swizzle / elemBytes(*v.type->elem);
  std::vector<int64_t> s = v.viewShape();
  size_t first = 0, last = 0;
  for (size_t d = 0; d < v.kept.size(); ++d)
    if (v.kept[d])
      last = d;
  while (first < v.kept.size() && !v.kept[first])
    ++first;
  auto col = literal(v.origin[last]), row = literal(v.origin[first]);
  if (s.size() != 2 || s[1] % panel || !col || *col % panel || !row || *row % 8 || last != v.kept.size() - 1)
    return "a tile.t operand other than whole " + std::to_string(panel) +
           "-element panels of its storage (columns from a constant multiple of " + std::to_string(panel) +
           ", rows from a constant multiple of 8)";
  return "";
}

std::optional<Val> lowerWgmma(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto a = L.value(*args[0]), b = L.value(*args[1]), acc = L.value(*args[2]);
  if (!a || !b || !acc)
    return std::nullopt;
  int64_t n = wgmmaN(keywordArg(call, "shape"));
  if (a->kind != Val::SharedView || b->kind != Val::SharedView || acc->kind != Val::Frag ||
      acc->layout != Layout::WgmmaAcc || !n) {
    L.unsupported(call.range, "wgmma.mma other than shared A and B into a register accumulator");
    return std::nullopt;
  }
  Elem ea = *a->type->elem, eb = *b->type->elem;
  if (ea != eb || (ea != Elem::BF16 && ea != Elem::FP16) || !a->type->swizzle || !b->type->swizzle) {
    L.unsupported(call.range, "wgmma.mma other than bf16 or fp16 swizzled tiles of one type");
    return std::nullopt;
  }
  for (const Val *operand : {&*a, &*b})
    if (std::string why = mnMajorProblem(*operand); !why.empty()) {
      L.unsupported(call.range, why);
      return std::nullopt;
    }
  // scale_a, scale_b: immediates of the instruction, 1 or -1 (negating that operand)
  int64_t scale[2] = {1, 1};
  for (int i = 0; i < 2; ++i)
    if (const Expr *e = keywordArg(call, i ? "scale_b" : "scale_a")) {
      auto c = L.constant(*e);
      if (!c || (*c != 1 && *c != -1)) {
        L.unsupported(e->range, std::string(i ? "scale_b" : "scale_a") + " other than the constant 1 or -1");
        return std::nullopt;
      }
      scale[i] = *c;
    }
  // the runtime has the shared-shared form for these N (compiler/lower/runtime/cake_device.cuh)
  if (n != 16 && n != 32 && n != 64 && n != 128 && n != 256) {
    L.unsupported(call.range, "wgmma.mma of shape m64n" + std::to_string(n) +
                                  "k16 (the runtime has N = 16, 32, 64, 128 and 256)");
    return std::nullopt;
  }
  // the runtime's template arguments: N, TransA, TransB, ScaleA, ScaleB, F16 (only N when the rest are defaults)
  std::string targs = std::to_string(n);
  if (a->transposed || b->transposed || scale[0] != 1 || scale[1] != 1 || ea == Elem::FP16)
    targs += std::string(", ") + (a->transposed ? "1" : "0") + ", " + (b->transposed ? "1" : "0") + ", " +
             std::to_string(scale[0]) + ", " + std::to_string(scale[1]) + (ea == Elem::FP16 ? ", true" : ", false");
  std::vector<int64_t> as = operandShape(*a), bs = operandShape(*b);
  if (as.size() != 2 || bs.size() != 2 || as[0] != 64 || bs[0] != n || as[1] != bs[1] || as[1] % 16 ||
      acc->shape[1] != n) {
    L.unsupported(call.range, "wgmma.mma with these operand shapes");
    return std::nullopt;
  }
  auto accumulate = L.accumulateFlag(call);
  if (!accumulate)
    return std::nullopt;
  if (L.role)
    L.role->wgmmaPending.push_back(acc->cxx);
  L.w.line("cake::rt::wgmma_fence();");
  // one descriptor per operand, advanced by each k-step's offset (a constant once unrolled)
  L.w.open("");
  L.w.line("const u32 cake_a0 = " + kAddress(L, *a, "0") + ", cake_b0 = " + kAddress(L, *b, "0") + ";");
  L.w.line("const u64 cake_da = " + descriptor(*a, "cake_a0") + ", cake_db = " + descriptor(*b, "cake_b0") + ";");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_s = 0; cake_s < " + std::to_string(as[1] / 16) + "; ++cake_s)");
  L.w.line("cake::rt::wgmma_m64nNk16_f32_bf16<" + targs + ">(" + acc->cxx + ", cake::rt::wgmma_desc_advance(cake_da, " +
           kAddress(L, *a, "cake_s * 16") + " - cake_a0), cake::rt::wgmma_desc_advance(cake_db, " +
           kAddress(L, *b, "cake_s * 16") + " - cake_b0), (" + *accumulate + ") || cake_s > 0);");
  L.w.close();
  L.w.close();
  return Val{};
}

std::optional<Val> lowerWgmmaCommit(Lowerer &L, const Expr &) {
  L.w.line("cake::rt::wgmma_commit_group();");
  if (L.role) {
    L.role->wgmmaGroups.push_back(std::move(L.role->wgmmaPending));
    L.role->wgmmaPending.clear();
  }
  if (L.role && !L.role->retiredRings.empty())
    L.w.line("++cake_wgmma_groups;");
  return Val{};
}

std::optional<Val> lowerWgmmaWait(Lowerer &L, const Expr &call) {
  auto n = L.constant(*positionalArgs(call)[0]);
  if (!n || *n < 0 || *n > 7) {
    L.unsupported(call.range, "a wgmma.wait depth that is not a constant 0..7");
    return std::nullopt;
  }
  L.w.line("cake::rt::wgmma_wait_group<" + std::to_string(*n) + ">();");
  if (L.role) {
    auto &groups = L.role->wgmmaGroups;
    std::set<std::string> inFlight;
    for (size_t g = groups.size() > size_t(*n) ? groups.size() - size_t(*n) : 0; g < groups.size(); ++g)
      inFlight.insert(groups[g].begin(), groups[g].end());
    for (const std::string &acc : L.role->wgmmaAccs)
      if (!inFlight.count(acc))
        L.w.line("cake::rt::fence_operands(" + acc + ");");
    drainRetired(L, *n);
  }
  return Val{};
}

std::optional<Val> lowerWgmmaRetired(Lowerer &L, const Expr &call) {
  Val v;
  v.kind = Val::Event;
  v.event = OpId::WgmmaRetired;
  v.depth = L.constant(*positionalArgs(call)[0]).value_or(0);
  return v;
}

/// st.matrix of a (cast) wgmma accumulator slice [64, W] into a 16-bit shared tile.
std::optional<Val> lowerStMatrix(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto v = L.value(*args[0]);
  auto dst = L.view(*args[1]);
  if (!v || !dst)
    return std::nullopt;
  std::vector<int64_t> ds = dst->viewShape();
  Elem out = v->cast.value_or(v->elem);
  if (v->kind != Val::Frag || v->layout != Layout::WgmmaAcc || dst->kind != Val::SharedView || ds.size() != 2 ||
      ds[0] != 64 || ds[1] != v->shape[1] || ds[1] % 16 || out != *dst->type->elem ||
      (out != Elem::BF16 && out != Elem::FP16) || keywordArg(call, "trans")) {
    L.unsupported(call.range, "st.matrix other than a 16-bit wgmma accumulator tile of matching shape");
    return std::nullopt;
  }
  std::string pack = out == Elem::BF16 ? "cake::rt::pack_bf16x2" : "cake::rt::pack_f16x2";
  std::string f = v->cxx, off = v->fragOffset;
  auto at = [&](const std::string &i) { return f + "[" + off + " + " + i + "]"; };
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_b = 0; cake_b < " + std::to_string(ds[1] / 16) + "; ++cake_b)");
  L.w.line("const int cake_m = int(cake::rt::lane_id()) / 8;");
  L.w.line("const int cake_row = cake_role_warp % 4 * 16 + int(cake::rt::lane_id()) % 8 + cake_m % 2 * 8;");
  L.w.line("const int cake_col = cake_b * 16 + cake_m / 2 * 8;");
  L.w.line("const u32 cake_r[4] = {" + pack + "(" + at("cake_b * 8") + ", " + at("cake_b * 8 + 1") + "), " + pack +
           "(" + at("cake_b * 8 + 2") + ", " + at("cake_b * 8 + 3") + "), " + pack + "(" + at("cake_b * 8 + 4") +
           ", " + at("cake_b * 8 + 5") + "), " + pack + "(" + at("cake_b * 8 + 6") + ", " + at("cake_b * 8 + 7") +
           ")};");
  L.w.line("cake::rt::stmatrix_x4(cake::rt::swizzle<" + std::to_string(dst->type->swizzle) + ">(" +
           L.sharedAddress(*dst, {"cake_row", "cake_col"}) + "), cake_r);");
  L.w.close();
  return Val{};
}

/// ld.matrix of a [R, 16] 16-bit shared tile as mma.sync A or B fragments.
std::optional<Val> lowerLdMatrix(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto src = L.view(*args[0]);
  if (!src)
    return std::nullopt;
  const Expr *operand = keywordArg(call, "operand");
  std::string which = operand && operand->kind == ExprKind::Name ? operand->text : "";
  std::vector<int64_t> s = src->viewShape();
  if (src->kind != Val::SharedView || s.size() != 2 || s[1] != 16 || s[0] % 16 || elemBytes(*src->type->elem) != 2 ||
      (which != "a" && which != "b") || keywordArg(call, "trans") || !L.role ||
      L.role->role->issue != IssueMode::Warp) {
    L.unsupported(call.range, "ld.matrix other than mma.sync A or B fragments of a [R, 16] tile in a warp role");
    return std::nullopt;
  }
  Val f;
  f.kind = Val::Frag;
  f.cxx = L.temp("frag");
  f.shape = s;
  f.elem = *src->type->elem;
  std::string sw = std::to_string(src->type->swizzle);
  if (which == "a") {
    f.layout = Layout::MmaA;
    L.w.line("u32 " + f.cxx + "[" + std::to_string(s[0] / 16) + "][4];");
    L.w.line("#pragma unroll");
    L.w.open("for (int cake_t = 0; cake_t < " + std::to_string(s[0] / 16) + "; ++cake_t)");
    L.w.line("cake::rt::ldmatrix_x4(" + f.cxx + "[cake_t], cake::rt::swizzle<" + sw + ">(" +
             L.sharedAddress(*src, {"cake_t * 16 + int(cake::rt::lane_id()) % 16",
                                    "int(cake::rt::lane_id()) / 16 * 8"}) +
             "));");
  } else {
    f.layout = Layout::MmaB;
    L.w.line("u32 " + f.cxx + "[" + std::to_string(s[0] / 8) + "][2];");
    L.w.line("#pragma unroll");
    L.w.open("for (int cake_t = 0; cake_t < " + std::to_string(s[0] / 16) + "; ++cake_t)");
    L.w.line("u32 cake_q[4];");
    L.w.line("cake::rt::ldmatrix_x4(cake_q, cake::rt::swizzle<" + sw + ">(" +
             L.sharedAddress(*src, {"cake_t * 16 + int(cake::rt::lane_id()) / 16 * 8 + int(cake::rt::lane_id()) % 8",
                                    "int(cake::rt::lane_id()) / 8 % 2 * 8"}) +
             "));");
    L.w.line(f.cxx + "[2 * cake_t][0] = cake_q[0]; " + f.cxx + "[2 * cake_t][1] = cake_q[1];");
    L.w.line(f.cxx + "[2 * cake_t + 1][0] = cake_q[2]; " + f.cxx + "[2 * cake_t + 1][1] = cake_q[3];");
  }
  L.w.close();
  return f;
}

std::optional<Val> lowerMmaSync(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto a = L.value(*args[0]), b = L.value(*args[1]), acc = L.value(*args[2]);
  if (!a || !b || !acc)
    return std::nullopt;
  const Expr *shape = keywordArg(call, "shape");
  if (a->kind != Val::Frag || b->kind != Val::Frag || acc->kind != Val::Frag || a->layout != Layout::MmaA ||
      b->layout != Layout::MmaB || acc->layout != Layout::MmaAcc || !shape || shape->kind != ExprKind::Name ||
      shape->text != "m16n8k16" || a->shape[0] != acc->shape[0] || b->shape[0] != acc->shape[1] ||
      a->elem != b->elem || (a->elem != Elem::BF16 && a->elem != Elem::FP16)) {
    L.unsupported(call.range, "mma.sync other than m16n8k16 on ld.matrix fragments into an fp32 accumulator");
    return std::nullopt;
  }
  std::string fn = a->elem == Elem::BF16 ? "cake::rt::mma_m16n8k16_bf16" : "cake::rt::mma_m16n8k16_f16";
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_i = 0; cake_i < " + std::to_string(acc->shape[0] / 16) + "; ++cake_i)");
  L.w.line("#pragma unroll");
  L.w.line("for (int cake_j = 0; cake_j < " + std::to_string(acc->shape[1] / 8) + "; ++cake_j) " + fn + "(" +
           acc->cxx + "[cake_i][cake_j], " + a->cxx + "[cake_i], " + b->cxx + "[cake_j]);");
  L.w.close();
  return Val{};
}

} // namespace

std::optional<std::string> Lowerer::accumulateFlag(const Expr &call) {
  const Expr *e = keywordArg(call, "accumulate");
  return e ? scalar(*e) : std::optional<std::string>("true");
}

void addMmaLowerings(OpLowerings &t) {
  t[OpId::WgmmaMma] = lowerWgmma;
  t[OpId::WgmmaCommit] = lowerWgmmaCommit;
  t[OpId::WgmmaWait] = lowerWgmmaWait;
  t[OpId::WgmmaRetired] = lowerWgmmaRetired;
  t[OpId::StMatrix] = lowerStMatrix;
  t[OpId::LdMatrix] = lowerLdMatrix;
  t[OpId::MmaSync] = lowerMmaSync;
}

} // namespace cake::lower
