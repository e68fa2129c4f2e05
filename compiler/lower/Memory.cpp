//===- Memory.cpp - TMA, cp.async, global stores, raw mbarriers -----------===//
//
// Part of CAKE. TMA copies become one cp.async.bulk.tensor per panel of the
// shared tile (inner box = swizzle bytes), over a tensor map the launcher
// encodes (LoweredKernel::maps); a load into a ring slot signals the slot's
// full barrier, whose commit counts the load's bytes (sema::commitFacts). cp.async tiles are split into 16-byte
// chunks over the threads named by `by =`, each chunk's destination
// swizzled, clipped chunks zero-filled (src-size 0). Global stores of
// accumulator fragments write bf16 pairs, predicated by the bounds with
// `clip = true`.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include <algorithm>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

std::string dimCxx(Lowerer &L, const Dim &d) { return L.dimCxx(d); }

std::string barrierAddress(const Val &b) {
  std::string idx = b.origin.empty() ? "0" : b.origin[0];
  return "(" + b.base + " + 8u * u32(" + idx + "))";
}

} // namespace

std::string Lowerer::dimCxx(const Dim &d) {
  if (d.value)
    return std::to_string(*d.value);
  if (d.expr)
    if (auto s = scalar(*d.expr))
      return *s;
  return cxxName(d.symbol);
}

int64_t provenAlignment(const Val &g, const Lowerer &L) {
  // the base: align(n), else the element size; then each dimension whose
  // origin is not 0 moves it by a multiple of that dimension's stride, whose
  // constant factors (the element size times the constant inner dimensions,
  // and what the kernel's facts say a size symbol is a multiple of) bound its
  // alignment
  const Type &t = *g.type;
  int64_t eb = elemBytes(*t.elem), align = t.align.value_or(eb);
  auto pow2 = [](int64_t v) { return v > 0 ? v & -v : int64_t(1); };
  for (size_t d = 0; d < t.dims.size() && d < g.origin.size(); ++d) {
    if (g.origin[d] == "0")
      continue;
    int64_t stride = eb;
    for (size_t i = d + 1; i < t.dims.size(); ++i) {
      // a size symbol: the symbol the dimension binds, or the name it repeats (the second `D` of a kernel)
      const Dim &dim = t.dims[i];
      const syntax::Expr *name = dim.expr ? stripParens(dim.expr) : nullptr;
      std::string symbol = !dim.symbol.empty() ? dim.symbol
                           : name && name->kind == syntax::ExprKind::Name ? name->text
                                                                          : std::string();
      stride *= dim.value.value_or(symbol.empty() ? 1 : L.knownDivisor(symbol));
    }
    int64_t step = pow2(stride);
    // a constant origin along this dimension moves the base by origin * stride
    if (std::all_of(g.origin[d].begin(), g.origin[d].end(), [](char c) { return std::isdigit(uint8_t(c)); }))
      step = pow2(std::stoll(g.origin[d]) * stride);
    align = std::min(align, step);
  }
  return align;
}

std::string Lowerer::globalAddress(const Val &g, const std::string &lastOffset) const {
  std::string flat;
  size_t rank = g.origin.size();
  for (size_t d = 0; d < rank; ++d) {
    std::string idx = g.origin[d];
    if (d + 1 == rank && lastOffset != "0")
      idx = "(" + idx + " + " + lastOffset + ")";
    const Dim &dim = g.type->dims[d];
    std::string extent = dim.value ? std::to_string(*dim.value) : dim.symbol.empty() ? "" : cxxName(dim.symbol);
    if (extent.empty() && dim.expr)
      extent = printed(*dim.expr);
    flat = d == 0 ? "size_t(" + idx + ")" : "(" + flat + " * size_t(" + extent + ") + size_t(" + idx + "))";
  }
  return "(" + g.base + " + " + flat + ")";
}

