//===- Tiles.cpp - Index tensors, broadcasts, transposed views, whole tiles ----===//
//
// Part of CAKE. The view operations of the primitive table (language.md 10.13)
// over the register layouts of language.md 4.6, and whole register tiles moved
// between memory and the wgmma accumulator layout:
//   tile.iota(like = x, axis = a)  the index along axis a of x, held as x holds
//                                  that axis: a rows vector (axis 0 of an MMA
//                                  tile), a cols vector (axis 1), or a warp's
//                                  blocked vector's element indices;
//   tile.expand(x, a)              a rows vector at axis 1 or a cols vector at
//                                  axis 0: nothing moves (they broadcast into
//                                  a tile context by index arithmetic);
//   tile.t(v)                      a shared view read MN-major by wgmma.mma
//                                  (Mma.cpp; Lowerer::view refuses it elsewhere);
//   ld.global / ld.shared (v, like = acc) and st.global / st.shared (acc, v,
//   mask = m): a 2-D view [64, N] element pair by element pair, the thread's
//   elements (row 16 w + l / 4 + 8 h, columns 8 c + 2 (l % 4) + {0, 1}).
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

/// The first row of a warpgroup's wgmma tile, or of a warp's [16, N] mma.sync tile, that this thread holds.
std::string firstRow(const Val &tile) {
  return std::string(tile.warpTile ? "" : "cake_role_warp % 4 * 16 + ") + "int(cake::rt::lane_id()) / 4";
}

/// Whether \p f is an MMA tile whose rows and columns vectors the lowering knows: a warpgroup's wgmma
/// accumulator [64, N] or a warp's mma.sync accumulator [16, N].
bool isTile(const Val &f) {
  return f.kind == Val::Frag && (f.layout == Layout::WgmmaAcc || (f.layout == Layout::MmaAcc && f.shape[0] == 16));
}

std::optional<Val> lowerTileIota(Lowerer &L, const Expr &call) {
  const Expr *likeArg = keywordArg(call, "like"), *axisArg = keywordArg(call, "axis");
  auto like = likeArg ? L.value(*likeArg) : std::nullopt;
  auto axis = axisArg ? L.constant(*axisArg) : std::nullopt;
  if (!like)
    return std::nullopt;
  Val f;
  f.kind = Val::Frag;
  f.elem = Elem::I32;
  f.cxx = L.temp("iota");
  f.warpTile = like->warpTile || like->layout == Layout::MmaAcc;
  const bool plainVector = like->kind == Val::Frag && !like->chains && !like->topk;
  if (axis && plainVector && ((isTile(*like) && *axis == 0) || (like->layout == Layout::Rows && *axis == 0))) {
    f.layout = Layout::Rows;
    f.shape = {f.warpTile ? 16 : 64};
    L.w.line("const int " + f.cxx + "[2] = {" + firstRow(f) + ", " + firstRow(f) + " + 8};");
    return f;
  }
  if (axis && plainVector && ((isTile(*like) && *axis == 1) || (like->layout == Layout::Cols && *axis == 0))) {
    f.layout = Layout::Cols;
    f.shape = {like->layout == Layout::Cols ? like->shape[0] : like->shape[1]};
    const std::string n = std::to_string(f.shape[0] / 4);
    L.w.line("int " + f.cxx + "[" + n + "];");
    L.w.line("#pragma unroll");
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) " + f.cxx +
             "[cake_e] = cake_e / 2 * 8 + int(cake::rt::lane_id()) % 4 * 2 + cake_e % 2;");
    return f;
  }
  if (axis && *axis == 0 && like->kind == Val::Frag && like->layout == Layout::Thread) {
    f.layout = Layout::Thread;
    f.shape = like->shape;
    f.perThread = like->perThread;
    const std::string n = std::to_string(f.perThread);
    L.w.line("int " + f.cxx + "[" + n + "];");
    L.w.line("#pragma unroll");
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) " + f.cxx + "[cake_e] = cake_e;");
    return f;
  }
  if (axis && *axis == 0 && plainVector && like->layout == Layout::Blocked) {
    // element e of lane l: chunk e / chunk is the row's chunk (e / chunk) * 32 + l
    f.layout = Layout::Blocked;
    f.shape = like->shape;
    f.perThread = like->perThread;
    f.chunk = like->chunk;
    const std::string n = std::to_string(f.perThread), c = std::to_string(f.chunk);
    L.w.line("int " + f.cxx + "[" + n + "];");
    L.w.line("#pragma unroll");
    L.w.line("for (int cake_e = 0; cake_e < " + n + "; ++cake_e) " + f.cxx + "[cake_e] = (cake_e / " + c +
             " * 32 + int(cake::rt::lane_id())) * " + c + " + cake_e % " + c + ";");
    return f;
  }
  L.unsupported(call.range, "tile.iota other than along the rows (axis = 0) or columns (axis = 1) of an MMA "
                            "tile, or along a rows, cols, warp's blocked or per(thread) vector (axis = 0)");
  return std::nullopt;
}

