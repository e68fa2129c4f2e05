//===- Tactics.cpp - Named, parameterized schedule rewrites ---------------===//
#include "compiler/driver/Tactics.h"

#include "compiler/driver/Check.h"
#include "compiler/sema/Model.h"
#include "compiler/sema/Ops.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Walk.h"
#include "compiler/verify/Util.h"

#include <algorithm>
#include <charconv>
#include <regex>
#include <set>
#include <sstream>

namespace cake {

namespace {

using verify::indentAt;

constexpr TacticInfo kTactics[] = {
    {"stages", "ring=NAME to=N", "the ring's pipeline depth: stages(N)"},
    {"param", "name=P to=V", "a parameter's default: the schedule the file builds without a manifest"},
    {"unroll", "loop=VAR to=full|N|none [line=L]",
     "a loop's unrolling: unroll, unroll(N) or none (line picks one of several loops over VAR)"},
    {"tile", "name=C to=N",
     "a tile size: the const C written as a number, and the MMA shapes whose N was its value"},
    {"epilogue", "acc=ACC to=W",
     "a TMA-store epilogue: the accumulator's st.global through shared memory, W columns a chunk, two buffers "
     "per warpgroup, each chunk stored by TMA after a proxy fence, the stores waited before reuse and at the end"},
    {"persistent", "kernel=K to=G",
     "a persistent grid with a raster swizzle: grid(persistent), every role looping over sched.tiles of the old "
     "grid's extents in groups of G (1: row by row); on a persistent kernel, its tiles' group"},
    {"warp-specialize", "ring=NAME to=ROLE [regs=P]",
     "a ring its role both produces and consumes split between roles: its produces (with their copies and the "
     "loops around them) move to a new producer warpgroup ROLE (issue(elect), regs(P), default 40) before the "
     "others, which keep the consumes and take the registers it leaves"},
};

/// The name of tactic \p name's argument that says what it rewrites.
std::string_view subjectKey(std::string_view name) {
  return name == "stages" || name == "warp-specialize" ? "ring"
         : name == "unroll"     ? "loop"
         : name == "persistent" ? "kernel"
         : name == "epilogue"   ? "acc"
                                : "name"; // param, tile
}

Error refused(std::string message) { return Error(Error::InvalidArgument, std::move(message)); }

/// The rewritten text checked: errors refuse it (Source, with the diagnostics located in the new text).
Expected<TacticResult> checked(const std::string &path, std::string text, std::string description) {
  SourceManager sm;
  FileId file = sm.addBuffer(path, text);
  CheckResult r = checkSource(sm, file);
  auto isError = [](const Diagnostic &d) { return d.severity == Severity::Error; };
  if (auto it = std::find_if(r.diagnostics.begin(), r.diagnostics.end(), isError); it != r.diagnostics.end()) {
    const Diagnostic *first = &*it;
    size_t errors = std::count_if(it, r.diagnostics.end(), isError);
    LineColumn lc = sm.lineColumn(file, first->range.begin);
    Error e(Error::Source, description + " is refused: the result has " + std::to_string(errors) + " error" +
                               (errors == 1 ? "" : "s") + ", first at " + std::to_string(lc.line) + ":" +
                               std::to_string(lc.column) + ": " + first->message + " [" + first->code + "]");
    e.diagnostics = std::move(r.diagnostics);
    return e;
  }
  return TacticResult{std::move(text), std::move(description), std::move(r.diagnostics)};
}

std::string replace(const std::string &text, SourceRange range, const std::string &with) {
  return text.substr(0, range.begin) + with + text.substr(range.end);
}

/// \p text with each of \p edits (disjoint ranges) replaced, back to front so the offsets hold.
std::string applied(std::string text, std::vector<std::pair<SourceRange, std::string>> edits) {
  std::sort(edits.begin(), edits.end(), [](const auto &a, const auto &b) { return a.first.begin > b.first.begin; });
  for (const auto &[range, with] : edits)
    text = replace(text, range, with);
  return text;
}

/// \p to as a positive integer (a depth, an unrolling, a tile size).
std::optional<int64_t> positive(const std::string &to) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(to.data(), to.data() + to.size(), n);
  return ec == std::errc() && end == to.data() + to.size() && n >= 1 ? std::optional(n) : std::nullopt;
}

/// What tactic \p tactic rewrites of \p subject in \p m, as an expression: the ring's `stages(...)`
/// argument (the last ring of that name), the parameter's default, the module-level const's value; nullptr
/// when \p m has none (\p why says what is missing).
const syntax::Expr *subjectExpr(const syntax::Module &m, std::string_view tactic, const std::string &subject,
                                std::string *why = nullptr) {
  auto missing = [&](std::string message) -> const syntax::Expr * {
    if (why)
      *why = std::move(message);
    return nullptr;
  };
  if (tactic == "stages") {
    const syntax::RingStmt *ring = nullptr;
    syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
      if (auto *r = syntax::dyn_cast<syntax::RingStmt>(&s); r && r->name.name == subject)
        ring = r;
    });
    if (!ring)
      return missing("has no ring '" + subject + "'");
    for (const syntax::Clause &c : ring->clauses)
      if (c.name.name == "stages" && c.args.size() == 1)
        return c.args[0].get();
    return missing("ring '" + subject + "' has no stages(...) clause to change");
  }
  if (tactic == "persistent") { // the raster group written in the kernel's schedule
    for (const syntax::StmtPtr &s : m.items.stmts)
      if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get()); k && k->name.name == subject) {
        const syntax::Expr *group = rasterGroup(*k);
        return group ? group : missing("kernel '" + subject + "' has no raster group written in its schedule");
      }
    return missing("has no kernel '" + subject + "'");
  }
  for (const syntax::StmtPtr &s : m.items.stmts) {
    if (auto *p = syntax::dyn_cast<syntax::ParamDecl>(s.get()); p && tactic == "param" && p->name.name == subject)
      return p->defaultValue ? p->defaultValue.get()
                             : missing("parameter '" + subject + "' has no default to change (a manifest binds it)");
    if (auto *c = syntax::dyn_cast<syntax::ConstDecl>(s.get()); c && tactic == "tile" && c->name.name == subject)
      return c->value && c->value->kind == syntax::ExprKind::Number
                 ? c->value.get()
                 : missing("has no const '" + subject + "' written as a number (a parameter's default: tactic 'param')");
  }
  return missing(tactic == "tile" ? "has no const '" + subject + "' written as a number (a parameter's default: tactic "
                                                               "'param')"
                                  : "has no parameter '" + subject + "'");
}

