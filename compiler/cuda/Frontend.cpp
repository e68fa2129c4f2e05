//===- Frontend.cpp - CUDA translation units to kernel events -------------===//
#include "compiler/cuda/Frontend.h"

#include "compiler/cuda/ClangSupport.h"
#include "compiler/cuda/Preamble.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

namespace cake::cuda {
namespace {

/// Collects the events of a kernel body in source order, descending into the device functions it calls (their
/// events located at the kernel's call).
class Collector {
public:
  /// \p quiet: quiet()'s memo, which depends on no kernel: one for the translation unit.
  Collector(clang::ASTContext &ctx, KernelEvents &out, std::map<const clang::FunctionDecl *, bool> &quiet)
      : ctx_(ctx), sm_(ctx.getSourceManager()), out_(out), quiet_(quiet) {}

  /// The events of kernel \p f (its definition).
  void kernel(const clang::FunctionDecl *f) {
    if (auto *bounds = f->getAttr<clang::CUDALaunchBoundsAttr>())
      if (int64_t n = valueOf(bounds->getMaxThreads()); n > 0 && n <= 1024)
        blockThreads_ = n;
    markAssigned(f->getBody());
    visit(f->getBody(), nullptr, "");
  }

private:
  using Env = std::map<const clang::ValueDecl *, int64_t>; ///< values of a thread's variables (valueFor)

  Where whereOf(clang::SourceLocation loc) { return detail::whereOf(sm_, loc); }