std::optional<Val> lowerTileExpand(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto x = L.value(*args[0]);
  auto axis = args.size() > 1 ? L.constant(*args[1]) : std::nullopt;
  if (!x)
    return std::nullopt;
  if (x->kind == Val::Scalar) // a scalar broadcasts as it is
    return x;
  if (axis && x->kind == Val::Frag && !x->chains && !x->topk &&
      ((x->layout == Layout::Rows && *axis == 1) || (x->layout == Layout::Cols && *axis == 0)))
    return x;
  L.unsupported(call.range, "tile.expand other than of a rows vector at axis 1 or a cols vector at axis 0");
  return std::nullopt;
}

std::optional<Val> lowerTileT(Lowerer &L, const Expr &call) {
  auto v = L.value(*positionalArgs(call)[0]);
  if (!v)
    return std::nullopt;
  if (v->kind != Val::SharedView || v->viewShape().size() != 2) {
    L.unsupported(call.range, "tile.t other than of a 2-D shared view (an MN-major wgmma.mma operand)");
    return std::nullopt;
  }
  v->transposed = !v->transposed;
  return v;
}

/// The dimensions of a view that are kept (sliced), in order.
std::vector<size_t> keptDims(const Val &v) {
  std::vector<size_t> out;
  for (size_t d = 0; d < v.kept.size(); ++d)
    if (v.kept[d])
      out.push_back(d);
  return out;
}

/// Global view \p g moved to its element (\p row, \p col) (C++).
Val globalAt(const Val &g, const std::string &row, const std::string &col) {
  std::vector<size_t> kd = keptDims(g);
  Val at = g;
  at.origin[kd[0]] = "(" + g.origin[kd[0]] + " + " + row + ")";
  at.origin[kd[1]] = "(" + g.origin[kd[1]] + " + " + col + ")";
  return at;
}

/// Why view \p v cannot hold a whole wgmma tile of \p shape, or "".
std::string tileViewProblem(const Val &v, const std::vector<int64_t> &shape) {
  if ((v.kind != Val::GlobalView && v.kind != Val::SharedView) || v.viewShape() != shape)
    return "a 2-D view of the tile's shape";
  Elem e = *v.type->elem;
  if (e != Elem::FP32 && e != Elem::I32 && e != Elem::BF16 && e != Elem::FP16)
    return "a view of fp32, i32, bf16 or fp16";
  if (v.kind == Val::SharedView && v.type->swizzle && keptDims(v).back() + 1 != v.kept.size())
    return "a swizzled shared view whose last dimension is indexed";
  return "";
}

/// The shared address of element (\p row, \p col) of shared view \p v, swizzled as the tile was written.
std::string sharedAt(Lowerer &L, const Val &v, const std::string &row, const std::string &col) {
  return "cake::rt::swizzle<" + std::to_string(v.type->swizzle) + ">(" + L.sharedAddress(v, {row, col}) + ")";
}

} // namespace