namespace {

/// The shared operand's indices for panel \p p: zeros, then the panel's first column.
std::vector<std::string> panelIndex(const Val &shared, int64_t p, int64_t panelElems) {
  std::vector<std::string> idx(shared.viewShape().size(), "0");
  if (!idx.empty())
    idx.back() = std::to_string(p * panelElems);
  return idx;
}

/// Emits one TMA instruction per panel of \p shared; \p emit gets the
/// shared address and the coordinates (innermost first).
bool forEachPanel(Lowerer &L, const Val &global, const Val &shared, SourceRange at,
                  const std::function<void(const std::string &, const std::vector<std::string> &)> &emit) {
  std::vector<int64_t> box = shared.viewShape();
  if (box.empty()) {
    L.unsupported(at, "a TMA copy of a scalar");
    return false;
  }
  int64_t eb = elemBytes(*shared.type->elem);
  int64_t inner = box.back(), panelElems = shared.type->swizzle ? shared.type->swizzle / eb : inner;
  if (inner % panelElems) {
    L.unsupported(at, "a TMA box whose inner extent is not a whole number of swizzle panels");
    return false;
  }
  size_t rank = global.origin.size();
  for (int64_t p = 0; p < inner / panelElems; ++p) {
    std::vector<std::string> coords;
    for (size_t i = rank; i-- > 0;) {
      std::string c = global.origin[i];
      if (i == rank - 1 && p)
        c = "(" + c + " + " + std::to_string(p * panelElems) + ")";
      coords.push_back(c);
    }
    emit(L.sharedAddress(shared, panelIndex(shared, p, panelElems)), coords);
  }
  return true;
}

std::string joinArgs(const std::vector<std::string> &v) {
  std::string s;
  for (const std::string &x : v)
    s += ", " + x;
  return s;
}

std::optional<Val> lowerTmaLoad(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto src = L.view(*args[0]), dst = L.view(*args[1]);
  if (!src || !dst)
    return std::nullopt;
  if (src->kind != Val::GlobalView || dst->kind != Val::SharedView) {
    L.unsupported(call.range, "tma.load other than global to shared");
    return std::nullopt;
  }
  if (keywordArg(call, "multicast")) {
    L.unsupported(call.range, "tma.load with multicast");
    return std::nullopt;
  }
  std::string bar;
  if (const Expr *b = keywordArg(call, "barrier")) {
    auto bv = L.view(*b);
    if (!bv || bv->kind != Val::Barrier) {
      L.unsupported(b->range, "this barrier operand");
      return std::nullopt;
    }
    bar = barrierAddress(*bv);
  } else if (dst->ring && dst->writeToken) {
    if (L.loopDepth > L.txLoopDepth[dst->cxx]) {
      // the expect-tx count is summed statically: a copy that runs once per
      // iteration of a loop inside produce .. commit would be counted once
      L.unsupported(call.range, "a TMA copy into a ring slot inside a loop between its produce and commit");
      return std::nullopt;
    }
    const RingLayout *rl = L.smem.ring(dst->ring->name);
    bar = L.barrierAddress(*rl, true, dst->stage); // its bytes are in the commit's count (sema::commitFacts)
  } else {
    L.unsupported(call.range, "a tma.load without a barrier or a ring slot");
    return std::nullopt;
  }
  int map = L.tensorMap(*src, *dst, call.range);
  size_t rank = src->origin.size();
  forEachPanel(L, *src, *dst, call.range, [&](const std::string &smem, const std::vector<std::string> &c) {
    L.w.line("cake::rt::tma_load_" + std::to_string(rank) + "d(" + smem + ", " + bar + ", &cake_tmap" +
             std::to_string(map) + joinArgs(c) + ");");
  });
  return Val{};
}

std::optional<Val> lowerTmaStore(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto src = L.view(*args[0]), dst = L.view(*args[1]);
  if (!src || !dst)
    return std::nullopt;
  if (src->kind != Val::SharedView || dst->kind != Val::GlobalView) {
    L.unsupported(call.range, "tma.store other than shared to global");
    return std::nullopt;
  }
  int map = L.tensorMap(*dst, *src, call.range);
  size_t rank = dst->origin.size();
  forEachPanel(L, *dst, *src, call.range, [&](const std::string &smem, const std::vector<std::string> &c) {
    L.w.line("cake::rt::tma_store_" + std::to_string(rank) + "d(&cake_tmap" + std::to_string(map) + ", " + smem +
             joinArgs(c) + ");");
  });
  L.w.line("cake::rt::bulk_commit_group();");
  return Val{};
}

std::optional<Val> lowerTmaStoreWait(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto n = L.constant(*args[0]);
  if (!n) {
    L.unsupported(args[0]->range, "a tma.store_wait count that is not a constant");
    return std::nullopt;
  }
  const Expr *complete = keywordArg(call, "complete");
  bool full = complete && L.constant(*complete).value_or(0);
  L.w.line(std::string("cake::rt::") + (full ? "bulk_wait_group<" : "bulk_wait_group_read<") +
           std::to_string(*n) + ">();");
  return Val{};
}

/// Element (row, col) of a 2-D global parameter as a C++ pointer expression.
/// The address of element (row, col) of the last two dimensions of global
/// view \p g; its leading dimensions (a batch) at their scalar indices.
std::string globalElement(Lowerer &L, const Val &g, const std::string &row, const std::string &col) {
  const size_t rank = g.type->dims.size();
  std::string flat = "size_t(" + row + ")";
  if (rank > 2) {
    std::string lead = "size_t(" + g.origin[0] + ")";
    for (size_t d = 1; d + 2 < rank; ++d)
      lead = "(" + lead + " * size_t(" + dimCxx(L, g.type->dims[d]) + ") + size_t(" + g.origin[d] + "))";
    flat = "(" + lead + " * size_t(" + dimCxx(L, g.type->dims[rank - 2]) + ") + " + flat + ")";
  }
  return "(" + g.base + " + " + flat + " * size_t(" + dimCxx(L, g.type->dims[rank - 1]) + ") + size_t(" + col +
         "))";
}

std::optional<Val> lowerCpAsync(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto src = L.view(*args[0]), dst = L.view(*args[1]);
  if (!src || !dst)
    return std::nullopt;
  std::vector<int64_t> box = dst->viewShape();
  // a 2-D tile of the last two dimensions; leading ones (a batch) are indexed by scalars
  if (src->kind != Val::GlobalView || dst->kind != Val::SharedView || src->origin.size() < 2 || box.size() != 2) {
    L.unsupported(call.range, "cp.async other than a 2-D global tile into shared memory");
    return std::nullopt;
  }
  const Expr *by = keywordArg(call, "by");
  const Role *team = by && by->kind == ExprKind::Name ? L.k.role(by->text) : nullptr;
  if (!team) {
    // without `by =`, the role's issue unit copies (language.md 10.4)
    if (!L.role || L.role->role->issue == IssueMode::Elect || by) {
      L.unsupported(call.range, "cp.async without `by =` outside a warp or warpgroup unit");
      return std::nullopt;
    }
  }
  int64_t eb = elemBytes(*dst->type->elem), rowChunks = box[1] * eb / 16;
  if (box[1] * eb % 16) {
    L.unsupported(call.range, "cp.async of rows that are not whole 16-byte chunks");
    return std::nullopt;
  }
  bool unitWarp = !team && L.role->role->issue == IssueMode::Warp;
  int64_t chunks = box[0] * rowChunks, threads = team ? L.threadsOf(*team) : unitWarp ? 32 : 128;
  std::string me = team ? "(int(threadIdx.x) - " + std::to_string(team->warpBegin.value_or(0) * 32) + ")"
                  : unitWarp ? std::string("int(cake::rt::lane_id())")
                             : std::string("int(threadIdx.x % 128)");
  bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  const size_t rank = src->origin.size();
  std::string R = dimCxx(L, src->type->dims[rank - 2]), C = dimCxx(L, src->type->dims[rank - 1]);
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_i = 0; cake_i < " + std::to_string((chunks + threads - 1) / threads) + "; ++cake_i)");
  L.w.line("const int cake_c = cake_i * " + std::to_string(threads) + " + " + me + ";");
  if (chunks % threads)
    L.w.line("if (cake_c >= " + std::to_string(chunks) + ") break;");
  L.w.line("const int cake_r = cake_c / " + std::to_string(rowChunks) + ", cake_col = cake_c % " +
           std::to_string(rowChunks) + " * " + std::to_string(16 / eb) + ";");
  L.w.line("const int cake_gr = " + src->origin[rank - 2] + " + cake_r, cake_gc = " + src->origin[rank - 1] +
           " + cake_col;");
  std::string dstAddr = L.sharedAddress(*dst, {"cake_r", "cake_col"});
  L.w.line("const u32 cake_dst = cake::rt::swizzle<" + std::to_string(dst->type->swizzle) + ">(" + dstAddr + ");");
  if (clip) {
    L.w.line("const int cake_bytes = cake_gr < " + R + " && cake_gc < " + C + " ? min(16, (" + C +
             " - cake_gc) * " + std::to_string(eb) + ") : 0;");
    L.w.line("cake::rt::cp_async_cg<16>(cake_dst, cake_bytes ? " + globalElement(L, *src, "cake_gr", "cake_gc") +
             " : " + src->base + ", cake_bytes);");
  } else {
    L.w.line("cake::rt::cp_async_cg<16>(cake_dst, " + globalElement(L, *src, "cake_gr", "cake_gc") + ");");
  }
  L.w.close();
  return Val{};
}