/// `tile name=C to=N`: a tile size written as a module-level const (`const BN
/// = 256`) set to N, and every MMA's `shape = mMnNkK` whose N was the old
/// value rewritten with the new one (the instruction spans the tile's N in the
/// library's schedules: wgmma m64n256k16 under a 256-wide tile); everything
/// else that depends on C (ring slots, accumulators, loop bounds) reads it by
/// name. Checked again like every tactic: an N no MMA takes is refused
/// (mma.shape), a tile that does not fit is refused (res.smem).
Expected<TacticResult> tile(const std::string &path, const std::string &text, const syntax::Module &m,
                            const std::string &name, const std::string &to) {
  if (!positive(to))
    return refused("tactic 'tile' takes to=N with N a positive integer, not '" + to + "'");
  std::string why;
  const syntax::Expr *value = subjectExpr(m, "tile", name, &why);
  std::optional<int64_t> was = value ? sema::evalInt(*value, {}) : std::nullopt;
  if (!was)
    return refused(path + " " + (value ? "has no const '" + name + "' written as a number" : why));
  // the edits, back to front: the const, then each MMA shape whose N was the old value
  std::vector<std::pair<SourceRange, std::string>> edits = {{value->range, to}};
  size_t shapes = 0;
  syntax::forEachCall(m.items, [&](const syntax::Expr &call) {
    const sema::OpInfo *op = sema::findOp(sema::calleeName(call));
    if (!op || op->cls != sema::OpClass::Mma)
      return;
    for (const syntax::ExprPtr &arg : call.operands)
      if (arg && arg->kind == syntax::ExprKind::Keyword && arg->text == "shape" && arg->operand(0) &&
          arg->operand(0)->kind == syntax::ExprKind::Name) {
        const std::string &shape = arg->operand(0)->text; // m64n256k16
        size_t n = shape.find('n'), k = shape.find('k');
        if (shape.empty() || shape[0] != 'm' || n == std::string::npos || k == std::string::npos || k < n)
          continue;
        if (shape.substr(n + 1, k - n - 1) == std::to_string(*was)) {
          edits.push_back({arg->operand(0)->range, shape.substr(0, n + 1) + to + shape.substr(k)});
          ++shapes;
        }
      }
  });
  return checked(path, applied(text, std::move(edits)),
                 "const " + name + ": " + std::to_string(*was) + " -> " + to +
                     (shapes ? " (and " + std::to_string(shapes) + " MMA shape" + (shapes == 1 ? "" : "s") + ")" : ""));
}

/// `unroll loop=VAR to=full|N|none [line=L]`: the loop's unroll clause set,
/// replaced or removed (the lowering's `#pragma unroll`; language.md, loop
/// clauses). Several loops over VAR need line=L.
Expected<TacticResult> unroll(const std::string &path, const std::string &text, const SourceManager &sm, FileId file,
                              const syntax::Module &m, const std::string &var, const std::string &to,
                              const std::string *line) {
  std::string clause;
  if (to == "full")
    clause = "unroll";
  else if (to != "none") {
    if (!positive(to))
      return refused("tactic 'unroll' takes to=full, to=none or to=N with N a positive integer, not '" + to + "'");
    clause = "unroll(" + to + ")";
  }
  std::vector<const syntax::ForStmt *> loops;
  syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
    auto *f = syntax::dyn_cast<syntax::ForStmt>(&s);
    if (f && f->var.name == var && (!line || std::to_string(sm.lineColumn(file, s.range.begin).line) == *line))
      loops.push_back(f);
  });
  if (loops.empty())
    return refused(path + " has no loop over '" + var + "'" + (line ? " on line " + *line : ""));
  if (loops.size() > 1) {
    std::string lines;
    for (const syntax::ForStmt *f : loops)
      lines += (lines.empty() ? "" : ", ") + std::to_string(sm.lineColumn(file, f->range.begin).line);
    return refused(path + " has " + std::to_string(loops.size()) + " loops over '" + var + "' (lines " + lines +
                   "): say which with line=L");
  }
  const syntax::ForStmt &f = *loops.front();
  const std::string where = "loop '" + var + "' (line " + std::to_string(sm.lineColumn(file, f.range.begin).line) + ")";
  for (const syntax::Clause &c : f.clauses)
    if (c.name.name == "unroll") {
      std::string was(text.substr(c.range.begin, c.range.end - c.range.begin));
      if (!clause.empty())
        return checked(path, replace(text, c.range, clause), where + ": " + was + " -> " + clause);
      // none: the clause and the blank before it
      SourceRange all = c.range;
      while (all.begin > 0 && text[all.begin - 1] == ' ')
        --all.begin;
      return checked(path, replace(text, all, ""), where + ": " + was + " -> none");
    }
  if (clause.empty())
    return refused(where + " is not unrolled: nothing to remove");
  uint32_t after = f.clauses.empty() ? f.iterable->range.end : f.clauses.back().range.end;
  return checked(path, replace(text, SourceRange{file, after, after}, " " + clause), where + ": none -> " + clause);
}