std::optional<Val> loadAccTile(Lowerer &L, const Expr &call, const Val &src, const Val &like) {
  std::string why = like.layout != Layout::WgmmaAcc ? "like a wgmma accumulator" : tileViewProblem(src, like.shape);
  if (why.empty() && (keywordArg(call, "mask") || keywordArg(call, "clip")))
    why = "without mask or clip";
  if (!why.empty()) {
    L.unsupported(call.range, std::string(calleeName(call)) + " of a whole tile other than " + why);
    return std::nullopt;
  }
  Val f;
  f.kind = Val::Frag;
  f.layout = Layout::WgmmaAcc;
  f.shape = like.shape;
  f.elem = *src.type->elem;
  f.cxx = L.temp("tile");
  const bool wide = elemBytes(f.elem) == 4;
  const std::string n = std::to_string(f.shape[1] / 2);
  L.w.line(std::string(f.elem == Elem::FP32 ? "float " : f.elem == Elem::I32 ? "int " : "u16 ") + f.cxx + "[" + n +
           "];");
  L.w.line("#pragma unroll");
  // pair p = 2 c + h: row 8 h of the thread's, columns 8 c + 2 (l % 4) and the next
  L.w.open("for (int cake_p = 0; cake_p < " + std::to_string(f.shape[1] / 4) + "; ++cake_p)");
  L.w.line("const int cake_r = " + firstRow(f) + " + cake_p % 2 * 8;");
  L.w.line("const int cake_c = cake_p / 2 * 8 + int(cake::rt::lane_id()) % 4 * 2;");
  const std::string a = f.cxx + "[2 * cake_p]", b = f.cxx + "[2 * cake_p + 1]";
  if (src.kind == Val::GlobalView) {
    const std::string ptr = L.globalAddress(globalAt(src, "cake_r", "cake_c"), "0");
    L.w.line(a + " = " + ptr + "[0]; " + b + " = " + ptr + "[1];");
  } else {
    // a pair never crosses a 16-byte swizzle unit (its first column is even)
    const std::string at = sharedAt(L, src, "cake_r", "cake_c");
    const std::string word = f.elem == Elem::FP32 ? "__uint_as_float" : "int";
    if (wide)
      L.w.line("const u32 cake_a = " + at + "; " + a + " = " + word + "(cake::rt::ld_shared_u32(cake_a)); " + b +
               " = " + word + "(cake::rt::ld_shared_u32(cake_a + 4u));");
    else
      L.w.line("const u32 cake_w = cake::rt::ld_shared_u32(" + at + "); " + a + " = u16(cake_w & 0xffffu); " + b +
               " = u16(cake_w >> 16);");
  }
  L.w.close();
  return f;
}