std::optional<Val> lowerCpAsyncWait(Lowerer &L, const Expr &call) {
  auto n = L.constant(*positionalArgs(call)[0]);
  if (!n) {
    L.unsupported(call.range, "a cp.async_wait count that is not a constant");
    return std::nullopt;
  }
  L.w.line("cake::rt::cp_async_wait_group<" + std::to_string(*n) + ">();");
  return Val{};
}

/// st.global of tcgen05.ld rows: thread l holds row l of a [32, W] fp32 tile.
std::optional<Val> storeTmemRows(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  Elem out = v.cast.value_or(v.elem);
  int64_t width = v.shape[1];
  if (out != *dst.type->elem || (out != Elem::BF16 && out != Elem::FP32) || width % 2) {
    L.unsupported(call.range, "st.global of tensor-memory rows to this element type");
    return std::nullopt;
  }
  bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  std::string R = dimCxx(L, dst.type->dims[0]), C = dimCxx(L, dst.type->dims[1]);
  L.w.line("const int cake_r = " + dst.origin[0] + " + int(cake::rt::lane_id());");
  L.w.open(clip ? "if (cake_r < " + R + ")" : "");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_c = 0; cake_c < " + std::to_string(width) + "; cake_c += 2)");
  L.w.line("const int cake_col = " + dst.origin[1] + " + cake_c;");
  std::string ptr = globalElement(L, dst, "cake_r", "cake_col");
  std::string a = "__uint_as_float(" + v.cxx + "[cake_c])", b = "__uint_as_float(" + v.cxx + "[cake_c + 1])";
  if (out == Elem::BF16) {
    L.w.line("const u32 cake_p = cake::rt::pack_bf16x2(" + a + ", " + b + ");");
    L.w.line("if (cake_col + 1 < " + C + " && (" + C + ") % 2 == 0) *reinterpret_cast<u32 *>(" + ptr +
             ") = cake_p;");
    L.w.line("else if (cake_col < " + C + ") { " + ptr + "[0] = u16(cake_p & 0xffffu); if (cake_col + 1 < " + C +
             ") " + ptr + "[1] = u16(cake_p >> 16); }");
  } else {
    L.w.line("if (cake_col < " + C + ") " + ptr + "[0] = " + a + ";");
    L.w.line("if (cake_col + 1 < " + C + ") " + ptr + "[1] = " + b + ";");
  }
  L.w.close();
  L.w.close();
  return Val{};
}

