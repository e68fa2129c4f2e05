//===- Tcgen05.cpp - tcgen05 and tensor memory (sm_100a) ------------------===//
//
// Part of CAKE. tcgen05.mma over K-major swizzled shared tiles into a TMEM
// accumulator is a loop of kind::f16 instructions (K = 16 each) issued by one
// thread, with shared-memory descriptors that step 32 bytes through the
// swizzled rows and an instruction descriptor for the shape and types.
// Completion is observed through tcgen05.commit on an mbarrier: a TMEM
// ring's commit, a release `after = tcgen05.done()` (Rings.cpp), or a raw
// tcgen05.commit(b). tcgen05.ld moves a warp's 32-lane quadrant to registers,
// one TMEM lane (row) per thread.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

/// M and N of a shape keyword "m128n256k16"; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> mmaShape(const Expr *shape) {
  if (!shape || shape->kind != ExprKind::Name)
    return std::nullopt;
  const std::string &s = shape->text;
  size_t n = s.find('n'), k = s.find('k');
  if (s.empty() || s[0] != 'm' || n == std::string::npos || k == std::string::npos || s.substr(k) != "k16")
    return std::nullopt;
  return std::pair{std::stoll(s.substr(1, n - 1)), std::stoll(s.substr(n + 1, k - n - 1))};
}

std::string tmemAddress(const Val &v, const std::string &lane, const std::string &col) {
  return "(" + v.base + " + (u32(" + v.origin[0] + " + " + lane + ") << 16) + u32(" + v.origin[1] + " + " + col +
         "))";
}

std::string smemDescriptor(Lowerer &L, const Val &v, const std::string &k) {
  std::vector<std::string> idx(v.viewShape().size(), "0");
  idx.back() = k;
  return "cake::rt::tcgen05_smem_desc(" + L.sharedAddress(v, idx) + ", 16u, " + std::to_string(8 * v.type->swizzle) +
         "u, cake::rt::Swizzle::B" + std::to_string(v.type->swizzle) + ")";
}

std::optional<Val> lowerTcgen05Mma(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto a = L.value(*args[0]), b = L.value(*args[1]), acc = L.value(*args[2]);
  if (!a || !b || !acc)
    return std::nullopt;
  auto shape = mmaShape(keywordArg(call, "shape"));
  if (a->kind != Val::SharedView || b->kind != Val::SharedView || acc->kind != Val::TmemView || !shape ||
      keywordArg(call, "cta_group") || a->transposed || b->transposed) {
    L.unsupported(call.range,
                  "tcgen05.mma other than K-major shared A and B into a TMEM accumulator (cta_group 1)");
    return std::nullopt;
  }
  if (*a->type->elem != Elem::BF16 || *b->type->elem != Elem::BF16 || !a->type->swizzle || !b->type->swizzle ||
      *acc->type->elem != Elem::FP32) {
    L.unsupported(call.range, "tcgen05.mma other than bf16 K-major swizzled tiles into fp32");
    return std::nullopt;
  }
  std::vector<int64_t> as = a->viewShape(), bs = b->viewShape(), cs = acc->viewShape();
  auto [m, n] = *shape;
  if (m != 128) {
    // M = 64 places rows in half of each 32-lane subpartition: not the lane = row map tcgen05.ld assumes here
    L.unsupported(call.range, "tcgen05.mma with M other than 128");
    return std::nullopt;
  }
  if (as.size() != 2 || bs.size() != 2 || as[0] != m || bs[0] != n || as[1] != bs[1] || as[1] % 16 ||
      cs != std::vector<int64_t>{m, n}) {
    L.unsupported(call.range, "tcgen05.mma with these operand shapes");
    return std::nullopt;
  }
  auto accumulate = L.accumulateFlag(call);
  if (!accumulate)
    return std::nullopt;
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_s = 0; cake_s < " + std::to_string(as[1] / 16) + "; ++cake_s)");
  L.w.line("cake::rt::tcgen05_mma_f16(" + tmemAddress(*acc, "0", "0") + ", " + smemDescriptor(L, *a, "cake_s * 16") +
           ", " + smemDescriptor(L, *b, "cake_s * 16") + ", cake::rt::tcgen05_idesc_f16(" + std::to_string(m) +
           ", " + std::to_string(n) + ", true, true, false, false), (" + *accumulate + ") || cake_s > 0);");
  L.w.close();
  return Val{};
}

std::optional<Val> lowerTcgen05Ld(Lowerer &L, const Expr &call) {
  auto src = L.view(*positionalArgs(call)[0]);
  if (!src)
    return std::nullopt;
  const Expr *shape = keywordArg(call, "shape");
  std::vector<int64_t> s = src->viewShape();
  int64_t w = s.size() == 2 ? s[1] : 0;
  if (src->kind != Val::TmemView || !shape || shape->kind != ExprKind::Name || shape->text != "t32x32b" ||
      s.size() != 2 || s[0] != 32 || (w != 1 && w != 2 && w != 4 && w != 8 && w != 16 && w != 32)) {
    L.unsupported(call.range, "tcgen05.ld other than t32x32b of 32 lanes by 1 to 32 columns");
    return std::nullopt;
  }
  Val f;
  f.kind = Val::Frag;
  f.layout = Layout::TmemRow;
  f.cxx = L.temp("tmem");
  f.shape = s;
  f.elem = *src->type->elem;
  L.w.line("u32 " + f.cxx + "[" + std::to_string(w) + "];");
  L.w.line("cake::rt::tcgen05_ld_32x32b<" + std::to_string(w) + ">(" + f.cxx + ", " + tmemAddress(*src, "0", "0") +
           ");");
  return f;
}

std::optional<Val> lowerTcgen05Commit(Lowerer &L, const Expr &call) {
  auto b = L.view(*positionalArgs(call)[0]);
  if (!b || b->kind != Val::Barrier) {
    L.unsupported(call.range, "tcgen05.commit of this operand");
    return std::nullopt;
  }
  std::string idx = b->origin.empty() ? "0" : b->origin[0];
  L.w.line("cake::rt::tcgen05_commit((" + b->base + " + 8u * u32(" + idx + ")));");
  return Val{};
}

std::optional<Val> lowerTcgen05Done(Lowerer &, const Expr &) {
  Val v;
  v.kind = Val::Event;
  v.event = OpId::Tcgen05Done;
  return v;
}

} // namespace

void addTcgen05Lowerings(OpLowerings &t) {
  t[OpId::Tcgen05Mma] = lowerTcgen05Mma;
  t[OpId::Tcgen05Ld] = lowerTcgen05Ld;
  t[OpId::Tcgen05Commit] = lowerTcgen05Commit;
  t[OpId::Tcgen05Done] = lowerTcgen05Done;
}

} // namespace cake::lower