std::optional<Val> storeAccTile(Lowerer &L, const Expr &call, const Val &v, const Val &dst) {
  const Elem out = v.cast.value_or(v.elem);
  std::string why = tileViewProblem(dst, v.shape);
  if (why.empty() && out != *dst.type->elem)
    why = "into a view of the value's element type (math.cast it)";
  if (!why.empty()) {
    L.unsupported(call.range, std::string(calleeName(call)) + " of a wgmma accumulator tile other than " + why);
    return std::nullopt;
  }
  const Expr *maskArg = keywordArg(call, "mask");
  std::optional<Val> mask = maskArg ? L.value(*maskArg) : std::nullopt;
  if (maskArg && (!mask || (mask->kind != Val::Scalar && mask->kind != Val::Frag)))
    return std::nullopt;
  const bool clip = keywordArg(call, "clip") && L.constant(*keywordArg(call, "clip")).value_or(0);
  Val ctx = v;
  ctx.warpTile = false;
  auto element = [&](const Val &f, const std::string &idx) -> std::optional<std::string> {
    if (f.kind == Val::Scalar)
      return f.cxx;
    auto e = L.fragElement(f, Layout::WgmmaAcc, idx);
    if (!e)
      L.unsupported(maskArg && &f == &*mask ? maskArg->range : call.range,
                    "a mask in a layout that does not broadcast into the tile");
    return e;
  };
  auto a = element(v, "2 * cake_p"), b = element(v, "2 * cake_p + 1");
  std::optional<std::string> ma = "true", mb = "true";
  if (mask) {
    ma = element(*mask, "2 * cake_p");
    mb = element(*mask, "2 * cake_p + 1");
  }
  if (!a || !b || !ma || !mb)
    return std::nullopt;
  std::vector<size_t> kd = keptDims(dst);
  const std::vector<Dim> &dims = dst.type->dims;
  L.w.line("#pragma unroll");
  L.w.open("for (int cake_p = 0; cake_p < " + std::to_string(v.shape[1] / 4) + "; ++cake_p)");
  L.w.line("const int cake_r = " + firstRow(ctx) + " + cake_p % 2 * 8;");
  L.w.line("const int cake_c = cake_p / 2 * 8 + int(cake::rt::lane_id()) % 4 * 2;");
  std::string inA = "(" + *ma + ")", inB = "(" + *mb + ")";
  if (clip && dst.kind == Val::GlobalView) {
    const std::string rows = L.dimCxx(dims[kd[0]]), cols = L.dimCxx(dims[kd[1]]);
    const std::string r = "(" + dst.origin[kd[0]] + ") + cake_r", c = "(" + dst.origin[kd[1]] + ") + cake_c";
    inA += " && " + r + " < " + rows + " && " + c + " < " + cols;
    inB += " && " + r + " < " + rows + " && " + c + " + 1 < " + cols;
  }
  L.w.line("const bool cake_ma = " + inA + ", cake_mb = " + inB + ";");
  // the pair's bits: two 16-bit values packed in one word, or two words
  std::string bitsA, bitsB, packed;
  if (out == Elem::BF16 || out == Elem::FP16) {
    packed = std::string(out == Elem::BF16 ? "cake::rt::pack_bf16x2(" : "cake::rt::pack_f16x2(") + *a + ", " + *b +
             ")";
  } else if (out == Elem::FP32) {
    bitsA = "__float_as_uint(" + *a + ")", bitsB = "__float_as_uint(" + *b + ")";
  } else {
    bitsA = "u32(int(" + *a + "))", bitsB = "u32(int(" + *b + "))";
  }
  if (!packed.empty())
    L.w.line("const u32 cake_w = " + packed + ";");
  else
    L.w.line("const u32 cake_w0 = " + bitsA + ", cake_w1 = " + bitsB + ";");
  if (dst.kind == Val::SharedView) {
    const std::string at = sharedAt(L, dst, "cake_r", "cake_c");
    if (!packed.empty()) {
      L.w.line("const u32 cake_a = " + at + ";");
      L.w.line("if (cake_ma && cake_mb) cake::rt::st_shared_u32(cake_a, cake_w);");
      L.w.line("else if (cake_ma || cake_mb) cake::rt::st_shared_u16(cake_ma ? cake_a : cake_a + 2u, "
               "u16(cake_ma ? cake_w & 0xffffu : cake_w >> 16));");
    } else {
      L.w.line("const u32 cake_a = " + at + ";");
      L.w.line("if (cake_ma) cake::rt::st_shared_u32(cake_a, cake_w0);");
      L.w.line("if (cake_mb) cake::rt::st_shared_u32(cake_a + 4u, cake_w1);");
    }
  } else {
    const std::string ptr = L.globalAddress(globalAt(dst, "cake_r", "cake_c"), "0");
    L.w.line("auto *const cake_q = " + ptr + ";");
    if (!packed.empty()) {
      // one 4-byte store where the pair is aligned (the view's origin and strides may make it odd)
      L.w.line("if (cake_ma && cake_mb && (reinterpret_cast<size_t>(cake_q) & 3u) == 0) "
               "*reinterpret_cast<u32 *>(cake_q) = cake_w;");
      L.w.open("else");
      L.w.line("if (cake_ma) cake_q[0] = u16(cake_w & 0xffffu);");
      L.w.line("if (cake_mb) cake_q[1] = u16(cake_w >> 16);");
      L.w.close();
    } else {
      L.w.line("if (cake_ma && cake_mb && (reinterpret_cast<size_t>(cake_q) & 7u) == 0) "
               "*reinterpret_cast<uint2 *>(cake_q) = make_uint2(cake_w0, cake_w1);");
      L.w.open("else");
      L.w.line("if (cake_ma) *reinterpret_cast<u32 *>(cake_q) = cake_w0;");
      L.w.line("if (cake_mb) *reinterpret_cast<u32 *>(cake_q + 1) = cake_w1;");
      L.w.close();
    }
  }
  L.w.close();
  return Val{};
}

void addTileLowerings(OpLowerings &t) {
  t[OpId::TileIota] = lowerTileIota;
  t[OpId::TileExpand] = lowerTileExpand;
  t[OpId::TileT] = lowerTileT;
}

} // namespace cake::lower