  void visit(const clang::Stmt *s, const clang::Stmt *site, const std::string &via) {
    if (!s)
      return;
    const clang::Stmt *at = site ? site : s;
    if (auto *a = llvm::dyn_cast<clang::GCCAsmStmt>(s)) {
      std::string text = a->getAsmString()->getString().str();
      const bool mma = text.find("wgmma.mma_async") != std::string::npos;
      if (!mma) // the operands an instruction reads (an accumulator stored by stmatrix) come first
        for (const clang::Expr *in : a->inputs())
          visit(in, site, via);
      std::string instr;
      std::istringstream in(text);
      // one event per instruction: `;` and new lines separate them
      for (std::string line; std::getline(in, line);) {
        std::stringstream parts(line);
        for (std::string one; std::getline(parts, one, ';');) {
          size_t b = one.find_first_not_of(" \t{}");
          if (b == std::string::npos)
            continue;
          std::string trimmed = one.substr(b);
          while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t' || trimmed.back() == '}'))
            trimmed.pop_back();
          if (trimmed.empty() || trimmed[0] == '.' /* .reg declarations */)
            continue;
          Event e{classifyPtx(trimmed), whereOf(at->getBeginLoc()), trimmed, via};
          const std::vector<std::string> ops = ptxOperands(trimmed);
          auto value = [&](size_t k) { return k < ops.size() ? operandValue(*a, ops[k]) : -1; };
          switch (e.kind) {
          case EventKind::WgmmaMma:
            if (a->getNumOutputs() > 0)
              e.object = identity(a->getOutputExpr(0));
            break;
          case EventKind::TmemLoad: // its registers: reads of them before tcgen05.wait::ld are followed
            if (a->getNumOutputs() > 0)
              e.object = identity(a->getOutputExpr(0));
            if (!e.object.empty())
              tmemDestinations_.insert(e.object.substr(0, e.object.find('#')));
            break;
          case EventKind::MbarInit:
          case EventKind::MbarArrive:
          case EventKind::MbarWait:
            // the barrier: the first bracketed operand (`[%1]`), an input of the asm statement
            for (const std::string &op : ops)
              if (op.size() > 2 && op.front() == '[' && op[1] == '%') {
                unsigned k = static_cast<unsigned>(std::atoi(op.c_str() + 2));
                if (k >= a->getNumOutputs() && k < a->getNumOutputs() + a->getNumInputs())
                  e.barrier = barrierOf(a->getInputExpr(k - a->getNumOutputs()));
                break;
              }
            break;
          case EventKind::WgmmaWait:
          case EventKind::BulkWait:
          case EventKind::MbarExpectTx: // the groups left in flight; the bytes: the last operand
            e.n = ops.empty() ? -1 : value(ops.size() - 1);
            break;
          case EventKind::BulkLoad: // [dst], [src], size, [mbar]
            e.n = value(2);
            break;
          case EventKind::NamedBarrier: // id[, threads]
            e.n = value(0);
            e.threads = ops.size() < 2 ? -1 : value(1) >= 0 ? value(1) : -2;
            if (e.n == 0 && e.threads == -1)
              e.kind = EventKind::CtaBarrier;
            else if (e.threads != -2 && !ops.empty())
              e.reach = reachOf(operandExpr(*a, ops[0]), e.n);
            break;
          default:
            break;
          }
          push(std::move(e));
        }
      }
      return;
    }
    // a branch: its arms are two paths (BranchBegin, BranchElse, BranchEnd); an arm a constant condition rules
    // out (`if constexpr`, a template's parameter) is not taken; what a branch one lane takes does is that lane's
    if (auto *branch = llvm::dyn_cast<clang::IfStmt>(s)) {
      visit(branch->getInit(), site, via);
      visit(branch->getConditionVariableDeclStmt(), site, via);
      const clang::Expr *cond = branch->getCond();
      bool known = false;
      if (cond && !cond->isValueDependent() && cond->EvaluateAsBooleanCondition(known, ctx_)) {
        visit(known ? branch->getThen() : branch->getElse(), site, via);
        return;
      }
      if (branch->isConstexpr()) // a pattern's dependent `if constexpr`: neither arm is decided
        return;
      visit(cond, site, via);
      Event begin{EventKind::BranchBegin, whereOf(at->getBeginLoc()), sourceText(cond), via};
      begin.divergent = cond && dependsOnThread(cond);
      if (begin.divergent && stable(cond)) { // the same thread takes the same arm of every branch on it
        begin.object = keyOf(cond);
        // a role predicate decided over the block's threads (its __launch_bounds__, else every block size up
        // to 1024): an arm no thread takes is not taken; one every thread takes is not divergent
        Decided d = decideOverBlock(cond);
        if (d.all >= 0) {
          visit(d.all ? branch->getThen() : branch->getElse(), site, via);
          return;
        }
        begin.n = d.uniformUpTo;
        begin.shapeDependent = d.uniformUpTo == 0;
      }
      const size_t first = out_.events.size();
      push(begin);
      const bool lane = cond && oneLanePredicate(cond);
      oneLane_ += lane;
      if (begin.divergent) // the threads that run each arm: those whose condition says so (reachOf)
        roles_.push_back({cond, true, args_.size()});
      visit(branch->getThen(), site, via);
      if (begin.divergent)
        roles_.back().arm = false;
      oneLane_ -= lane;
      push({EventKind::BranchElse, whereOf(at->getBeginLoc()), "else", via});
      visit(branch->getElse(), site, via);
      if (begin.divergent)
        roles_.pop_back();
      if (out_.events.size() == first + 2) // a branch with no operation in either arm is no branch to the rules
        out_.events.resize(first);
      else
        push({EventKind::BranchEnd, whereOf(at->getBeginLoc()), "end", via});
      return;
    }
    // a loop: its body between LoopBegin and LoopEnd, and whether it may run zero times
    if (llvm::isa<clang::ForStmt>(s) || llvm::isa<clang::WhileStmt>(s) || llvm::isa<clang::DoStmt>(s) ||
        llvm::isa<clang::CXXForRangeStmt>(s)) {
      // the condition runs once before the body can (a spin-wait `while (!try_wait(...)) {}` is its
      // condition), and again after each iteration
      const clang::Stmt *body = nullptr, *cond = nullptr, *after = nullptr;
      if (auto *f = llvm::dyn_cast<clang::ForStmt>(s)) {
        visit(f->getInit(), site, via);
        visit(f->getCond(), site, via);
        body = f->getBody();
        cond = f->getCond();
        after = f->getInc();
      } else if (auto *w = llvm::dyn_cast<clang::WhileStmt>(s)) {
        visit(w->getCond(), site, via);
        body = w->getBody();
        cond = w->getCond();
      } else if (auto *d = llvm::dyn_cast<clang::DoStmt>(s)) {
        body = d->getBody();
        cond = d->getCond();
      } else {
        body = llvm::cast<clang::CXXForRangeStmt>(s)->getBody();
      }
      Event begin{EventKind::LoopBegin, whereOf(at->getBeginLoc()), cond ? sourceText(llvm::cast<clang::Expr>(cond)) : "loop", via};
      begin.mayBeEmpty = mayBeEmpty(s);
      begin.divergent = cond && dependsOnThread(cond);
      const size_t first = out_.events.size();
      push(begin);
      scopes_.push_back({roles_.size(), true, begin.divergent, false});
      visit(body, site, via);
      visit(after, site, via);
      visit(cond, site, via);
      scopes_.pop_back();
      if (out_.events.size() == first + 1) // nothing in it
        out_.events.resize(first);
      else
        push({EventKind::LoopEnd, whereOf(at->getBeginLoc()), "loop", via});
      return;
    }
    // what leaves a block early changes which threads reach what follows (reachOf): a return of the kernel's
    // under divergent arms is an exit of the threads those arms hold; a break, continue or a helper's return
    // under arms entered inside its loop or helper leaves the rest of that loop or helper undecided; a goto,
    // and a switch on the thread, everything after
    if (llvm::isa<clang::ReturnStmt>(s) && args_.empty()) {
      kernelExits_.push_back(roles_);
    } else if (llvm::isa<clang::ReturnStmt>(s) || llvm::isa<clang::BreakStmt>(s) || llvm::isa<clang::ContinueStmt>(s)) {
      const bool loop = !llvm::isa<clang::ReturnStmt>(s);
      for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
        if (it->loop == loop) { // the innermost loop (break, continue), the helper (return)
          it->lost |= roles_.size() > it->roles;
          break;
        }
    } else if (llvm::isa<clang::GotoStmt>(s) || llvm::isa<clang::IndirectGotoStmt>(s) ||
               (llvm::isa<clang::SwitchStmt>(s) && dependsOnThread(llvm::cast<clang::SwitchStmt>(s)->getCond()))) {
      reachLost_ = true;
    }
    // a C++ store to a __shared__ object (`tile[i] = v`): a generic-proxy write of shared memory
    if (auto *op = llvm::dyn_cast<clang::BinaryOperator>(s); op && op->isAssignmentOp() && writesShared(op->getLHS()))
      push({EventKind::SharedWrite, whereOf(at->getBeginLoc()), "a store to __shared__ memory", via});
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(s)) {
      for (const clang::Stmt *arg : call->arguments())
        visit(arg, site, via);
      const clang::FunctionDecl *f = call->getDirectCallee();
      if (!f)
        return;
      std::string name = f->getNameAsString();
      // the barrier builtins (cooperative_groups' block sync and cuda::barrier come down to them or to PTX)
      if (name.starts_with("__syncthreads") || name == "__syncwarp") {
        push({name == "__syncwarp" ? EventKind::WarpBarrier : EventKind::CtaBarrier, whereOf(at->getBeginLoc()),
              name + "()", via});
        return;
      }
      if (name == "__barrier_sync" || name == "__nvvm_barrier_sync" || name == "__nvvm_barrier_sync_cnt" ||
          name == "__nvvm_barrier0") {
        Event e{EventKind::NamedBarrier, whereOf(at->getBeginLoc()), name + "()", via};
        e.n = call->getNumArgs() > 0 ? valueOf(call->getArg(0)) : 0;
        e.threads = call->getNumArgs() < 2 ? -1 : valueOf(call->getArg(1)) >= 0 ? valueOf(call->getArg(1)) : -2;
        if (e.n == 0 && e.threads == -1)
          e.kind = EventKind::CtaBarrier;
        else if (e.threads != -2)
          e.reach = reachOf(call->getNumArgs() > 0 ? call->getArg(0) : nullptr, e.n);
        push(std::move(e));
        return;
      }
      const clang::FunctionDecl *def = f->getDefinition();
      if (def && def->hasBody() && !quiet(def) && stack_.size() < 16 && stack_.insert(def).second) {
        // the helper's reference and pointer parameters name the caller's arrays
        // and their value parameters the caller's constants (a barrier id, a byte count)
        std::map<const clang::ParmVarDecl *, std::string> names;
        std::map<const clang::ParmVarDecl *, int64_t> values;
        std::set<const clang::ParmVarDecl *> thread;
        for (unsigned i = 0; i < def->getNumParams() && i < call->getNumArgs(); ++i) {
          if (std::string id = identity(call->getArg(i)); !id.empty())
            names[def->getParamDecl(i)] = id;
          if (int64_t v = valueOf(call->getArg(i)); v >= 0)
            values[def->getParamDecl(i)] = v;
          if (dependsOnThread(call->getArg(i)))
            thread.insert(def->getParamDecl(i));
        }
        // and the barriers the caller's arguments name, field by field for a struct built in place
        Barriers barriers;
        for (unsigned i = 0; i < def->getNumParams() && i < call->getNumArgs(); ++i) {
          const clang::ParmVarDecl *parm = def->getParamDecl(i);
          if (std::string b = barrierOf(call->getArg(i)); !b.empty())
            barriers.params[parm] = b;
          for (const auto &[field, value] : fieldsOf(call->getArg(i)))
            if (std::string b = barrierOf(value); !b.empty())
              barriers.fields[{parm, field}] = b;
        }
        params_.push_back(std::move(names));
        values_.push_back(std::move(values));
        threadParams_.push_back(std::move(thread));
        barriers_.push_back(std::move(barriers));
        std::map<const clang::ParmVarDecl *, const clang::Expr *> args; // a thread's values of them (reachOf)
        for (unsigned i = 0; i < def->getNumParams() && i < call->getNumArgs(); ++i)
          args[def->getParamDecl(i)] = call->getArg(i);
        args_.push_back(std::move(args));
        scopes_.push_back({roles_.size(), false, false, false});
        visit(def->getBody(), at, via.empty() ? f->getQualifiedNameAsString() : via);
        scopes_.pop_back();
        args_.pop_back();
        barriers_.pop_back();
        threadParams_.pop_back();
        values_.pop_back();
        params_.pop_back();
        stack_.erase(def);
      }
      return;
    }
    // a read of an element of a float array (an accumulator's register), or of a 32-bit one a tcgen05.ld wrote
    if (auto *cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s); cast && cast->getCastKind() == clang::CK_LValueToRValue &&
                                                               registerElement(cast->getType().getTypePtr())) {
      std::string id = identity(cast->getSubExpr());
      if (!id.empty() && !cast->getType()->isRealFloatingType() && !tmemDestinations_.count(id.substr(0, id.find('#'))))
        id.clear();
      if (!id.empty()) {
        Event e{EventKind::AccRead, whereOf(at->getBeginLoc()), "a read of " + id.substr(id.find(':') + 1), via};
        e.object = id;
        push(std::move(e));
      }
      for (const clang::Stmt *child : s->children())
        visit(child, site, via);
      return;
    }
    for (const clang::Stmt *child : s->children())
      visit(child, site, via);
  }

  /// Whether visiting the body of \p f could push no event, whatever its caller passes: no asm, no barrier
  /// builtin, no store to __shared__, no read of a register (registerElement) that identity() could name (a parameter's or a local
  /// array's element), and only such callees. CuTe's tensor algebra is most of a CuTe kernel's calls, each
  /// entered at every call site: 7.4 of the 20 s FlashKDA's fwd_launch.cu took before this (its 28 kernel
  /// instantiations). Memoized; a function on a call cycle is not quiet.
  bool quiet(const clang::FunctionDecl *f) {
    auto [it, added] = quiet_.try_emplace(f, false);
    if (!added)
      return it->second;
    bool result = true;
    std::vector<const clang::Stmt *> work{f->getBody()};
    while (result && !work.empty()) {
      const clang::Stmt *s = work.back();
      work.pop_back();
      if (!s)
        continue;
      if (llvm::isa<clang::AsmStmt>(s))
        result = false;
      else if (auto *op = llvm::dyn_cast<clang::BinaryOperator>(s); op && op->isAssignmentOp() && writesShared(op->getLHS()))
        result = false;
      else if (auto *call = llvm::dyn_cast<clang::CallExpr>(s)) {
        if (const clang::FunctionDecl *g = call->getDirectCallee()) {
          const std::string name = g->getNameAsString();
          const clang::FunctionDecl *def = g->getDefinition();
          if (name.starts_with("__syncthreads") || name == "__syncwarp" || name.starts_with("__barrier_sync") ||
              name.starts_with("__nvvm_barrier") || (def && def->hasBody() && !quiet(def)))
            result = false;
        }
      } else if (auto *cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s);
                 cast && cast->getCastKind() == clang::CK_LValueToRValue && registerElement(cast->getType().getTypePtr())) {
        const clang::Expr *e = cast->getSubExpr()->IgnoreParenImpCasts();
        while (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
          e = a->getBase()->IgnoreParenImpCasts();
        if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e))
          if (llvm::isa<clang::ParmVarDecl>(ref->getDecl()) ||
              (llvm::isa<clang::VarDecl>(ref->getDecl()) &&
               llvm::isa<clang::ConstantArrayType>(ref->getDecl()->getType().getCanonicalType().getTypePtr())))
            result = false;
      }
      for (const clang::Stmt *child : s->children())
        work.push_back(child);
    }
    quiet_[f] = result;
    return result;
  }

  void push(Event e) {
    e.oneLane = oneLane_ > 0;
    out_.events.push_back(std::move(e));
  }

  /// `threadIdx.x` and its kin (CUDA's builtin variables, read through a property): the variable's and the
  /// component's names; nullopt for anything else.
  static std::optional<std::pair<llvm::StringRef, llvm::StringRef>> builtinComponent(const clang::Expr *e) {
    e = e->IgnoreParenCasts();
    if (auto *p = llvm::dyn_cast<clang::PseudoObjectExpr>(e)) // the semantic form hides it behind an opaque value
      e = p->getSyntacticForm()->IgnoreParenCasts();
    auto *m = llvm::dyn_cast<clang::MSPropertyRefExpr>(e);
    if (!m)
      return std::nullopt;
    const clang::Expr *base = m->getBaseExpr()->IgnoreParenImpCasts();
    if (auto *o = llvm::dyn_cast<clang::OpaqueValueExpr>(base); o && o->getSourceExpr())
      base = o->getSourceExpr()->IgnoreParenImpCasts();
    auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(base);
    if (!ref)
      return std::nullopt;
    return std::pair{ref->getDecl()->getName(), m->getPropertyDecl()->getName()};
  }

  /// Whether \p cond selects one lane of a warp: `X == 0` (or `0 == X`) with X reading threadIdx or a lane
  /// index (a function whose name says lane), or a call of an elect (a function whose name says elect).
  static bool oneLanePredicate(const clang::Expr *cond) {
    cond = cond->IgnoreParenImpCasts();
    auto names = [](const clang::Expr *e, const char *what) {
      bool found = false;
      std::function<void(const clang::Stmt *)> walk = [&](const clang::Stmt *x) {
        if (!x || found)
          return;
        if (auto *call = llvm::dyn_cast<clang::CallExpr>(x))
          if (const clang::FunctionDecl *f = call->getDirectCallee())
            found |= llvm::StringRef(f->getNameAsString()).contains_insensitive(what);
        if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(x))
          found |= llvm::StringRef(ref->getDecl()->getNameAsString()).contains_insensitive(what);
        for (const clang::Stmt *c : x->children())
          walk(c);
      };
      walk(e);
      return found;
    };
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(cond))
      return names(call, "elect");
    auto *eq = llvm::dyn_cast<clang::BinaryOperator>(cond);
    if (!eq || eq->getOpcode() != clang::BO_EQ)
      return false;
    auto zero = [](const clang::Expr *e) {
      auto *lit = llvm::dyn_cast<clang::IntegerLiteral>(e->IgnoreParenImpCasts());
      return lit && lit->getValue() == 0;
    };
    const clang::Expr *x = zero(eq->getRHS()) ? eq->getLHS() : zero(eq->getLHS()) ? eq->getRHS() : nullptr;
    return x && (names(x, "threadIdx") || names(x, "lane"));
  }

  /// Which register array \p e is or is an element of: "<decl>:name" for a float array variable of the kernel
  /// (or of a helper), "<decl>:name#k" for buffer k of an array of arrays ("#?" when k is not a constant), the
  /// caller's name for a helper's reference parameter; "" for anything else.
  std::string identity(const clang::Expr *e) {
    e = e->IgnoreParenImpCasts();
    std::vector<const clang::Expr *> subscripts; // outermost first
    while (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e)) {
      subscripts.push_back(a->getIdx());
      e = a->getBase()->IgnoreParenImpCasts();
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf)
      return identity(u->getSubExpr());
    auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
    if (!ref)
      return "";
    if (auto *parm = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()); parm && !params_.empty()) {
      auto it = params_.back().find(parm);
      if (it != params_.back().end())
        return it->second;
    }
    auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
    if (!var)
      return "";
    const clang::Type *t = var->getType().getCanonicalType().getTypePtr();
    auto *array = llvm::dyn_cast<clang::ConstantArrayType>(t);
    if (!array)
      return "";
    const clang::Type *element = array->getElementType().getCanonicalType().getTypePtr();
    std::string id = std::to_string(reinterpret_cast<uintptr_t>(var)) + ":" + var->getNameAsString();
    if (auto *inner = llvm::dyn_cast<clang::ConstantArrayType>(element)) {
      if (!registerElement(inner->getElementType().getTypePtr()))
        return "";
      if (subscripts.empty())
        return id; // the whole array of buffers
      clang::Expr::EvalResult k;
      return id + "#" + (subscripts.back()->EvaluateAsInt(k, ctx_) ? llvm::toString(k.Val.getInt(), 10) : "?");
    }
    return registerElement(element) ? id : "";
  }

  /// A register an MMA accumulates into or a tcgen05.ld fills: a float, or a 32-bit integer (tcgen05.ld's b32,
  /// an integer MMA's s32).
  bool registerElement(const clang::Type *t) const {
    t = t->getCanonicalTypeInternal().getTypePtr();
    return t->isRealFloatingType() || (t->isIntegerType() && !t->isDependentType() && ctx_.getTypeSize(t) == 32);
  }

  /// The input expression PTX operand \p token (`%k`, outputs first) names, or null.
  static const clang::Expr *operandExpr(const clang::GCCAsmStmt &a, const std::string &token) {
    if (token.size() < 2 || token[0] != '%' || !std::isdigit(static_cast<unsigned char>(token[1])))
      return nullptr;
    unsigned k = static_cast<unsigned>(std::atoi(token.c_str() + 1));
    return k >= a.getNumOutputs() && k < a.getNumOutputs() + a.getNumInputs() ? a.getInputExpr(k - a.getNumOutputs())
                                                                                : nullptr;
  }

  /// The named-barrier id each thread of the block uses at the code being visited (Event::reach): -1 for a
  /// thread that does not get here (an arm around it its condition rules out, or a return of the kernel's it
  /// took before); \p n the id when it is a constant, else \p id read for each thread. Empty when not decided:
  /// no __launch_bounds__, a block of more dimensions, a divergent loop or a lost scope around it, or a condition
  /// or id valueFor cannot tell for some thread (a condition on data).
  std::vector<int16_t> reachOf(const clang::Expr *id, int64_t n) {
    if (!blockThreads_ || multiDimensional_ || reachLost_ || (n < 0 && !id))
      return {};
    // each evaluation of a condition or id for a thread counts: past a budget per kernel (thousands of unrolled
    // barriers under conditions of their own) the rest are not decided, a note rather than a long wait
    if (reachSpent_ > kReachBudget)
      return {};
    for (const Scope &scope : scopes_)
      if (scope.lost || scope.divergent)
        return {};
    std::vector<int16_t> out(static_cast<size_t>(blockThreads_), -1);
    for (int64_t tid = 0; tid < blockThreads_; ++tid) {
      std::vector<std::optional<Env>> envs(args_.size() + 1);
      auto holds = [&](const std::vector<Role> &arms) -> std::optional<bool> {
        for (const Role &r : arms) {
          // a condition of the kernel's own (not a helper's) has one value per thread: read once per kernel
          std::optional<int64_t> v;
          if (r.frame == 0) {
            auto [it, fresh] = kernelConds_.try_emplace(r.cond);
            if (fresh) {
              it->second.resize(static_cast<size_t>(blockThreads_));
              for (int64_t t = 0; t < blockThreads_; ++t) {
                Env none;
                it->second[static_cast<size_t>(t)] = valueFor(r.cond, t, none, 0);
              }
              reachSpent_ += static_cast<size_t>(blockThreads_);
            }
            v = it->second[static_cast<size_t>(tid)];
          } else {
            v = valueFor(r.cond, tid, frameEnv(r.frame, tid, envs), 0);
            ++reachSpent_;
          }
          if (!v)
            return std::nullopt;
          if ((*v != 0) != r.arm)
            return false;
        }
        return true;
      };
      bool exited = false;
      for (const std::vector<Role> &exit : kernelExits_) {
        std::optional<bool> took = holds(exit);
        if (!took)
          return {};
        if ((exited = *took))
          break;
      }
      if (exited)
        continue;
      std::optional<bool> here = holds(roles_);
      if (!here)
        return {};
      if (!*here)
        continue;
      std::optional<int64_t> v = n >= 0 ? std::optional<int64_t>(n) : valueFor(id, tid, frameEnv(args_.size(), tid, envs), 0);
      if (!v || *v < 0 || *v > INT16_MAX)
        return {};
      out[static_cast<size_t>(tid)] = static_cast<int16_t>(*v);
    }
    return out;
  }

  /// The values for thread \p tid of the parameters of the helper entered \p frame deep (its callers' arguments,
  /// each read in its caller's frame; a parameter valueFor cannot tell is left out), memoized in \p envs.
  Env &frameEnv(size_t frame, int64_t tid, std::vector<std::optional<Env>> &envs) {
    if (!envs[frame]) {
      Env env;
      if (frame > 0) {
        Env &outer = frameEnv(frame - 1, tid, envs);
        for (const auto &[parm, arg] : args_[frame - 1])
          if (std::optional<int64_t> v = valueFor(arg, tid, outer, 0))
            env[parm] = *v;
      }
      envs[frame] = std::move(env);
    }
    return *envs[frame];
  }

  /// The value of PTX operand \p token: `%k` names the asm statement's k-th operand (outputs first), else a
  /// literal; -1 when not a constant.
  int64_t operandValue(const clang::GCCAsmStmt &a, const std::string &token) {
    if (token.empty())
      return -1;
    if (token[0] == '%') {
      unsigned k = static_cast<unsigned>(std::atoi(token.c_str() + 1));
      if (k < a.getNumOutputs() || k >= a.getNumOutputs() + a.getNumInputs())
        return -1;
      return valueOf(a.getInputExpr(k - a.getNumOutputs()));
    }
    char *end = nullptr;
    long long v = std::strtoll(token.c_str(), &end, 0);
    return end && *end == '\0' && v >= 0 ? v : -1;
  }

  /// The value of \p e when it is a constant, or a helper's parameter the caller passed a constant; else -1.
  int64_t valueOf(const clang::Expr *e) {
    if (!e || e->isValueDependent())
      return -1;
    clang::Expr::EvalResult v;
    if (e->EvaluateAsInt(v, ctx_))
      return v.Val.getInt().isNegative() ? -1 : static_cast<int64_t>(v.Val.getInt().getLimitedValue(INT64_MAX));
    if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (auto *parm = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()); parm && !values_.empty())
        if (auto it = values_.back().find(parm); it != values_.back().end())
          return it->second;
    return -1;
  }

  /// Whether the threads of a block may disagree on \p x: it reads threadIdx, a lane or warp index (%laneid,
  /// %warpid, %tid in asm), an elect, a local variable initialized from one, a helper's parameter passed one, or
  /// calls a device function that does (followed to a depth of 6).
  bool dependsOnThread(const clang::Stmt *x, int depth = 0) {
    if (!x || depth > 6)
      return false;
    if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(x)) {
      const clang::ValueDecl *d = ref->getDecl();
      if (d->getName() == "threadIdx")
        return true;
      if (auto *parm = llvm::dyn_cast<clang::ParmVarDecl>(d))
        return !threadParams_.empty() && threadParams_.back().count(parm);
      if (auto *var = llvm::dyn_cast<clang::VarDecl>(d); var && var->hasLocalStorage() && var->getInit()) {
        auto [it, added] = threadVars_.try_emplace(var, false);
        if (added)
          it->second = dependsOnThread(var->getInit(), depth + 1);
        return it->second;
      }
      return false;
    }
    if (auto *e = llvm::dyn_cast<clang::Expr>(x))
      if (auto component = builtinComponent(e))
        return component->first == "threadIdx";
    if (auto *a = llvm::dyn_cast<clang::GCCAsmStmt>(x)) {
      std::string text = a->getAsmString()->getString().str();
      return text.find("%laneid") != std::string::npos || text.find("%warpid") != std::string::npos ||
             text.find("%tid") != std::string::npos || text.find("elect.sync") != std::string::npos;
    }
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(x))
      if (const clang::FunctionDecl *f = call->getDirectCallee()) {
        if (llvm::StringRef(f->getQualifiedNameAsString()).contains_insensitive("elect"))
          return true;
        const clang::FunctionDecl *def = f->getDefinition();
        if (def && def->hasBody()) {
          auto [it, added] = threadFunctions_.try_emplace(def, false);
          if (added)
            it->second = dependsOnThread(def->getBody(), depth + 1);
          if (it->second)
            return true;
        }
      }
    for (const clang::Stmt *child : x->children())
      if (dependsOnThread(child, depth))
        return true;
    return false;
  }

  /// The locals of the kernel that may change after their initialization: assigned, incremented, their address
  /// taken, or passed to a reference parameter.
  void markAssigned(const clang::Stmt *x) {
    if (!x)
      return;
    // a block of more than one dimension: threadIdx.x then spans blockDim.x, not the block's threads
    if (auto *e = llvm::dyn_cast<clang::Expr>(x))
      if (auto c = builtinComponent(e); c && (c->first == "threadIdx" || c->first == "blockDim") && c->second != "x")
        multiDimensional_ = true;
    auto local = [&](const clang::Expr *e) {
      if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
        assigned_.insert(ref->getDecl());
    };
    if (auto *op = llvm::dyn_cast<clang::BinaryOperator>(x); op && op->isAssignmentOp())
      local(op->getLHS());
    if (auto *op = llvm::dyn_cast<clang::UnaryOperator>(x);
        op && (op->isIncrementDecrementOp() || op->getOpcode() == clang::UO_AddrOf))
      local(op->getSubExpr());
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(x))
      if (const clang::FunctionDecl *f = call->getDirectCallee())
        for (unsigned i = 0; i < f->getNumParams() && i < call->getNumArgs(); ++i)
          if (f->getParamDecl(i)->getType()->isReferenceType())
            local(call->getArg(i));
    for (const clang::Stmt *child : x->children())
      markAssigned(child);
  }

  /// Whether \p e has one value per thread for the whole kernel: built of constants, threadIdx, the kernel's
  /// parameters and locals that never change after an initialization of that kind, and calls of functions that
  /// only read the thread's identity (lane_id(), warp_id(); not an elect).
  bool stable(const clang::Expr *e, int depth = 0) {
    if (!e || depth > 6 || e->isValueDependent())
      return false;
    e = e->IgnoreParenCasts();
    if (auto component = builtinComponent(e))
      return component->first == "threadIdx";
    if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      const clang::ValueDecl *d = ref->getDecl();
      if (d->getName() == "threadIdx" || llvm::isa<clang::EnumConstantDecl>(d))
        return true;
      if (assigned_.count(d))
        return false;
      if (llvm::isa<clang::ParmVarDecl>(d))
        return params_.empty(); // the kernel's own; a helper's differs from call to call
      auto *var = llvm::dyn_cast<clang::VarDecl>(d);
      return var && (var->getType().isConstQualified() && !var->hasLocalStorage()
                         ? var->getInit() && var->getInit()->isEvaluatable(ctx_)
                         : var->hasLocalStorage() && var->getInit() && stable(var->getInit(), depth + 1));
    }
    if (llvm::isa<clang::IntegerLiteral>(e) || llvm::isa<clang::CXXBoolLiteralExpr>(e) || e->isEvaluatable(ctx_))
      return true;
    if (auto *op = llvm::dyn_cast<clang::BinaryOperator>(e))
      return !op->isAssignmentOp() && stable(op->getLHS(), depth) && stable(op->getRHS(), depth);
    if (auto *op = llvm::dyn_cast<clang::UnaryOperator>(e))
      return !op->isIncrementDecrementOp() && op->getOpcode() != clang::UO_Deref && stable(op->getSubExpr(), depth);
    if (auto *c = llvm::dyn_cast<clang::ConditionalOperator>(e))
      return stable(c->getCond(), depth) && stable(c->getTrueExpr(), depth) && stable(c->getFalseExpr(), depth);
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
      const clang::FunctionDecl *f = call->getDirectCallee();
      if (!f || llvm::StringRef(f->getQualifiedNameAsString()).contains_insensitive("elect"))
        return false;
      for (const clang::Expr *arg : call->arguments())
        if (!stable(arg, depth + 1))
          return false;
      return readsOnlyIdentity(f, depth + 1);
    }
    return false;
  }

  struct Decided {
    int all = -1;             ///< 1: every thread of the block takes the then-arm, 0: none, -1: not so or unknown
    /// without launch bounds: the block size up to which all threads agree; 0: not decided, the block has more
    /// than one dimension
    int64_t uniformUpTo = -1;
  };

  /// \p cond evaluated for every threadIdx.x of a 1-D block (launch bounds, else 1024 threads).
  Decided decideOverBlock(const clang::Expr *cond) {
    const int64_t n = blockThreads_ ? blockThreads_ : 1024;
    Decided d;
    std::optional<int64_t> first;
    for (int64_t tid = 0; tid < n; ++tid) {
      Env env;
      std::optional<int64_t> v = valueFor(cond, tid, env, 0);
      if (!v)
        return {};
      if (!first) {
        first = *v != 0;
      } else if ((*v != 0) != *first) {
        // the threads disagree from tid on: uniform only for smaller blocks, said when the size is not known;
        // in a block of more dimensions threadIdx.x spans only blockDim.x: not decided (0)
        if (multiDimensional_)
          d.uniformUpTo = 0;
        else if (!blockThreads_ && tid % 32 == 0)
          d.uniformUpTo = tid;
        return d;
      }
    }
    d.all = *first ? 1 : 0;
    return d;
  }

  /// The value of stable() expression \p e for thread \p tid (threadIdx.x; y and z not decided), with the
  /// values of a helper's parameters and locals in \p env; nullopt where it cannot tell.
  std::optional<int64_t> valueFor(const clang::Expr *e, int64_t tid, Env &env, int depth) {
    if (!e || depth > 6 || e->isValueDependent())
      return std::nullopt;
    e = e->IgnoreParenCasts();
    clang::Expr::EvalResult k;
    if (e->EvaluateAsInt(k, ctx_))
      return k.Val.getInt().getExtValue();
    if (auto component = builtinComponent(e)) // threadIdx.x is the thread's; y and z are not decided
      return component->first == "threadIdx" && component->second == "x" ? std::optional<int64_t>(tid)
                                                                         : std::nullopt;
    if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      if (auto it = env.find(ref->getDecl()); it != env.end())
        return it->second;
      auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var && !llvm::isa<clang::ParmVarDecl>(var) && var->hasLocalStorage() && var->getInit() &&
          !assigned_.count(var))
        return valueFor(var->getInit(), tid, env, depth + 1);
      return std::nullopt;
    }
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
      std::optional<int64_t> x = valueFor(u->getSubExpr(), tid, env, depth);
      if (!x)
        return std::nullopt;
      switch (u->getOpcode()) {
      case clang::UO_LNot: return !*x;
      case clang::UO_Minus: return -*x;
      case clang::UO_Not: return ~*x;
      case clang::UO_Plus: return *x;
      default: return std::nullopt;
      }
    }
    if (auto *c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
      std::optional<int64_t> x = valueFor(c->getCond(), tid, env, depth);
      return x ? valueFor(*x ? c->getTrueExpr() : c->getFalseExpr(), tid, env, depth) : std::nullopt;
    }
    if (auto *b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
      std::optional<int64_t> x = valueFor(b->getLHS(), tid, env, depth);
      if (b->getOpcode() == clang::BO_LAnd && x && !*x)
        return 0;
      if (b->getOpcode() == clang::BO_LOr && x && *x)
        return 1;
      std::optional<int64_t> y = valueFor(b->getRHS(), tid, env, depth);
      if (!x || !y)
        return std::nullopt;
      switch (b->getOpcode()) {
      case clang::BO_Add: return *x + *y;
      case clang::BO_Sub: return *x - *y;
      case clang::BO_Mul: return *x * *y;
      case clang::BO_Div: return *y ? std::optional<int64_t>(*x / *y) : std::nullopt;
      case clang::BO_Rem: return *y ? std::optional<int64_t>(*x % *y) : std::nullopt;
      case clang::BO_And: return *x & *y;
      case clang::BO_Or: return *x | *y;
      case clang::BO_Xor: return *x ^ *y;
      case clang::BO_Shl: return *y >= 0 && *y < 63 ? std::optional<int64_t>(*x << *y) : std::nullopt;
      case clang::BO_Shr: return *y >= 0 && *y < 63 ? std::optional<int64_t>(*x >> *y) : std::nullopt;
      case clang::BO_LT: return *x < *y;
      case clang::BO_LE: return *x <= *y;
      case clang::BO_GT: return *x > *y;
      case clang::BO_GE: return *x >= *y;
      case clang::BO_EQ: return *x == *y;
      case clang::BO_NE: return *x != *y;
      case clang::BO_LAnd: return *x && *y;
      case clang::BO_LOr: return *x || *y;
      default: return std::nullopt;
      }
    }
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
      const clang::FunctionDecl *f = call->getDirectCallee();
      if (!f)
        return std::nullopt;
      // a warp shuffle from a constant lane: the value that lane has
      if (f->getName().starts_with("__shfl_sync") && call->getNumArgs() >= 3) {
        std::optional<int64_t> lane = valueFor(call->getArg(2), tid, env, depth);
        return lane && *lane >= 0 && *lane < 32 ? valueFor(call->getArg(1), tid / 32 * 32 + *lane, env, depth)
                                                : std::nullopt;
      }
      const clang::FunctionDecl *def = f->getDefinition();
      if (!def || !def->hasBody() || !readsOnlyIdentity(def, depth))
        return std::nullopt;
      Env inner;
      for (unsigned i = 0; i < def->getNumParams() && i < call->getNumArgs(); ++i) {
        std::optional<int64_t> v = valueFor(call->getArg(i), tid, env, depth);
        if (!v)
          return std::nullopt;
        inner[def->getParamDecl(i)] = *v;
      }
      return runStraight(def->getBody(), tid, inner, depth + 1);
    }
    return std::nullopt;
  }

  /// The value a straight-line function body returns for thread \p tid: declarations with initializers, asm
  /// reading %laneid into a local, one return.
  std::optional<int64_t> runStraight(const clang::Stmt *body, int64_t tid, Env &env, int depth) {
    auto *block = llvm::dyn_cast<clang::CompoundStmt>(body);
    if (!block)
      return std::nullopt;
    for (const clang::Stmt *st : block->body()) {
      if (auto *ret = llvm::dyn_cast<clang::ReturnStmt>(st))
        return valueFor(ret->getRetValue(), tid, env, depth);
      if (auto *decl = llvm::dyn_cast<clang::DeclStmt>(st)) {
        for (const clang::Decl *d : decl->decls())
          if (auto *var = llvm::dyn_cast<clang::VarDecl>(d); var && var->getInit())
            if (std::optional<int64_t> v = valueFor(var->getInit(), tid, env, depth))
              env[var] = *v;
        continue;
      }
      if (auto *a = llvm::dyn_cast<clang::GCCAsmStmt>(st)) {
        llvm::StringRef text = a->getAsmString()->getString();
        auto *out = a->getNumOutputs() == 1
                        ? llvm::dyn_cast<clang::DeclRefExpr>(a->getOutputExpr(0)->IgnoreParenImpCasts())
                        : nullptr;
        if (out && text.contains("%laneid"))
          env[out->getDecl()] = tid % 32;
        continue;
      }
      return std::nullopt;
    }
    return std::nullopt;
  }

  /// The identity of a stable() expression: its structure, with the declarations it names (two conditions
  /// written alike on the same variables have the same key).
  std::string keyOf(const clang::Expr *e) {
    e = e->IgnoreParenCasts();
    if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e))
      return ref->getDecl()->getName().str() + "@" + std::to_string(reinterpret_cast<uintptr_t>(ref->getDecl()));
    clang::Expr::EvalResult v;
    if (!e->isValueDependent() && e->EvaluateAsInt(v, ctx_))
      return llvm::toString(v.Val.getInt(), 10);
    if (auto component = builtinComponent(e))
      return (component->first + "." + component->second).str();
    if (auto *op = llvm::dyn_cast<clang::BinaryOperator>(e))
      return "(" + keyOf(op->getLHS()) + " " + op->getOpcodeStr().str() + " " + keyOf(op->getRHS()) + ")";
    if (auto *op = llvm::dyn_cast<clang::UnaryOperator>(e))
      return "(" + clang::UnaryOperator::getOpcodeStr(op->getOpcode()).str() + keyOf(op->getSubExpr()) + ")";
    if (auto *c = llvm::dyn_cast<clang::ConditionalOperator>(e))
      return "(" + keyOf(c->getCond()) + " ? " + keyOf(c->getTrueExpr()) + " : " + keyOf(c->getFalseExpr()) + ")";
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(e)) {
      std::string key = std::to_string(reinterpret_cast<uintptr_t>(call->getDirectCallee())) + "(";
      for (const clang::Expr *arg : call->arguments())
        key += keyOf(arg) + ",";
      return key + ")";
    }
    return "?" + std::to_string(reinterpret_cast<uintptr_t>(e)); // never equal to another
  }

  /// Whether device function \p f reads nothing but its arguments and the thread's identity: no memory (no
  /// subscript, dereference or arrow), asm that only moves a special register, calls of the like or of the
  /// warp shuffles.
  bool readsOnlyIdentity(const clang::FunctionDecl *f, int depth) {
    if (f->getName().starts_with("__shfl") || f->getName().starts_with("__nvvm_read_ptx_sreg"))
      return true;
    const clang::FunctionDecl *def = f->getDefinition();
    if (!def || !def->hasBody())
      return false;
    auto [it, added] = identityFunctions_.try_emplace(def, false);
    if (!added)
      return it->second;
    std::function<bool(const clang::Stmt *)> ok = [&](const clang::Stmt *x) -> bool {
      if (!x)
        return true;
      if (llvm::isa<clang::ArraySubscriptExpr>(x) || llvm::isa<clang::CXXThisExpr>(x))
        return false;
      if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(x); u && u->getOpcode() == clang::UO_Deref)
        return false;
      if (auto *m = llvm::dyn_cast<clang::MemberExpr>(x); m && m->isArrow())
        return false;
      if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(x))
        if (auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()); var && var->hasGlobalStorage() &&
                                                                       !var->getType().isConstQualified() &&
                                                                       var->getName() != "threadIdx")
          return false;
      if (auto *a = llvm::dyn_cast<clang::GCCAsmStmt>(x)) {
        llvm::StringRef text = a->getAsmString()->getString().ltrim();
        return text.starts_with("mov.") && text.count(';') <= 1;
      }
      if (auto *call = llvm::dyn_cast<clang::CallExpr>(x)) {
        const clang::FunctionDecl *g = call->getDirectCallee();
        if (!g || depth > 6 || !readsOnlyIdentity(g, depth + 1))
          return false;
      }
      for (const clang::Stmt *child : x->children())
        if (!ok(child))
          return false;
      return true;
    };
    return it->second = ok(def->getBody());
  }

  /// The fields of a struct argument built in place and what each is initialized from: a braced list of an
  /// aggregate (`f({a, b})`), or a constructor whose member initializers take its parameters (`: bar(_bar)`),
  /// through temporaries and copies.
  static std::vector<std::pair<const clang::FieldDecl *, const clang::Expr *>> fieldsOf(const clang::Expr *e) {
    std::vector<std::pair<const clang::FieldDecl *, const clang::Expr *>> out;
    for (int hops = 0; e && hops < 8; ++hops) {
      e = e->IgnoreImplicit()->IgnoreParenCasts();
      if (auto *list = llvm::dyn_cast<clang::InitListExpr>(e)) {
        if (const clang::RecordDecl *record = list->getType()->getAsRecordDecl()) {
          unsigned j = 0;
          for (const clang::FieldDecl *field : record->fields())
            if (j < list->getNumInits())
              out.emplace_back(field, list->getInit(j++));
        }
        return out;
      }
      auto *construct = llvm::dyn_cast<clang::CXXConstructExpr>(e);
      if (!construct)
        return out;
      const clang::CXXConstructorDecl *ctor = construct->getConstructor();
      if (construct->getNumArgs() == 1 && (ctor->isCopyOrMoveConstructor())) {
        e = construct->getArg(0); // a copy or move of the temporary
        continue;
      }
      for (const clang::CXXCtorInitializer *init : ctor->inits()) {
        if (!init->isMemberInitializer() || !init->getInit())
          continue;
        auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(init->getInit()->IgnoreImplicit()->IgnoreParenCasts());
        auto *parm = ref ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
        if (parm && parm->getFunctionScopeIndex() < construct->getNumArgs())
          out.emplace_back(init->getMember(), construct->getArg(parm->getFunctionScopeIndex()));
      }
      return out;
    }
    return out;
  }

  /// The variable an mbarrier's address comes from ("name@decl"), through casts, `&`, subscripts (an array of
  /// barriers is one), fields, locals' initializers, address conversions (a call's first argument) and helpers'
  /// parameters; "" when it cannot be followed.
  std::string barrierOf(const clang::Expr *e, int depth = 0) {
    if (!e || depth > 8)
      return "";
    e = e->IgnoreImplicit()->IgnoreParenCasts();
    auto named = [](const clang::NamedDecl *d) {
      return d->getNameAsString() + "@" + std::to_string(reinterpret_cast<uintptr_t>(d));
    };
    if (auto *u = llvm::dyn_cast<clang::UnaryOperator>(e); u && (u->getOpcode() == clang::UO_AddrOf ||
                                                               u->getOpcode() == clang::UO_Deref))
      return barrierOf(u->getSubExpr(), depth + 1);
    if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
      return barrierOf(a->getBase(), depth + 1);
    if (auto *m = llvm::dyn_cast<clang::MemberExpr>(e)) {
      const clang::Expr *base = m->getBase()->IgnoreImplicit()->IgnoreParenCasts();
      if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(base); ref && !barriers_.empty())
        if (auto *parm = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()))
          if (auto *field = llvm::dyn_cast<clang::FieldDecl>(m->getMemberDecl()))
            if (auto it = barriers_.back().fields.find({parm, field}); it != barriers_.back().fields.end())
              return it->second;
      std::string inner = llvm::isa<clang::CXXThisExpr>(base) ? "this" : barrierOf(base, depth + 1);
      return inner.empty() ? "" : inner + "." + named(m->getMemberDecl());
    }
    if (auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      if (auto *parm = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()); parm && !barriers_.empty()) {
        auto it = barriers_.back().params.find(parm);
        return it != barriers_.back().params.end() ? it->second : "";
      }
      auto *var = llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
      if (var && var->hasLocalStorage() && var->getInit() && !var->getType()->isReferenceType() &&
          (var->getType()->isIntegerType() || var->getType()->isPointerType()))
        return barrierOf(var->getInit(), depth + 1); // `uint32_t a = smem_addr(&bar)`
      if (var && var->getType()->isReferenceType() && var->getInit())
        return barrierOf(var->getInit(), depth + 1);
      return var ? named(var) : "";
    }
    if (auto *call = llvm::dyn_cast<clang::CXXMemberCallExpr>(e))
      return barrierOf(call->getImplicitObjectArgument(), depth + 1);
    if (auto *call = llvm::dyn_cast<clang::CallExpr>(e); call && call->getNumArgs() > 0)
      return barrierOf(call->getArg(0), depth + 1); // __cvta_generic_to_shared(&bar), smem(&bar)
    return "";
  }

  /// The source text of \p e as written (a condition for a message), shortened.
  std::string sourceText(const clang::Expr *e) {
    if (!e)
      return "";
    clang::CharSourceRange range = clang::CharSourceRange::getTokenRange(sm_.getExpansionRange(e->getSourceRange()).getAsRange());
    std::string text = clang::Lexer::getSourceText(range, sm_, ctx_.getLangOpts()).str();
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text.size() > 72 ? text.substr(0, 69) + "..." : text;
  }

  /// Whether loop \p s may run zero times: not for a do-while, nor for `for (T i = A; i < B; ...)` (or <=, >, >=,
  /// !=) with A and B integer constants that enter it; anything else may.
  bool mayBeEmpty(const clang::Stmt *s) {
    if (llvm::isa<clang::DoStmt>(s))
      return false;
    auto *f = llvm::dyn_cast<clang::ForStmt>(s);
    if (!f)
      return true;
    auto *decl = llvm::dyn_cast_or_null<clang::DeclStmt>(f->getInit());
    auto *var = decl && decl->isSingleDecl() ? llvm::dyn_cast<clang::VarDecl>(decl->getSingleDecl()) : nullptr;
    auto *cond = llvm::dyn_cast_or_null<clang::BinaryOperator>(f->getCond());
    if (!var || !var->getInit() || !cond)
      return true;
    auto *lhs = llvm::dyn_cast<clang::DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts());
    clang::Expr::EvalResult a, b;
    if (!lhs || lhs->getDecl() != var || !var->getInit()->EvaluateAsInt(a, ctx_) ||
        !cond->getRHS()->EvaluateAsInt(b, ctx_))
      return true;
    const llvm::APSInt &x = a.Val.getInt(), &y = b.Val.getInt();
    switch (cond->getOpcode()) {
    case clang::BO_LT:
      return !(x < y);
    case clang::BO_LE:
      return !(x <= y);
    case clang::BO_GT:
      return !(x > y);
    case clang::BO_GE:
      return !(x >= y);
    case clang::BO_NE:
      return !(x != y);
    default:
      return true;
    }
  }

  /// Whether \p lhs names (an element or member of) a variable declared __shared__.
  static bool writesShared(const clang::Expr *lhs) {
    const clang::Expr *e = lhs->IgnoreParenImpCasts();
    while (true) {
      if (auto *a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
        e = a->getBase()->IgnoreParenImpCasts();
      else if (auto *m = llvm::dyn_cast<clang::MemberExpr>(e))
        e = m->getBase()->IgnoreParenImpCasts();
      else
        break;
    }
    auto *ref = llvm::dyn_cast<clang::DeclRefExpr>(e);
    auto *var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    return var && var->hasAttr<clang::CUDASharedAttr>();
  }

  clang::ASTContext &ctx_;
  clang::SourceManager &sm_;
  KernelEvents &out_;
  std::set<const clang::FunctionDecl *> stack_;
  std::vector<std::map<const clang::ParmVarDecl *, std::string>> params_; ///< per helper entered
  std::vector<std::map<const clang::ParmVarDecl *, int64_t>> values_;    ///< per helper entered
  std::vector<std::set<const clang::ParmVarDecl *>> threadParams_;       ///< per helper entered
  /// The barriers a helper's parameters name: the caller's barrierOf for a parameter, and for a struct argument
  /// built in place (`{state, bar[i], ...}`) for each of its fields.
  struct Barriers {
    std::map<const clang::ParmVarDecl *, std::string> params;
    std::map<std::pair<const clang::ParmVarDecl *, const clang::FieldDecl *>, std::string> fields;
  };
  std::vector<Barriers> barriers_; ///< per helper entered
  std::map<const clang::VarDecl *, bool> threadVars_;           ///< dependsOnThread of a local's initializer
  /// A divergent branch's arm around the code visited: the threads for which \p cond (read in the helper
  /// entered \p frame deep, 0 the kernel) is \p arm run it.
  struct Role {
    const clang::Expr *cond;
    bool arm;
    size_t frame;
  };
  /// A loop or a helper entered: the arms around it when entered, whether its condition reads the thread, and
  /// whether a break, continue or return under arms entered inside it left the rest of it undecided.
  struct Scope {
    size_t roles;
    bool loop, divergent, lost;
  };
  std::vector<Role> roles_;                          ///< the divergent arms around the code visited
  std::vector<std::vector<Role>> kernelExits_;       ///< the arms each return of the kernel's was under
  std::vector<Scope> scopes_;                        ///< the loops and helpers around the code visited
  std::vector<std::map<const clang::ParmVarDecl *, const clang::Expr *>> args_; ///< per helper entered
  bool reachLost_ = false; ///< a goto or a switch on the thread: which threads get where is not decided after
  static constexpr size_t kReachBudget = 1'000'000; ///< reachOf's evaluations per kernel (1-2 s at most here)
  size_t reachSpent_ = 0;
  /// Each condition of the kernel's own around a named barrier, per thread (reachOf)
  std::map<const clang::Expr *, std::vector<std::optional<int64_t>>> kernelConds_;
  std::set<std::string> tmemDestinations_;   ///< the arrays a tcgen05.ld wrote so far (identity, no buffer)
  std::map<const clang::FunctionDecl *, bool> &quiet_;          ///< quiet() of a device function
  std::map<const clang::FunctionDecl *, bool> threadFunctions_; ///< dependsOnThread of a device function
  std::map<const clang::FunctionDecl *, bool> identityFunctions_; ///< readsOnlyIdentity of a device function
  std::set<const clang::ValueDecl *> assigned_; ///< the kernel's locals that change (markAssigned)
  int64_t blockThreads_ = 0; ///< the kernel's __launch_bounds__ (its most threads), 0 when it gives none
  bool multiDimensional_ = false; ///< the kernel reads threadIdx.y/z or blockDim.y/z (markAssigned)
  int oneLane_ = 0; ///< inside branches one lane takes
};