/// `epilogue acc=ACC to=W`: in a warpgroup role, `st.global(math.cast(ACC, T), G[ROW, COL])` of a register
/// accumulator `var ACC: reg fp32[64, N]` (which the lowering has no direct store for) becomes the TMA-store
/// epilogue of the library's Hopper GEMM: a kernel-level staging buffer `var epi: shared T[NWG, 2, 64, W]
/// swizzle(W x sizeof(T) B)` after the last ring, and per chunk j of N / W: the buffer of chunk j - 2
/// waited (tma.store_wait(1)), st.matrix of the chunk, fence.proxy_async, and one elected tma.store to
/// G[ROW, COL + j * W]; the role waits for its stores before it ends (tma.store_wait(0)). Refused when the
/// pattern is not there, or when W does not divide N or is not a swizzle's width.
Expected<TacticResult> epilogue(const std::string &path, const std::string &text, const SourceManager &sm,
                                const syntax::Module &m, const std::string &acc, const std::string &to) {
  auto w = positive(to);
  if (!w)
    return refused("tactic 'epilogue' takes to=W with W a positive integer (the chunk's columns), not '" + to + "'");
  auto source = [&](SourceRange r) { return std::string(text.substr(r.begin, r.size())); };
  // the role that declares the accumulator, and the store of it
  const syntax::KernelDecl *kernel = nullptr;
  const syntax::RoleStmt *role = nullptr;
  const syntax::VarStmt *var = nullptr;
  for (const syntax::StmtPtr &s : m.items.stmts)
    if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get()))
      for (const syntax::StmtPtr &r : k->body.stmts)
        if (auto *ro = syntax::dyn_cast<syntax::RoleStmt>(r.get()))
          syntax::forEachStmt(ro->body, [&](const syntax::Stmt &st) {
            if (auto *v = syntax::dyn_cast<syntax::VarStmt>(&st); v && v->name.name == acc && !var)
              var = v, role = ro, kernel = k;
          });
  if (!var)
    return refused(path + " has no role that declares 'var " + acc + "'");
  if (!var->type.space || var->type.space->name != "reg" || var->type.dims.size() != 2 ||
      sema::evalInt(*var->type.dims[0], {}) != 64)
    return refused("'" + acc + "' is not a warpgroup's register accumulator reg fp32[64, N]");
  // N: a number, or a module-level const written as one
  std::optional<int64_t> n = sema::evalInt(*var->type.dims[1], {});
  if (!n && var->type.dims[1]->kind == syntax::ExprKind::Name)
    if (const syntax::Expr *value = subjectExpr(m, "tile", var->type.dims[1]->text))
      n = sema::evalInt(*value, {});
  if (!n || *n % *w != 0)
    return refused("the chunk width " + to + " does not divide the accumulator's " + source(var->type.dims[1]->range) +
                   (n ? " (" + std::to_string(*n) + ")" : std::string(" (not a number)")) + " columns");
  int64_t warpgroups = 0;
  bool warpgroupIssue = false;
  for (const syntax::Clause &c : role->clauses) {
    if (c.name.name == "issue" && c.args.size() == 1 && c.args[0]->text == "warpgroup")
      warpgroupIssue = true;
    if (c.name.name == "warpgroups" && c.args.size() == 1 && c.args[0]->kind == syntax::ExprKind::Binary) {
      auto lo = sema::evalInt(*c.args[0]->operand(0), {}), hi = sema::evalInt(*c.args[0]->operand(1), {});
      if (lo && hi)
        warpgroups = *hi - *lo;
    }
  }
  if (!warpgroupIssue || warpgroups < 1)
    return refused("role '" + role->name.name + "' is not issue(warpgroup) over warpgroups(LO .. HI) written as numbers");
  const syntax::Stmt *store = nullptr;
  const syntax::Expr *target = nullptr;
  std::string elem;
  syntax::forEachStmt(role->body, [&](const syntax::Stmt &st) {
    auto *e = syntax::dyn_cast<syntax::ExprStmt>(&st);
    if (!e || !e->expr || sema::calleeOp(*e->expr) != sema::OpId::StGlobal)
      return;
    std::vector<const syntax::Expr *> args;
    for (const syntax::ExprPtr &a : e->expr->operands)
      if (a && a->kind != syntax::ExprKind::Keyword)
        args.push_back(a.get());
    // operand 0 is the callee
    if (args.size() != 3 || sema::calleeOp(*args[1]) != sema::OpId::MathCast || args[2]->kind != syntax::ExprKind::Index)
      return;
    std::vector<const syntax::Expr *> cast;
    for (const syntax::ExprPtr &a : args[1]->operands)
      if (a && a->kind != syntax::ExprKind::Keyword)
        cast.push_back(a.get());
    if (cast.size() == 3 && cast[1]->kind == syntax::ExprKind::Name && cast[1]->text == acc &&
        cast[2]->kind == syntax::ExprKind::Name)
      store = &st, target = args[2], elem = cast[2]->text;
  });
  if (!store)
    return refused("role '" + role->name.name + "' has no st.global(math.cast(" + acc + ", T), G[ROW, COL])");
  auto e = sema::parseElem(elem);
  const int64_t bytes = e ? int64_t(sema::elemBytes(*e)) * *w : 0;
  if (bytes != 32 && bytes != 64 && bytes != 128)
    return refused("a chunk of " + to + " " + elem + " columns is " + std::to_string(bytes) +
                   " bytes, not a swizzle's width (32, 64 or 128)");
  if (target->operands.size() != 3)
    return refused("the store's target is not G[ROW, COL]");
  const std::string g = source(target->operand(0)->range), row = source(target->operand(1)->range),
                    col = source(target->operand(2)->range), ws = std::to_string(*w), sw = std::to_string(bytes) + "B";
  // the warpgroup's index within the role: a let of it, else the call
  std::string wg = "self.warpgroup()";
  syntax::forEachStmt(role->body, [&](const syntax::Stmt &st) {
    if (auto *l = syntax::dyn_cast<syntax::LetStmt>(&st);
        l && l->names.size() == 1 && l->value && sema::calleeOp(*l->value) == sema::OpId::SelfWarpgroup &&
        wg == "self.warpgroup()")
      wg = l->names[0].name;
  });
  std::vector<std::pair<SourceRange, std::string>> edits;
  // the staging buffer, after the kernel's last statement before its first role
  const syntax::Stmt *last = nullptr;
  for (const syntax::StmtPtr &s : kernel->body.stmts) {
    if (s->kind == syntax::StmtKind::Role)
      break;
    last = s.get();
  }
  const std::string kin = indentAt(sm, role->range);
  uint32_t at = last ? last->range.end : kernel->body.range.begin + 1;
  while (at < text.size() && text[at] != '\n')
    ++at;
  at = at < text.size() ? at + 1 : at;
  edits.push_back({SourceRange{kernel->range.file, at, at},
                   kin + "// epilogue staging: [consumer warpgroup, buffer] -> a 64 x " + ws + " box of " + g + "\n" + kin +
                       "var epi: shared " + elem + "[" + std::to_string(warpgroups) + ", 2, 64, " + ws + "] swizzle(" +
                       sw + ")\n"});
  // the store: chunk by chunk through the buffers
  const std::string in = indentAt(sm, store->range), n2 = source(var->type.dims[1]->range);
  std::string loop = "// " + std::to_string(*n / *w) + " column chunks of " + ws +
                     ", double-buffered: chunk j reuses the buffer of chunk j - 2\n" + in + "for j in 0 .. " + n2 +
                     " / " + ws + " unroll {\n";
  for (const std::string &line :
       {"let buf = epi[" + wg + ", j % 2]", std::string("if elect.one() {"), std::string("  tma.store_wait(1)"),
        std::string("}"), std::string("bar.sync(warpgroup)"),
        "st.matrix(math.cast(" + acc + "[:, j * " + ws + ":j * " + ws + " + " + ws + "], " + elem + "), buf)",
        std::string("fence.proxy_async(buf)"), std::string("bar.sync(warpgroup)"), std::string("if elect.one() {"),
        "  tma.store(buf, " + g + "[" + row + ", " + col + " + j * " + ws + "])", std::string("}")})
    loop += in + "  " + line + "\n";
  loop += in + "}";
  edits.push_back({store->range, loop});
  // the role waits for its stores before it ends
  const uint32_t lineStart = // of the role's '}'
      sm.lineStart(role->range.file, sm.lineColumn(role->range.file, role->body.range.end - 1).line);
  const std::string rin = indentAt(sm, role->range) + "  ";
  edits.push_back({SourceRange{kernel->range.file, lineStart, lineStart},
                   rin + "if elect.one() {\n" + rin + "  tma.store_wait(0)\n" + rin + "}\n"});
  return checked(path, applied(text, std::move(edits)),
                 "'" + acc + "': st.global -> a TMA-store epilogue in " + std::to_string(*n / *w) + " chunks of " + ws +
                     " columns");
}

