//===- Ops.cpp - Operations: dispatch, identity, barriers, math -----------===//
//
// Part of CAKE. Every call is lowered through its row of the primitive table
// (compiler/sema/Ops.cpp): a C++ template over the scalar operands, or "@"
// and a lowering function registered here or in Rings.cpp, Memory.cpp,
// Mma.cpp. An operation without a lowering is reported, never skipped.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

namespace {

/// Substitutes the scalar operands into a template ("cake::rt::cdiv($0, $1)").
std::optional<std::string> expandTemplate(Lowerer &L, const Expr &call, std::string_view tmpl) {
  auto args = positionalArgs(call);
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '$' && i + 1 < tmpl.size() && std::isdigit(uint8_t(tmpl[i + 1]))) {
      size_t n = size_t(tmpl[++i] - '0');
      if (n >= args.size()) {
        L.unsupported(call.range, "this call (operand " + std::to_string(n) + " is missing)");
        return std::nullopt;
      }
      auto s = L.scalar(*args[n]);
      if (!s)
        return std::nullopt;
      out += *s;
    } else {
      out += tmpl[i];
    }
  }
  return out;
}

std::optional<Val> lowerCtaId(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto d = args.empty() ? std::nullopt : L.constant(*args[0]);
  if (!d || *d < 0 || *d > 2) {
    L.unsupported(call.range, "cta.id of a dimension that is not 0, 1 or 2");
    return std::nullopt;
  }
  return scalarVal(std::string("int(blockIdx.") + "xyz"[*d] + ")");
}

std::optional<Val> lowerElectOne(Lowerer &L, const Expr &call) {
  if (!L.role) {
    L.unsupported(call.range, "elect.one outside a role");
    return std::nullopt;
  }
  switch (L.role->role->issue) {
  case IssueMode::Elect:
    return scalarVal("true");
  case IssueMode::Warp:
    return scalarVal("(cake::rt::lane_id() == 0)");
  case IssueMode::Warpgroup:
    return scalarVal("(threadIdx.x % 128 == 0)");
  }
  return std::nullopt;
}

std::optional<Val> lowerSelfWarp(Lowerer &, const Expr &) { return scalarVal("cake_role_warp"); }
std::optional<Val> lowerSelfWarpgroup(Lowerer &, const Expr &) { return scalarVal("(cake_role_warp / 4)"); }
std::optional<Val> lowerSelfThread(Lowerer &L, const Expr &) {
  return scalarVal("(int(threadIdx.x) - " + std::to_string(L.role->role->warpBegin.value_or(0) * 32) + ")");
}

std::optional<Val> lowerSchedTiles(Lowerer &L, const Expr &call) {
  Val v;
  v.kind = Val::Schedule;
  std::string name = L.temp("sched");
  std::string total;
  for (const ExprPtr &a : call.operands) {
    if (a->kind != ExprKind::Keyword)
      continue;
    auto s = L.scalar(*a->operands[0]);
    if (!s)
      return std::nullopt;
    if (a->text == "group") {
      v.group = *s;
      continue;
    }
    std::string var = name + "_" + a->text;
    L.w.line("const int " + var + " = " + *s + ";");
    v.dims.emplace_back(a->text, var);
    total += (total.empty() ? "" : " * ") + var;
  }
  L.w.line("const int " + name + "_total = " + (total.empty() ? "1" : total) + ";");
  v.total = name + "_total";
  return v;
}

std::optional<Val> lowerCast(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  auto x = L.value(*args[0]);
  if (!x)
    return std::nullopt;
  auto to = args.size() > 1 && args[1]->kind == ExprKind::Name ? parseElem(args[1]->text) : std::nullopt;
  if (!to) {
    L.unsupported(call.range, "this cast");
    return std::nullopt;
  }
  if (x->kind == Val::Frag) {
    x->cast = *to;
    return x;
  }
  if (x->kind == Val::Scalar && (*to == Elem::I32 || *to == Elem::FP32))
    return scalarVal(std::string(*to == Elem::I32 ? "int(" : "float(") + x->cxx + ")");
  L.unsupported(call.range, "math.cast of this value");
  return std::nullopt;
}