class Consumer : public clang::ASTConsumer {
public:
  explicit Consumer(ParseResult &out) : out_(out) {}
  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    std::function<void(const clang::DeclContext *)> walk = [&](const clang::DeclContext *dc) {
      for (const clang::Decl *d : dc->decls()) {
        if (llvm::isa<clang::NamespaceDecl>(d) || llvm::isa<clang::LinkageSpecDecl>(d)) { // namespace, extern "C"
          walk(llvm::cast<clang::DeclContext>(d));
          continue;
        }
        // a kernel template: each instantiation the file makes (their calls resolve; the pattern's dependent
        // ones do not), else the pattern
        std::vector<const clang::FunctionDecl *> kernels;
        if (auto *t = llvm::dyn_cast<clang::FunctionTemplateDecl>(d)) {
          for (const clang::FunctionDecl *spec : t->specializations())
            if (spec->hasBody())
              kernels.push_back(spec);
          if (kernels.empty())
            kernels.push_back(t->getTemplatedDecl());
        } else if (auto *f = llvm::dyn_cast<clang::FunctionDecl>(d)) {
          kernels.push_back(f);
        }
        for (const clang::FunctionDecl *f : kernels)
          kernel(ctx, f);
      }
    };
    walk(ctx.getTranslationUnitDecl());
  }