/// `persistent kernel=K to=G`: a kernel with an explicit grid, `grid(E0, E1, E2)`, made persistent: the grid
/// becomes `grid(persistent)`, the kernel declares `let tiles = sched.tiles(z = E2, y = E1, x = E0, group = G)`
/// (the outermost first, as blockIdx.z is; group only with two or more extents, and only when G > 1), every
/// role's body runs once per tile in `for t in tiles { ... }`, and `cta.id(d)` reads the tile (`t.x`, `t.y`,
/// `t.z`); kernel-level lets that read the CTA's index (directly or through another such let) move into each
/// role's loop. Each role then does per tile what it did per CTA, so the rings stay balanced. A kernel that
/// reads cta.count() (its grid's size) or the CTA's index outside lets and roles is refused. On a kernel
/// that is persistent already: its sched.tiles calls' group set to G (the raster swizzle alone).
Expected<TacticResult> persistent(const std::string &path, const std::string &text, const SourceManager &sm,
                                  const syntax::Module &m, const std::string &name, const std::string &to) {
  auto group = positive(to);
  if (!group)
    return refused("tactic 'persistent' takes to=G with G a positive integer (the raster group; 1: row by row), not '" +
                   to + "'");
  const syntax::KernelDecl *kernel = nullptr;
  for (const syntax::StmtPtr &s : m.items.stmts)
    if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get()); k && k->name.name == name)
      kernel = k;
  if (!kernel)
    return refused(path + " has no kernel '" + name + "'");
  const syntax::Clause *grid = nullptr;
  for (const syntax::Clause &c : kernel->clauses)
    if (c.name.name == "grid")
      grid = &c;
  if (!grid || grid->args.empty() || grid->args.size() > 3)
    return refused("kernel '" + name + "' has no grid(...) clause of one to three extents");
  auto source = [&](SourceRange r) { return std::string(text.substr(r.begin, r.size())); };
  std::vector<std::pair<SourceRange, std::string>> edits;
  const bool already = grid->args[0]->kind == syntax::ExprKind::Name && grid->args[0]->text == "persistent";
  if (already) {
    // the raster swizzle alone: each sched.tiles call's group
    size_t calls = 0;
    syntax::forEachCall(kernel->body, [&](const syntax::Expr &call) {
      if (sema::calleeOp(call) != sema::OpId::SchedTiles)
        return;
      ++calls;
      for (const syntax::ExprPtr &arg : call.operands)
        if (arg && arg->kind == syntax::ExprKind::Keyword && arg->text == "group" && arg->operand(0)) {
          edits.push_back({arg->operand(0)->range, to});
          return;
        }
      edits.push_back({SourceRange{call.range.file, call.range.end - 1, call.range.end - 1}, ", group = " + to});
    });
    if (!calls)
      return refused("kernel '" + name + "' is persistent but walks no sched.tiles to swizzle");
  } else {
    const char *axes[] = {"x", "y", "z"};
    const std::string body = source(kernel->body.range);
    for (const char *used : {"tiles", "t"})
      if (std::regex_search(body, std::regex(std::string("\\b") + used + "\\b")))
        return refused("kernel '" + name + "' already uses the name '" + used + "' that the tile loop needs");
    // the CTA's index, read as the tile's: each cta.id(d) call (d a literal) -> t.<axis>
    std::vector<std::pair<SourceRange, std::string>> ids;
    bool count = false, unknownAxis = false;
    syntax::forEachCall(kernel->body, [&](const syntax::Expr &call) {
      const sema::OpId op = sema::calleeOp(call);
      count |= op == sema::OpId::CtaCount;
      if (op != sema::OpId::CtaId)
        return;
      std::optional<int64_t> d;
      for (const syntax::ExprPtr &arg : call.operands)
        if (arg && arg->kind == syntax::ExprKind::Number)
          d = sema::evalInt(*arg, {});
      if (!d || *d < 0 || *d >= int64_t(grid->args.size()))
        unknownAxis = true;
      else
        ids.push_back({call.range, std::string("t.") + axes[*d]});
    });
    if (count)
      return refused("kernel '" + name + "' reads cta.count(), the size of the grid a persistent kernel no longer has");
    std::sort(ids.begin(), ids.end(), [](const auto &a, const auto &b) { return a.first.begin < b.first.begin; });
    if (unknownAxis)
      return refused("kernel '" + name + "' reads cta.id(d) with d not one of its grid's " +
                     std::to_string(grid->args.size()) + " dimensions written as a number");
    // \p r's text with the CTA's index read as the tile's
    auto retiled = [&](SourceRange r) {
      std::string out;
      uint32_t at = r.begin;
      for (const auto &[range, with] : ids) // source order (forEachCall's)
        if (range.begin >= r.begin && range.end <= r.end) {
          out += text.substr(at, range.begin - at) + with;
          at = range.end;
        }
      return out + text.substr(at, r.end - at);
    };
    auto readsIndex = [&](SourceRange r) {
      return std::any_of(ids.begin(), ids.end(),
                         [&](const auto &id) { return id.first.begin >= r.begin && id.first.end <= r.end; });
    };
    // kernel-level lets that read the CTA's index (or such a let) move into the roles' loops
    std::set<std::string> tainted;
    std::vector<std::string> moved; // the lets, as the tile loops read them
    std::optional<uint32_t> tilesAt;
    auto reads = [&](const syntax::Stmt &st) {
      if (readsIndex(st.range))
        return true;
      const std::string own = source(st.range);
      for (const std::string &n : tainted)
        if (std::regex_search(own, std::regex("\\b" + n + "\\b")))
          return true;
      return false;
    };
    for (const syntax::StmtPtr &sp : kernel->body.stmts) {
      const syntax::Stmt &st = *sp;
      if (st.kind == syntax::StmtKind::Role)
        continue;
      if (!reads(st))
        continue;
      const std::string own = source(st.range);
      auto *let = syntax::dyn_cast<syntax::LetStmt>(&st);
      auto *c = syntax::dyn_cast<syntax::ConstDecl>(&st);
      if (!let && !c)
        return refused("kernel '" + name + "' reads the CTA's index outside a let or a role (" + own.substr(0, own.find('\n')) +
                       "): make it a let or move it into the roles first");
      if (let)
        for (const syntax::Ident &n : let->names)
          tainted.insert(n.name);
      else
        tainted.insert(c->name.name);
      moved.push_back(retiled(st.range));
      uint32_t b = sm.lineStart(st.range.file, sm.lineColumn(st.range.file, st.range.begin).line), e = st.range.end;
      if (e < text.size() && text[e] == '\n')
        ++e;
      if (!tilesAt)
        tilesAt = b;
      edits.push_back({SourceRange{st.range.file, b, e}, ""});
    }
    // the schedule, outermost extent first; where the first moved let was, else before the first role
    std::string extents;
    for (size_t d = grid->args.size(); d-- > 0;)
      extents += (extents.empty() ? "" : ", ") + std::string(axes[d]) + " = " + source(grid->args[d]->range);
    if (grid->args.size() > 1 && *group > 1)
      extents += ", group = " + to;
    const syntax::RoleStmt *firstRole = nullptr;
    for (const syntax::StmtPtr &sp : kernel->body.stmts)
      if (auto *r = syntax::dyn_cast<syntax::RoleStmt>(sp.get()); r && !firstRole)
        firstRole = r;
    if (!firstRole)
      return refused("kernel '" + name + "' has no role to run per tile");
    const uint32_t at =
        tilesAt ? *tilesAt : sm.lineStart(firstRole->range.file, sm.lineColumn(firstRole->range.file, firstRole->range.begin).line);
    edits.push_back({SourceRange{grid->range.file, at, at},
                     indentAt(sm, firstRole->range) + "let tiles = sched.tiles(" + extents + ")\n"});
    // every role's body once per tile, one level deeper
    for (const syntax::StmtPtr &sp : kernel->body.stmts) {
      auto *role = syntax::dyn_cast<syntax::RoleStmt>(sp.get());
      if (!role)
        continue;
      const std::string roleIndent = indentAt(sm, role->range), in = roleIndent + "  ";
      std::string loop = "{\n" + in + "for t in tiles {\n";
      for (const std::string &let : moved) // at the loop body's indentation
        loop += in + "  " + let + "\n";
      // the body's lines one level deeper, blank ones dropped
      std::istringstream body(retiled(SourceRange{role->body.range.file, role->body.range.begin + 1, role->body.range.end - 1}));
      for (std::string line; std::getline(body, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos)
          loop += "  " + line + "\n";
      loop += in + "}\n" + roleIndent + "}";
      edits.push_back({role->body.range, loop});
    }
    edits.push_back({grid->range, "grid(persistent)"});
  }
  return checked(path, applied(text, std::move(edits)),
                 already ? "kernel '" + name + "': tiles in groups of " + to
                         : "kernel '" + name + "': " + source(grid->range) + " -> grid(persistent)" +
                               (grid->args.size() > 1 && *group > 1 ? ", tiles in groups of " + to : ""));
}
/// `warp-specialize ring=R to=ROLE [regs=P]`: ring R's producer and consumer are one role X, which produces
/// each slot (`let p = R.produce()`, copies into p, possibly under `if elect.one()`, `R.commit(p)`) and then
/// consumes it. The produces move to a new role ROLE, warpgroup 0, issue(elect), regs(P): its body is X's
/// projection onto them (the loops around each produce, in X's order, so the slots are produced in the order X
/// consumes them; a produce under an `if`, or one that reads a value of X's own, is refused). Every role moves
/// one warpgroup up, the block grows by 128 threads, and X, when it names no budget, takes the registers the
/// producer leaves (the largest setmaxnreg budget that fits the SM's register file).
Expected<TacticResult> warpSpecialize(const std::string &path, const std::string &text, const SourceManager &sm,
                                      const syntax::Module &m, const std::string &ringName, const std::string &to,
                                      const std::string *regsArg) {
  using namespace syntax;
  using sema::kWarpsPerWarpgroup;
  const int64_t producerRegs = regsArg ? positive(*regsArg).value_or(0) : 40;
  if (!producerRegs)
    return refused("tactic 'warp-specialize' takes regs=P with P a positive integer (the producer's budget), not '" +
                   *regsArg + "'");
  if (!std::regex_match(to, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
    return refused("tactic 'warp-specialize' takes to=ROLE, the new role's name, not '" + to + "'");
  const KernelDecl *kernel = nullptr;
  const RingStmt *ring = nullptr;
  for (const StmtPtr &s : m.items.stmts)
    if (auto *k = dyn_cast<KernelDecl>(s.get()))
      forEachStmt(k->body, [&](const Stmt &st) {
        if (auto *r = dyn_cast<RingStmt>(&st); r && r->name.name == ringName)
          kernel = k, ring = r;
      });
  if (!ring)
    return refused(path + " has no ring '" + ringName + "'");
  auto clause = [](const std::vector<Clause> &cs, std::string_view name) -> const Clause * {
    for (const Clause &c : cs)
      if (c.name.name == name)
        return &c;
    return nullptr;
  };
  auto source = [&](SourceRange r) { return std::string(text.substr(r.begin, r.size())); };
  const Clause *producer = clause(ring->clauses, "producer"), *consumer = clause(ring->clauses, "consumer");
  if (!producer || !consumer || producer->args.size() != 1 || consumer->args.size() != 1)
    return refused("ring '" + ringName + "' does not name its producer and consumer roles");
  const std::string roleName = source(producer->args[0]->range);
  if (roleName != source(consumer->args[0]->range))
    return refused("ring '" + ringName + "' is produced by role '" + roleName + "' and consumed by role '" +
                   source(consumer->args[0]->range) + "' already: nothing to specialize");
  const Clause *target = clause(kernel->clauses, "target");
  std::optional<Target> t = target && target->args.size() == 1 ? parseTarget(source(target->args[0]->range))
                                                                : std::nullopt;
  if (!t || targetDesc(*t).setmaxnregMax == 0)
    return refused("kernel '" + kernel->name.name + "' targets no GPU with setmaxnreg (sm_90a, sm_100a): a producer "
                   "warpgroup could not give its registers to the others");
  const TargetDesc &desc = targetDesc(*t);
  std::vector<const RoleStmt *> roles;
  const RoleStmt *role = nullptr;
  for (const StmtPtr &s : kernel->body.stmts)
    if (auto *r = dyn_cast<RoleStmt>(s.get())) {
      roles.push_back(r);
      if (r->name.name == roleName)
        role = r;
      if (r->name.name == to)
        return refused("kernel '" + kernel->name.name + "' has a role '" + to + "' already");
    }
  if (!role)
    return refused("kernel '" + kernel->name.name + "' has no role '" + roleName + "'");
  bool taken = false; // a name the kernel declares (a role's is refused above)
  for (const Field &f : kernel->params)
    taken |= f.name.name == to;
  forEachStmt(kernel->body, [&](const Stmt &st) {
    if (auto *l = dyn_cast<LetStmt>(&st))
      for (const Ident &n : l->names)
        taken |= n.name == to;
    if (auto *v = dyn_cast<VarStmt>(&st))
      taken |= v->name.name == to;
    if (auto *r = dyn_cast<RingStmt>(&st))
      taken |= r->name.name == to;
    if (auto *f = dyn_cast<ForStmt>(&st))
      taken |= f->var.name == to;
  });
  if (taken)
    return refused("kernel '" + kernel->name.name + "' already declares the name '" + to + "'");

  // the produces: `let p = R.produce()` ... `R.commit(p)` in one block
  struct Produce {
    const Block *block;
    size_t first, last; // statement indices
  };
  std::vector<Produce> produced;
  std::optional<std::string> why;
  std::set<std::string> own; // the role's own values (lets and vars)
  forEachStmt(role->body, [&](const Stmt &st) {
    if (auto *l = dyn_cast<LetStmt>(&st))
      for (const Ident &n : l->names)
        own.insert(n.name);
    if (auto *v = dyn_cast<VarStmt>(&st))
      own.insert(v->name.name);
  });
  auto isProduce = [&](const Stmt &st) -> const LetStmt * {
    auto *l = dyn_cast<LetStmt>(&st);
    return l && l->names.size() == 1 && l->value && sema::calleeName(*l->value) == ringName + ".produce" ? l : nullptr;
  };
  // X's statements, projected: the text of the new role's body, at depth 2 (the role's own body)
  std::function<bool(const Block &, const std::string &, std::string &, std::set<std::string> &)> project =
      [&](const Block &b, const std::string &indent, std::string &out, std::set<std::string> &loopVars) -> bool {
    bool any = false;
    for (size_t i = 0; i < b.stmts.size(); ++i) {
      const Stmt &st = *b.stmts[i];
      if (const LetStmt *l = isProduce(st)) {
        const std::string tok = l->names[0].name;
        size_t j = i + 1;
        std::vector<const Stmt *> body{&st};
        for (; j < b.stmts.size(); ++j) {
          const Stmt &next = *b.stmts[j];
          body.push_back(&next);
          auto *e = dyn_cast<ExprStmt>(&next);
          if (e && e->expr && sema::calleeName(*e->expr) == ringName + ".commit")
            break;
          auto *elect = dyn_cast<IfStmt>(&next);
          bool copies = (e && e->expr) ||
                        (elect && elect->cond && sema::calleeOp(*elect->cond) == sema::OpId::ElectOne &&
                         !elect->elseBody && !elect->elseIf &&
                         std::all_of(elect->thenBody.stmts.begin(), elect->thenBody.stmts.end(),
                                     [](const StmtPtr &x) { return x->kind == StmtKind::Expr; }));
          if (!copies) {
            LineColumn lc = sm.lineColumn(next.range.file, next.range.begin);
            why = "the produce of ring '" + ringName + "' at line " + std::to_string(lc.line) +
                  " runs more than copies before its commit ('" + source(next.range).substr(0, 40) +
                  "'): only copies move to a producer role";
            return false;
          }
        }
        if (j == b.stmts.size()) {
          why = "the produce of ring '" + ringName + "' (token '" + tok + "') has no commit in its block";
          return false;
        }
        // the statements, elect wrappers unwrapped, each line re-indented
        for (const Stmt *x : body) {
          std::vector<const Stmt *> lines{x};
          if (auto *elect = dyn_cast<IfStmt>(x)) {
            lines.clear();
            for (const StmtPtr &y : elect->thenBody.stmts)
              lines.push_back(y.get());
          }
          for (const Stmt *y : lines) {
            const std::string stmtText = source(y->range);
            for (const std::string &n : own)
              if (n != tok && !loopVars.count(n) && std::regex_search(stmtText, std::regex("\\b" + n + "\\b"))) {
                why = "the produce of ring '" + ringName + "' reads '" + n + "', a value of role '" + roleName +
                      "': a producer role would not have it";
                return false;
              }
            std::string was = indentAt(sm, y->range), line;
            std::istringstream in(stmtText);
            for (bool first = true; std::getline(in, line); first = false)
              out += indent + (first ? line : (line.starts_with(was) ? line.substr(was.size()) : line)) + "\n";
          }
        }
        produced.push_back({&b, i, j});
        i = j;
        any = true;
        continue;
      }
      if (auto *f = dyn_cast<ForStmt>(&st)) {
        std::string inner;
        loopVars.insert(f->var.name);
        bool found = project(f->body, indent + "  ", inner, loopVars);
        loopVars.erase(f->var.name);
        if (why)
          return false;
        if (found) {
          const std::string header = source(SourceRange{f->range.file, f->range.begin, f->body.range.begin + 1});
          for (const std::string &n : own)
            if (!loopVars.count(n) && std::regex_search(header, std::regex("\\b" + n + "\\b"))) {
              why = "a loop around the produces of ring '" + ringName + "' reads '" + n + "', a value of role '" +
                    roleName + "'";
              return false;
            }
          out += indent + header + "\n" + inner + indent + "}\n";
          any = true;
        }
        continue;
      }
      bool nested = false;
      forEachStmt(st, [&](const Stmt &x) { nested |= isProduce(x) != nullptr; });
      if (nested) {
        LineColumn lc = sm.lineColumn(st.range.file, st.range.begin);
        why = "a produce of ring '" + ringName + "' is under the statement at line " + std::to_string(lc.line) +
              " ('" + source(st.range).substr(0, source(st.range).find('\n')) +
              "'), which a producer role cannot repeat: only loops may enclose the produces";
        return false;
      }
    }
    return any;
  };
  produced.clear();
  const std::string roleIndent = indentAt(sm, role->range);
  std::string body;
  std::set<std::string> loopVars;
  bool found = project(role->body, roleIndent + "  ", body, loopVars);
  if (why)
    return refused(*why);
  if (!found)
    return refused("role '" + roleName + "' never produces ring '" + ringName + "'");

  std::vector<std::pair<SourceRange, std::string>> edits;
  // the produces leave X: their whole lines, and loops left empty with them
  std::set<const Stmt *> gone;
  for (const auto &p : produced)
    for (size_t k = p.first; k <= p.last; ++k)
      gone.insert(p.block->stmts[k].get());
  std::function<bool(const Stmt &)> empties = [&](const Stmt &st) {
    if (gone.count(&st))
      return true;
    auto *f = dyn_cast<ForStmt>(&st);
    return f && !f->body.stmts.empty() &&
           std::all_of(f->body.stmts.begin(), f->body.stmts.end(), [&](const StmtPtr &x) { return empties(*x); });
  };
  auto wholeLines = [&](SourceRange r) {
    uint32_t b = sm.lineStart(r.file, sm.lineColumn(r.file, r.begin).line), e = r.end;
    if (e < text.size() && text[e] == '\n')
      ++e;
    return SourceRange{r.file, b, e};
  };
  std::function<void(const Block &)> remove = [&](const Block &b) {
    for (const StmtPtr &x : b.stmts) {
      if (empties(*x))
        edits.push_back({wholeLines(x->range), ""});
      else if (auto *f = dyn_cast<ForStmt>(x.get()))
        remove(f->body);
    }
  };
  remove(role->body);
  // every role one warpgroup up, and the block a warpgroup larger
  auto plus = [&](const Expr &e, int64_t n) {
    std::optional<int64_t> v = sema::evalInt(e, {});
    return v ? std::to_string(*v + n) : source(e.range) + " + " + std::to_string(n);
  };
  auto placement = [&](const RoleStmt &r) {
    const Clause *wgs = clause(r.clauses, "warpgroups");
    return wgs ? wgs : clause(r.clauses, "warps");
  };
  auto isRange = [](const Expr &a) { return a.kind == ExprKind::Binary && a.operands.size() == 2 && a.op == Tok::DotDot; };
  // a role's threads, when its warps are written as numbers
  auto threadsOf = [&](const RoleStmt &r) -> std::optional<int64_t> {
    const Clause *c = placement(r);
    const int64_t unit = (c->name.name == "warpgroups" ? kWarpsPerWarpgroup : 1) * desc.warpSize;
    const Expr &a = *c->args[0];
    if (!isRange(a))
      return unit;
    std::optional<int64_t> lo = sema::evalInt(*a.operand(0), {}), hi = sema::evalInt(*a.operand(1), {});
    return lo && hi ? std::optional((*hi - *lo) * unit) : std::nullopt;
  };
  for (const RoleStmt *r : roles) {
    const Clause *c = placement(*r);
    if (!c || c->args.size() != 1)
      return refused("role '" + r->name.name + "' has no warps(...) or warpgroups(...) clause to move");
    const Expr &a = *c->args[0];
    const int64_t step = c->name.name == "warpgroups" ? 1 : kWarpsPerWarpgroup;
    for (const Expr *bound : isRange(a) ? std::vector<const Expr *>{a.operand(0), a.operand(1)}
                                        : std::vector<const Expr *>{&a})
      edits.push_back({bound->range, plus(*bound, step)});
  }
  const Clause *block = clause(kernel->clauses, "block");
  if (!block || block->args.size() != 1)
    return refused("kernel '" + kernel->name.name + "' has no block(...) clause to grow");
  const int64_t warpgroup = kWarpsPerWarpgroup * desc.warpSize;
  edits.push_back({block->args[0]->range, plus(*block->args[0], warpgroup)});
  edits.push_back({producer->args[0]->range, to});
  // X takes what the producer leaves: the largest budget that fits beside the other roles' (a role without a
  // budget keeps the launch share, unknown here: then X's budget is left as written)
  std::string regsNote;
  std::optional<int64_t> threads = threadsOf(*role);
  if (!clause(role->clauses, "regs") && threads) {
    std::optional<int64_t> others = warpgroup * producerRegs;
    for (const RoleStmt *r : roles) {
      if (r == role)
        continue;
      const Clause *rc = clause(r->clauses, "regs");
      std::optional<int64_t> v = rc && rc->args.size() == 1 ? sema::evalInt(*rc->args[0], {}) : std::nullopt;
      std::optional<int64_t> n = threadsOf(*r);
      others = others && v && n ? std::optional(*others + *n * *v) : std::nullopt;
    }
    if (others) {
      int64_t fit = (int64_t(desc.registersPerSm) - *others) / *threads / desc.setmaxnregStep * desc.setmaxnregStep;
      fit = std::min<int64_t>(fit, desc.setmaxnregMax);
      if (fit >= desc.setmaxnregMin) {
        const Clause *warpsClause = placement(*role);
        edits.push_back({SourceRange{warpsClause->range.file, warpsClause->range.end, warpsClause->range.end},
                         " regs(" + std::to_string(fit) + ")"});
        regsNote = "; '" + roleName + "' regs(" + std::to_string(fit) + ")";
      }
    }
  }
  // the producer role, before X
  const uint32_t at = sm.lineStart(role->range.file, sm.lineColumn(role->range.file, role->range.begin).line);
  edits.push_back({SourceRange{role->range.file, at, at},
                   roleIndent + "role " + to + " warpgroups(0) regs(" + std::to_string(producerRegs) +
                       ") issue(elect) {\n" + body + roleIndent + "}\n\n"});
  return checked(path, applied(text, std::move(edits)),
                 "ring '" + ringName + "': produced by a new role '" + to + "' (warpgroup 0, regs(" +
                     std::to_string(producerRegs) + "), issue(elect)), consumed by '" + roleName + "'" + regsNote);
}

} // namespace

std::span<const TacticInfo> tactics() { return kTactics; }

const syntax::Expr *rasterGroup(const syntax::KernelDecl &kernel, size_t *schedules) {
  const syntax::Expr *group = nullptr;
  size_t calls = 0;
  syntax::forEachCall(kernel.body, [&](const syntax::Expr &call) {
    if (sema::calleeOp(call) != sema::OpId::SchedTiles)
      return;
    ++calls;
    for (const syntax::ExprPtr &arg : call.operands)
      if (arg && arg->kind == syntax::ExprKind::Keyword && arg->text == "group" && arg->operand(0) && !group)
        group = arg->operand(0);
  });
  if (schedules)
    *schedules = calls;
  return group;
}

Expected<TacticResult> applyTactic(const std::string &path, const std::string &text, std::string_view name,
                                   const std::map<std::string, std::string> &args) {
  const TacticInfo *info = nullptr;
  for (const TacticInfo &t : kTactics)
    if (t.name == name)
      info = &t;
  if (!info) {
    std::string known;
    for (const TacticInfo &t : kTactics)
      known += (known.empty() ? "" : ", ") + std::string(t.name);
    return refused("there is no tactic '" + std::string(name) + "'; the tactics are " + known);
  }
  auto arg = [&](const std::string &key) -> const std::string * {
    auto it = args.find(key);
    return it == args.end() || it->second.empty() ? nullptr : &it->second;
  };
  for (const std::string &key : {std::string(subjectKey(name)), std::string("to")})
    if (!arg(key))
      return refused("tactic '" + std::string(name) + "' takes " + std::string(info->args) + "; " + key +
                     " is missing");
  SourceManager sm;
  FileId file = sm.addBuffer(path, text);
  std::vector<Diagnostic> parseDiags;
  syntax::Module m = syntax::parse(sm, file, parseDiags);
  if (std::any_of(parseDiags.begin(), parseDiags.end(), [](const Diagnostic &d) { return d.severity == Severity::Error; }))
    return refused(path + " does not parse; fix its syntax errors first (cake check)");
  const std::string &target = *arg(std::string(subjectKey(name))), &to = *arg("to");
  if (name == "unroll")
    return unroll(path, text, sm, file, m, target, to, arg("line"));
  if (name == "tile")
    return tile(path, text, m, target, to);
  if (name == "persistent")
    return persistent(path, text, sm, m, target, to);
  if (name == "epilogue")
    return epilogue(path, text, sm, m, target, to);
  if (name == "warp-specialize")
    return warpSpecialize(path, text, sm, m, target, to, arg("regs"));
  // stages, param: the subject's expression replaced (a ring's depth, a parameter's default)
  std::string why;
  const syntax::Expr *value = subjectExpr(m, name, target, &why);
  if (!value)
    return refused(why.starts_with("has ") ? path + " " + why : why);
  const std::string was(text.substr(value->range.begin, value->range.size()));
  return checked(path, replace(text, value->range, to),
                 name == "stages" ? "ring '" + target + "': stages(" + was + ") -> stages(" + to + ")"
                                  : "param " + target + ": " + was + " -> " + to);
}

std::string pinParameters(const std::string &text, const std::vector<std::pair<std::string, std::string>> &bindings) {
  SourceManager sm;
  FileId file = sm.addBuffer("pinned.cake", text);
  std::vector<Diagnostic> parseDiags;
  syntax::Module m = syntax::parse(sm, file, parseDiags);
  if (std::any_of(parseDiags.begin(), parseDiags.end(), [](const Diagnostic &d) { return d.severity == Severity::Error; }))
    return text;
  std::vector<std::pair<SourceRange, std::string>> edits;
  for (const syntax::StmtPtr &s : m.items.stmts)
    if (auto *p = syntax::dyn_cast<syntax::ParamDecl>(s.get()))
      for (const auto &[name, value] : bindings)
        if (name == p->name.name)
          edits.push_back(p->defaultValue ? std::pair(p->defaultValue->range, value)
                                          : std::pair(SourceRange{file, p->range.end, p->range.end}, " = " + value));
  return applied(text, std::move(edits));
}

std::optional<std::string> writtenValue(const std::string &text, std::string_view tactic, const std::string &subject) {
  SourceManager sm;
  FileId file = sm.addBuffer("written.cake", text);
  std::vector<Diagnostic> ignored;
  syntax::Module m = syntax::parse(sm, file, ignored);
  const syntax::Expr *value = subjectExpr(m, tactic, subject);
  return value ? std::optional(text.substr(value->range.begin, value->range.size())) : std::nullopt;
}

} // namespace cake