/// st.global of an mma.sync accumulator (cast to bf16 or fp16, or fp32).
std::optional<Val> lowerStGlobal(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto v = L.value(*args[0]);
  auto dst = L.view(*args[1]);
  if (!v || !dst)
    return std::nullopt;
  if (dst->kind == Val::GlobalView && v->kind == Val::Frag && v->layout == Layout::WgmmaAcc)
    return storeAccTile(L, call, *v, *dst);
  if (v->kind == Val::Frag && v->layout == Layout::Thread)
    return storeThreadVector(L, call, *v, *dst);
  if (keywordArg(call, "mask")) {
    L.unsupported(call.range, "st.global with a mask other than of a wgmma accumulator tile");
    return std::nullopt;
  }
  if (v && dst && v->kind == Val::Frag && v->layout == Layout::TmemRow && dst->kind == Val::GlobalView &&
      dst->origin.size() == 2)
    return storeTmemRows(L, call, *v, *dst);
  bool element = std::all_of(dst->extent.begin(), dst->extent.end(), [](int64_t e) { return e == 1; });
  if (dst->kind == Val::GlobalView && !element && dst->viewShape().size() == 1 &&
      (v->kind == Val::Scalar || (v->kind == Val::Frag && v->layout == Layout::Blocked)))
    return storeBlockedRow(L, call, *v, *dst);
  if (dst->kind == Val::GlobalView && v->kind == Val::Scalar && element)
    return storeScalarElement(L, call, *v, *dst);
  if (dst->kind == Val::GlobalView && v->kind == Val::Scalar && !element) {
    L.unsupported(call.range, "st.global of a scalar into a view of more than one element, other than a row");
    return std::nullopt;
  }
  if (v && dst && dst->kind == Val::GlobalView && v->kind == Val::Frag && v->layout == Layout::Rows)
    return storeFragmentRows(L, call, *v, *dst);
  if (v->kind != Val::Frag || v->layout != Layout::MmaAcc || dst->kind != Val::GlobalView ||
      dst->origin.size() != 2) {
    L.unsupported(call.range, "st.global other than an mma.sync or wgmma accumulator to a 2-D global tile");
    return std::nullopt;
  }
  Elem out = v->cast.value_or(v->elem);
  if (out != *dst->type->elem) {
    L.unsupported(call.range, "st.global converting to an element type other than the destination's");
    return std::nullopt;
  }
  bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  std::string R = dimCxx(L, dst->type->dims[0]), C = dimCxx(L, dst->type->dims[1]);
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_i = 0; cake_i < " + std::to_string(v->shape[0] / 16) + "; ++cake_i)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_j = 0; cake_j < " + std::to_string(v->shape[1] / 8) + "; ++cake_j)");
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_h = 0; cake_h < 2; ++cake_h)");
  L.w.line("const int cake_r = " + dst->origin[0] + " + cake_i * 16 + int(cake::rt::lane_id()) / 4 + cake_h * 8;");
  L.w.line("const int cake_c = " + dst->origin[1] + " + cake_j * 8 + int(cake::rt::lane_id()) % 4 * 2;");
  std::string a = v->cxx + "[cake_i][cake_j][cake_h * 2]", b = v->cxx + "[cake_i][cake_j][cake_h * 2 + 1]";
  std::string ptr = globalElement(L, *dst, "cake_r", "cake_c");
  if (clip)
    L.w.open("if (cake_r < " + R + " && cake_c < " + C + ")");
  else
    L.w.open("");
  if (out == Elem::FP32) {
    L.w.line("*" + ptr + " = " + a + ";");
    L.w.line("if (cake_c + 1 < " + C + ") " + ptr + "[1] = " + b + ";");
  } else if (out == Elem::BF16 || out == Elem::FP16) {
    std::string pack = out == Elem::BF16 ? "cake::rt::pack_bf16x2" : "cake::rt::pack_f16x2";
    L.w.line("const u32 cake_p = " + pack + "(" + a + ", " + b + ");");
    L.w.line("if (cake_c + 1 < " + C + " && (" + C + ") % 2 == 0) *reinterpret_cast<u32 *>(" + ptr +
             ") = cake_p;");
    L.w.line("else { " + ptr + "[0] = u16(cake_p & 0xffffu); if (cake_c + 1 < " + C + ") " + ptr +
             "[1] = u16(cake_p >> 16); }");
  } else {
    L.unsupported(call.range, "st.global of this element type");
  }
  L.w.close();
  L.w.close();
  L.w.close();
  L.w.close();
  return Val{};
}