private:
  void kernel(clang::ASTContext &ctx, const clang::FunctionDecl *f) {
    clang::SourceManager &sm = ctx.getSourceManager();
    const clang::FunctionDecl *def = nullptr;
    // the kernels of the file and of the project's headers; a system header's (-isystem: the toolkit's, a
    // library the user marks so) are not the user's to fix
    if (!f->hasAttr<clang::CUDAGlobalAttr>() || !f->hasBody(def) || sm.isInSystemHeader(sm.getExpansionLoc(def->getLocation())))
      return;
    // a header's kernel template is checked per instantiation only: a pattern alone there is not this file's
    if (f->isTemplated() && !sm.isInMainFile(sm.getExpansionLoc(f->getLocation())))
      return;
    KernelEvents k;
    k.name = f->getNameAsString();
    k.at = detail::whereOf(sm, f->getLocation());
    if (const clang::TemplateArgumentList *args = f->getTemplateSpecializationArgs()) {
      std::string list;
      llvm::raw_string_ostream os(list);
      for (unsigned i = 0; i < args->size(); ++i) {
        os << (i ? ", " : "");
        args->get(i).print(ctx.getPrintingPolicy(), os, true);
      }
      // CuTe's arguments run to thousands of characters: enough of them to tell instantiations apart by eye
      const std::string shown = os.str();
      k.name += "<" + (shown.size() > 96 ? shown.substr(0, 93) + "..." : shown) + ">";
    }
    Collector(ctx, k, quiet_).kernel(def);
    k.end = detail::whereOf(sm, def->getBody()->getEndLoc());
    out_.kernels.push_back(std::move(k));
  }

  ParseResult &out_;
  std::map<const clang::FunctionDecl *, bool> quiet_;
};