/// bar.sync(scope...): warp, warpgroup, cta, or role names.
std::optional<Val> lowerBarSync(Lowerer &L, const Expr &call) {
  bool arrive = calleeOp(call) == OpId::BarArrive;
  auto args = positionalArgs(call);
  if (args.size() == 1 && args[0]->kind == ExprKind::Name) {
    const std::string &scope = args[0]->text;
    if (scope == "warp") {
      L.w.line("__syncwarp();");
      return Val{};
    }
    if (scope == "cta" && !arrive) {
      L.w.line("__syncthreads();");
      return Val{};
    }
    if (scope == "warpgroup" && L.role) {
      int base = L.barrierId(call);
      L.w.line(std::string("cake::rt::") + (arrive ? "bar_arrive(" : "bar_sync(") + std::to_string(base) +
               " + cake_role_warp / 4, 128);");
      return Val{};
    }
  }
  // a set of roles
  std::string key;
  uint32_t threads = 0;
  for (const Expr *a : args) {
    const Role *r = a->kind == ExprKind::Name ? L.k.role(a->text) : nullptr;
    if (!r) {
      L.unsupported(a->range, "this barrier scope");
      return std::nullopt;
    }
    key += r->name + ",";
    threads += L.threadsOf(*r);
  }
  if (threads == L.out.block && !arrive) {
    L.w.line("__syncthreads();");
    return Val{};
  }
  int id = L.barrierId(call);
  L.w.line(std::string("cake::rt::") + (arrive ? "bar_arrive(" : "bar_sync(") + std::to_string(id) + ", " +
           std::to_string(threads) + ");");
  return Val{};
}

std::optional<Val> lowerBarSyncId(Lowerer &L, const Expr &call) {
  auto args = positionalArgs(call);
  const Expr *threads = keywordArg(call, "threads");
  auto id = L.scalar(*args[0]);
  auto n = threads ? L.scalar(*threads) : std::optional<std::string>(std::to_string(L.out.block));
  if (!id || !n)
    return std::nullopt;
  bool arrive = calleeOp(call) == OpId::BarArriveId;
  L.w.line(std::string("cake::rt::") + (arrive ? "bar_arrive(" : "bar_sync(") + *id + ", " + *n + ");");
  return Val{};
}

} // namespace

int Lowerer::barrierId(const Expr &call) {
  const NamedBarrier *b = barriers.of(call);
  if (!b) { // sema allocates for every call that reaches here; an id of 0 would be __syncthreads
    unsupported(call.range, "this barrier");
    return 0;
  }
  if (!b->fits && barrierOverflow.insert(b->key).second)
    unsupported(k.decl->name.range,
                "more named barriers than the " + std::to_string(barriers.lastId) + " the hardware has (" + b->key + ")");
  return b->first;
}

const OpLowerings &opLowerings() {
  static const OpLowerings table = [] {
    OpLowerings t;
    t[OpId::CtaId] = lowerCtaId;
    t[OpId::ElectOne] = lowerElectOne;
    t[OpId::SelfWarp] = lowerSelfWarp;
    t[OpId::SelfWarpgroup] = lowerSelfWarpgroup;
    t[OpId::SelfThread] = lowerSelfThread;
    t[OpId::SchedTiles] = lowerSchedTiles;
    t[OpId::MathCast] = lowerCast;
    t[OpId::BarSync] = lowerBarSync;
    t[OpId::BarArrive] = lowerBarSync;
    t[OpId::BarSyncId] = lowerBarSyncId;
    t[OpId::BarArriveId] = lowerBarSyncId;
    addRingLowerings(t);
    addMemoryLowerings(t);
    addMmaLowerings(t);
    addTcgen05Lowerings(t);
    addFragmentLowerings(t);
    addAtomicLowerings(t);
    addScalarLowerings(t);
    addMathLowerings(t);
    addTileLowerings(t);
    addPerThreadLowerings(t);
    return t;
  }();
  return table;
}

std::optional<Val> Lowerer::callValue(const Expr &call, const OpInfo &op) {
  if (op.lowering.empty()) {
    unsupported(call.range, "'" + std::string(op.name) + "'");
    return std::nullopt;
  }
  if (op.lowering != "@") {
    auto text = expandTemplate(*this, call, op.lowering);
    if (!text)
      return std::nullopt;
    return scalarVal(*text);
  }
  OpLowering lowering = opLowerings()[op.id];
  if (!lowering) {
    unsupported(call.range, "'" + std::string(op.name) + "'");
    return std::nullopt;
  }
  return lowering(*this, call);
}

void Lowerer::callStmt(const Expr &call) {
  auto it = k.ops.find(&call);
  if (it == k.ops.end()) {
    unsupported(call.range, "this call");
    return;
  }
  auto v = callValue(call, *it->second);
  if (v && v->kind == Val::Scalar && !v->cxx.empty())
    w.line(v->cxx + ";");
}

} // namespace cake::lower