std::optional<Val> barrierOperand(Lowerer &L, const Expr &call, std::string &address) {
  auto args = positionalArgs(call);
  auto b = L.view(*args[0]);
  if (!b || b->kind != Val::Barrier) {
    L.unsupported(args[0]->range, "this barrier operand");
    return std::nullopt;
  }
  address = barrierAddress(*b);
  return b;
}

std::optional<Val> lowerMbarrierArriveExpectTx(Lowerer &L, const Expr &call) {
  std::string bar;
  const Expr *bytes = keywordArg(call, "bytes");
  auto n = bytes ? L.scalar(*bytes) : std::nullopt;
  if (!barrierOperand(L, call, bar) || !n)
    return std::nullopt;
  L.w.line("cake::rt::mbarrier_arrive_expect_tx(" + bar + ", " + *n + ");");
  return Val{};
}

std::optional<Val> lowerMbarrierArrive(Lowerer &L, const Expr &call) {
  std::string bar;
  if (!barrierOperand(L, call, bar))
    return std::nullopt;
  if (keywordArg(call, "cta") || keywordArg(call, "count")) {
    L.unsupported(call.range, "mbarrier.arrive with a count or a remote CTA");
    return std::nullopt;
  }
  L.w.line("cake::rt::mbarrier_arrive(" + bar + ");");
  return Val{};
}

std::optional<Val> lowerMbarrierWait(Lowerer &L, const Expr &call) {
  std::string bar;
  const Expr *parity = keywordArg(call, "parity");
  auto p = parity ? L.scalar(*parity) : std::nullopt;
  if (!barrierOperand(L, call, bar) || !p)
    return std::nullopt;
  auto args = positionalArgs(call);
  L.waitParity(bar, "u32(" + *p + ")", call.range, "barrier '" + L.printed(*args[0]) + "' (a raw mbarrier wait)");
  return Val{};
}

} // namespace

void addMemoryLowerings(OpLowerings &t) {
  t[OpId::TmaLoad] = lowerTmaLoad;
  t[OpId::TmaStore] = lowerTmaStore;
  t[OpId::TmaStoreWait] = lowerTmaStoreWait;
  t[OpId::CpAsync] = lowerCpAsync;
  t[OpId::CpAsyncWait] = lowerCpAsyncWait;
  t[OpId::StGlobal] = lowerStGlobal;
  t[OpId::MbarrierArriveExpectTx] = lowerMbarrierArriveExpectTx;
  t[OpId::MbarrierArrive] = lowerMbarrierArrive;
  t[OpId::MbarrierWait] = lowerMbarrierWait;
}

} // namespace cake::lower