class Action : public clang::ASTFrontendAction {
public:
  Action(ParseResult &out, std::string pch, bool *hostCallsDevice = nullptr)
      : out_(out), pch_(std::move(pch)), hostCallsDevice_(hostCallsDevice) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef) override {
    ci.getDiagnostics().setClient(new detail::ErrorsOnly(out_.errors, hostCallsDevice_), /*ShouldOwnClient=*/true);
    return std::make_unique<Consumer>(out_);
  }

protected:
  bool BeginInvocation(clang::CompilerInstance &ci) override {
    if (pch_.empty())
      return true;
    // on top of the precompiled preamble (Preamble.h): what the driver's -include adds (the CUDA wrappers,
    // the shim) is in it already; its inputs were checked by the cache, its main file never existed
    clang::PreprocessorOptions &pp = ci.getPreprocessorOpts();
    pp.ImplicitPCHInclude = pch_;
    pp.Includes = {"/cake-cuda-shim/cake_after_preamble.h"};
    pp.DisablePCHOrModuleValidation = clang::DisableValidationForModuleKind::PCH;
    pp.AllowPCHWithCompilerErrors = true;
    return true;
  }

private:
  ParseResult &out_;
  std::string pch_;
  bool *hostCallsDevice_;
};


/// The toolkit's CUDA_VERSION (13000 for 13.0) from its cuda.h, 0 when it cannot be read.
int toolkitVersion() {
  static const int version = [] {
    std::ifstream in("/usr/local/cuda/include/cuda.h");
    for (std::string line; std::getline(in, line);)
      if (line.rfind("#define CUDA_VERSION ", 0) == 0)
        return std::atoi(line.c_str() + 21);
    return 0;
  }();
  return version;
}


} // namespace

