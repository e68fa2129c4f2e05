//===- Launch.cpp - The host side of a launch: sizes, facts, grid ---------===//
//
// Part of CAKE. Binds size symbols, checks them (bound, positive, 32-bit
// indices) and the kernel's `assume` facts, and computes the grid: explicit
// `grid(x, y, z)` expressions, or for `grid(persistent)` one CTA per SM
// (times the occupancy) but never more CTAs than tiles.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lower.h"
#include "compiler/syntax/Printer.h"

#include <algorithm>

namespace cake::lower {

namespace {
/// A launch the sizes do not allow.
Error launchError(std::string message) { return Error(Error::InvalidArgument, std::move(message)); }
} // namespace

using namespace cake::syntax;
using namespace cake::sema;

namespace {

std::optional<int64_t> evalBound(const Kernel &k, const Expr &e, const Bindings &sizes) {
  return evalInKernel(k, e, [&](const std::string &n) -> std::optional<int64_t> {
    if (auto it = sizes.find(n); it != sizes.end())
      return it->second;
    return std::nullopt;
  });
}

} // namespace

std::optional<std::vector<int64_t>> paramShape(const Kernel &k, std::string_view name, const Bindings &sizes) {
  const Param *p = k.param(name);
  if (!p)
    return std::nullopt;
  std::vector<int64_t> shape;
  for (const Dim &d : p->type.dims) {
    if (d.value) {
      shape.push_back(*d.value);
    } else if (auto it = sizes.find(d.symbol); it != sizes.end()) {
      shape.push_back(it->second);
    } else if (d.expr) {
      auto v = evalBound(k, *d.expr, sizes);
      if (!v)
        return std::nullopt;
      shape.push_back(*v);
    } else {
      return std::nullopt;
    }
  }
  return shape;
}

Expected<LaunchDims> planLaunch(const LoweredKernel &lk, const Bindings &sizes, int smCount) {
  LaunchDims out;
  const Kernel &k = *lk.kernel;
  for (const std::string &s : k.sizeSymbols) {
    auto it = sizes.find(s);
    if (it == sizes.end())
      return launchError("size '" + s + "' of kernel '" + lk.name + "' is not bound");
    if (it->second < 1 || it->second > INT32_MAX)
      return launchError("size " + s + " = " + std::to_string(it->second) + " is outside 1 .. 2^31 - 1");
  }
  for (const StmtPtr &s : k.decl->body.stmts)
    if (s->kind == StmtKind::Assume)
      for (const ExprPtr &fact : static_cast<const AssumeStmt &>(*s).facts) {
        auto v = evalBound(k, *fact, sizes);
        if (!v)
          return launchError("cannot evaluate the fact '" + print(*fact) + "' at these sizes");
        if (!*v)
          return launchError("the sizes violate the kernel's fact '" + print(*fact) + "'");
      }
  for (size_t i = 0; i < 3 && i < k.cluster.size(); ++i)
    out.cluster[i] = uint32_t(k.cluster[i].value_or(1));
  if (k.persistent) {
    // the tile count of the kernel's schedule
    std::optional<int64_t> tiles;
    for (const StmtPtr &s : k.decl->body.stmts) {
      if (s->kind != StmtKind::Let)
        continue;
      const Expr &v = *static_cast<const LetStmt &>(*s).value;
      if (calleeOp(v) != OpId::SchedTiles)
        continue;
      tiles = 1;
      for (const ExprPtr &a : v.operands)
        if (a->kind == ExprKind::Keyword && a->text != "group") {
          auto n = evalBound(k, *a->operands[0], sizes);
          if (!n)
            return launchError("cannot evaluate the schedule's extent '" + a->text + "'");
          *tiles *= *n;
        }
    }
    if (!tiles)
      return launchError("a persistent kernel without a sched.tiles schedule");
    int64_t slots = int64_t(smCount) * k.residentCtas();
    int64_t cluster = int64_t(out.cluster[0]) * out.cluster[1] * out.cluster[2];
    int64_t ctas = std::max<int64_t>(1, std::min(slots, *tiles));
    out.grid[0] = uint32_t((ctas + cluster - 1) / cluster * cluster);
    return out;
  }
  const Clause *grid = k.gridClause;
  if (!grid)
    return launchError("kernel '" + lk.name + "' has no grid clause");
  for (size_t i = 0; i < grid->args.size() && i < 3; ++i) {
    auto v = evalBound(k, *grid->args[i], sizes);
    if (!v || *v < 1 || *v > INT32_MAX)
      return launchError("grid dimension " + std::to_string(i) + " ('" + print(*grid->args[i]) +
                         "') does not evaluate to 1 .. 2^31 - 1");
    out.grid[i] = uint32_t(*v);
  }
  return out;
}

} // namespace cake::lower