ParseResult parseCuda(const std::string &path, const std::string &text, const std::string &arch,
                      const std::vector<std::string> &extraArgs, const std::string &cacheDir) {
  ParseResult out;
  // the flags ../shared/env/toolchain.md checked with Clang 19 and CUDA 13; no error limit: the kernels after
  // a header's twentieth error are still checked
  // Clang 19 knows CUDA targets up to sm_90a and rejects sm_100a (../shared/env/toolchain.md): a newer target
  // is parsed as sm_90a with its own macros in place of sm_90a's (`__CUDA_ARCH__` 1000 and
  // `__CUDA_ARCH_FEAT_SM100_ALL` for sm_100a), so the code its headers keep for it (CAKE's tcgen05 helpers,
  // CUTLASS's SM100 paths) is the code read. Clang does not read inline PTX, and the rules read its text: what
  // sm_90a's Clang would reject of sm_100a's builtins is reported as Clang's (cuda.error), never guessed past.
  std::string clangArch = arch;
  std::vector<std::string> archMacros;
  if (int number = arch.rfind("sm_", 0) == 0 ? std::atoi(arch.c_str() + 3) : 0; number > 90) {
    clangArch = "sm_90a";
    archMacros = {"-U__CUDA_ARCH__", "-D__CUDA_ARCH__=" + std::to_string(number * 10),
                  "-U__CUDA_ARCH_FEAT_SM90_ALL"};
    if (arch.back() == 'a')
      archMacros.push_back("-D__CUDA_ARCH_FEAT_SM" + std::to_string(number) + "_ALL=1");
  }
  std::vector<std::string> args = {"-x", "cuda", "--cuda-path=/usr/local/cuda", "--cuda-gpu-arch=" + clangArch,
                                   "--cuda-device-only", "-nocudalib", "-Wno-unknown-cuda-version", "-std=c++17",
                                   "-resource-dir=/usr/lib/llvm-19/lib/clang/19", "-isystem", "/cake-cuda-shim",
                                   "-isystem", "/usr/local/cuda/include/cccl", "-fsyntax-only", "-w",
                                   "-ferror-limit=0"};
  // nvcc's version macros, which Clang does not define: CUTLASS compiles its barriers, TMA and wgmma only under
  // `__CUDACC_VER_MAJOR__ >= 12` (cutlass/arch/barrier.h, CUDA_BARRIER_ENABLED); without them its helpers are
  // empty and the checker would see none of their operations
  if (int version = toolkitVersion(); version > 0) {
    args.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(version / 1000));
    args.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(version % 1000 / 10));
    args.push_back("-D__CUDACC_VER_BUILD__=0");
  }
  args.insert(args.end(), archMacros.begin(), archMacros.end());
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  // Clang 19 does not know CUDA 13: it lowers `<<<...>>>` in host code through the legacy cudaConfigureCall,
  // which CUDA 13 no longer declares; declared here, host launch code parses (the checker reads device code only)
  clang::tooling::FileContentMappings shim = {
      {"/cake-cuda-shim/texture_fetch_functions.h", ""},
      {"/cake-cuda-shim/cake_cuda_shim.h",
       "#pragma once\nextern \"C\" int cudaConfigureCall(dim3, dim3, unsigned long = 0, void * = 0);\n"}};
  args.push_back("-include");
  args.push_back("/cake-cuda-shim/cake_cuda_shim.h");
  // Clang 19 loses the host's global operator new and delete (those Sema declares implicitly: plain, sized,
  // aligned; and <new>'s placement and nothrow ones) when it reads a CUDA PCH in C++20 (the device ones of its
  // cuda_wrappers/new stay): a host `new float` no longer resolves, and in C++20 a delete-expression crashes it
  // (Sema::ActOnCXXDelete; tests/lit/cuda/preamble.test). It keeps one of printf's two declarations, the host's
  // (stdio.h) or the device's (the runtime wrapper): ThunderKittens' device print helpers then found no printf.
  // Declared again after the PCH, they resolve (11 of its 36 files were parsed whole before, 1.0-1.5 s; with
  // the preamble reused now: bench/results/cuda_public_kernels.md).
  shim.emplace_back("/cake-cuda-shim/cake_after_preamble.h",
                    "#pragma once\n"
                    "extern \"C\" int printf(const char *, ...);\n"
                    "extern \"C\" __attribute__((device)) int printf(const char *, ...);\n"
                    "#if __cplusplus > 201703L\n"
                    "void *operator new(decltype(sizeof 0));\n"
                    "void *operator new[](decltype(sizeof 0));\n"
                    "void operator delete(void *) noexcept;\n"
                    "void operator delete[](void *) noexcept;\n"
                    "void operator delete(void *, decltype(sizeof 0)) noexcept;\n"
                    "void operator delete[](void *, decltype(sizeof 0)) noexcept;\n"
                    "#if defined(_NEW) || defined(_LIBCPP_NEW)\n"
                    "void *operator new(decltype(sizeof 0), void *) noexcept;\n"
                    "void *operator new(decltype(sizeof 0), const std::nothrow_t &) noexcept;\n"
                    "void *operator new[](decltype(sizeof 0), const std::nothrow_t &) noexcept;\n"
                    "#endif\n"
                    "#ifdef __cpp_aligned_new\n"
                    "void *operator new(decltype(sizeof 0), std::align_val_t);\n"
                    "void *operator new[](decltype(sizeof 0), std::align_val_t);\n"
                    "void operator delete(void *, std::align_val_t) noexcept;\n"
                    "void operator delete[](void *, std::align_val_t) noexcept;\n"
                    "void operator delete(void *, decltype(sizeof 0), std::align_val_t) noexcept;\n"
                    "void operator delete[](void *, decltype(sizeof 0), std::align_val_t) noexcept;\n"
                    "#endif\n"
                    "#endif\n");
  bool hostCallsDevice = false;
  auto parse = [&](const std::string &code, const std::string &pch,
                   const clang::tooling::FileContentMappings &files) {
    return clang::tooling::runToolOnCodeWithArgs(std::make_unique<Action>(out, pch, &hostCallsDevice), code, args, path,
                                                 "/usr/lib/llvm-19/bin/clang++",
                                                 std::make_shared<clang::PCHContainerOperations>(), files);
  };
  std::optional<detail::Preamble> pre = detail::preamble(path, text, args, shim, cacheDir);
  bool ran = false;
  if (pre) {
    out.errors = pre->errors;
    out.preambleReused = pre->reused;
    clang::tooling::FileContentMappings files = shim;
    files.emplace_back(pre->header, pre->text);
    ran = parse(detail::withoutPreamble(text, *pre), pre->pch, files);
    std::erase_if(out.errors, [](const ParseResult::Error &e) { return e.message.find(detail::kOdrArtifact) != std::string::npos; });
    // Clang 19 merges a CUDA PCH's host and device overloads of one signature (printf, the nothrow operator new
    // of the wrappers; those known are declared again after the PCH): host code that calls the host one finds
    // only the device one. When such a call appears (or a genuine host-to-device call, which the whole parse
    // reports the same), the file is parsed whole and that result is given, unless this parse's errors are
    // ones the whole parse was seen to give too (detail::knownFaithful; tests/lit/cuda/preamble.test)
    if (hostCallsDevice && !detail::knownFaithful(*pre, out.errors)) {
      const std::vector<ParseResult::Error> onPch = out.errors;
      out = ParseResult{};
      ran = parse(text, "", shim);
      // a header's name as Clang gave it: absolute from the PCH, as included (relative) in the whole parse
      auto keys = [](const std::vector<ParseResult::Error> &errors) { // sorted, each header named absolute
        std::vector<std::tuple<std::string, uint32_t, uint32_t, std::string>> out;
        for (const ParseResult::Error &e : errors) {
          std::error_code ec;
          out.emplace_back(e.at.file.empty() ? "" : std::filesystem::absolute(e.at.file, ec).lexically_normal().string(),
                           e.at.line, e.at.column, e.message);
        }
        std::sort(out.begin(), out.end());
        return out;
      };
      const bool same = keys(onPch) == keys(out.errors);
      if (same)
        detail::markFaithful(*pre, onPch);
      else
        detail::parseWholeFromNowOn(*pre);
    }
  } else {
    ran = parse(text, "", shim);
  }
  if (!ran && out.errors.empty())
    out.errors.push_back({{}, "clang did not run on it (its driver refused the arguments)"});
  return out;
}

std::vector<std::string> compileFlagsFor(const std::string &path, const std::string &dbDir, std::string &from) {
  from.clear();
  llvm::SmallString<256> file(path);
  llvm::sys::fs::make_absolute(file);
  std::string error;
  std::unique_ptr<clang::tooling::CompilationDatabase> db =
      dbDir.empty() ? clang::tooling::CompilationDatabase::autoDetectFromSource(file, error)
                    : clang::tooling::CompilationDatabase::autoDetectFromDirectory(dbDir, error);
  if (!db)
    return {};
  std::vector<clang::tooling::CompileCommand> commands = db->getCompileCommands(file);
  if (commands.empty())
    return {};
  const clang::tooling::CompileCommand &c = commands.front();
  from = dbDir.empty() ? "compile_commands.json (" + c.Directory + ")" : dbDir;
  auto absolute = [&](std::string dir) {
    if (!dir.empty() && !llvm::sys::path::is_absolute(dir)) {
      llvm::SmallString<256> full(c.Directory);
      llvm::sys::path::append(full, dir);
      dir = std::string(full);
    }
    return dir;
  };
  std::vector<std::string> out;
  const std::vector<std::string> &cl = c.CommandLine;
  for (size_t i = 1; i < cl.size(); ++i) {
    const std::string &a = cl[i];
    // the flags that take a folder (joined or as the next argument)
    bool taken = false;
    for (const char *flag : {"-I", "-isystem", "-iquote"}) {
      std::string f = flag;
      if (a == f && i + 1 < cl.size()) {
        out.push_back(f);
        out.push_back(absolute(cl[++i]));
        taken = true;
      } else if (a.rfind(f, 0) == 0 && a.size() > f.size()) {
        out.push_back(f + absolute(a.substr(f.size())));
        taken = true;
      }
      if (taken)
        break;
    }
    if (taken)
      continue;
    if ((a == "-D" || a == "-U" || a == "-include") && i + 1 < cl.size()) {
      out.push_back(a);
      out.push_back(a == "-include" ? absolute(cl[++i]) : cl[++i]);
    } else if (a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0 || a.rfind("-std=", 0) == 0) {
      out.push_back(a);
    } else if (a == "-std" && i + 1 < cl.size()) { // nvcc's `-std c++17`
      out.push_back("-std=" + cl[++i]);
    }
  }
  return out;
}

} // namespace cake::cuda
