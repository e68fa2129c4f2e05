//===- Frontend.cpp - CUDA translation units to kernel events -------------===//
#include "compiler/cuda/Frontend.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Tooling/Tooling.h>

#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace cake::cuda {
namespace {

/// Collects the events of a kernel body in source order, descending into the device functions it calls (their
/// events located at the kernel's call).
class Collector {
public:
  Collector(clang::ASTContext &ctx, KernelEvents &out) : ctx_(ctx), sm_(ctx.getSourceManager()), out_(out) {}

  void body(const clang::Stmt *s) { visit(s, nullptr, ""); }

private:
  Where whereOf(clang::SourceLocation loc) {
    clang::SourceLocation e = sm_.getExpansionLoc(loc);
    return {sm_.getExpansionLineNumber(e), sm_.getExpansionColumnNumber(e)};
  }

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
          if (e.kind == EventKind::WgmmaMma && a->getNumOutputs() > 0)
            e.object = identity(a->getOutputExpr(0));
          if (e.kind == EventKind::WgmmaWait)
            e.n = operandValue(*a, trimmed);
          push(std::move(e));
        }
      }
      return;
    }
    // a branch one lane takes: what its then-branch does is that lane's
    if (auto *branch = llvm::dyn_cast<clang::IfStmt>(s); branch && oneLanePredicate(branch->getCond())) {
      visit(branch->getCond(), site, via);
      ++oneLane_;
      visit(branch->getThen(), site, via);
      --oneLane_;
      visit(branch->getElse(), site, via);
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
      Event begin{EventKind::LoopBegin, whereOf(at->getBeginLoc()), "loop", via};
      begin.mayBeEmpty = mayBeEmpty(s);
      push(begin);
      visit(body, site, via);
      visit(after, site, via);
      visit(cond, site, via);
      push({EventKind::LoopEnd, whereOf(at->getBeginLoc()), "loop", via});
      return;
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
      if (name == "__syncthreads" || name == "__syncwarp") {
        push({name == "__syncthreads" ? EventKind::CtaBarrier : EventKind::NamedBarrier, whereOf(at->getBeginLoc()),
              name, via});
        return;
      }
      const clang::FunctionDecl *def = f->getDefinition();
      if (def && def->hasBody() && stack_.size() < 16 && stack_.insert(def).second) {
        // the helper's reference and pointer parameters name the caller's arrays
        std::map<const clang::ParmVarDecl *, std::string> names;
        for (unsigned i = 0; i < def->getNumParams() && i < call->getNumArgs(); ++i)
          if (std::string id = identity(call->getArg(i)); !id.empty())
            names[def->getParamDecl(i)] = id;
        params_.push_back(std::move(names));
        visit(def->getBody(), at, via.empty() ? f->getQualifiedNameAsString() : via);
        params_.pop_back();
        stack_.erase(def);
      }
      return;
    }
    // a read of an element of a float array (an accumulator's register)
    if (auto *cast = llvm::dyn_cast<clang::ImplicitCastExpr>(s); cast && cast->getCastKind() == clang::CK_LValueToRValue &&
                                                               cast->getType()->isRealFloatingType()) {
      if (std::string id = identity(cast->getSubExpr()); !id.empty()) {
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

  void push(Event e) {
    e.oneLane = oneLane_ > 0;
    out_.events.push_back(std::move(e));
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
      if (!inner->getElementType()->isRealFloatingType())
        return "";
      if (subscripts.empty())
        return id; // the whole array of buffers
      clang::Expr::EvalResult k;
      return id + "#" + (subscripts.back()->EvaluateAsInt(k, ctx_) ? llvm::toString(k.Val.getInt(), 10) : "?");
    }
    return element->isRealFloatingType() ? id : "";
  }

  /// The value of the operand an instruction names (`wgmma.wait_group.sync.aligned %0` with "n"(N)), or of a
  /// literal; -1 when not a constant.
  int operandValue(const clang::GCCAsmStmt &a, const std::string &instruction) {
    size_t sp = instruction.find_last_of(" \t");
    std::string last = sp == std::string::npos ? "" : instruction.substr(sp + 1);
    if (last.empty())
      return -1;
    if (last[0] == '%') {
      unsigned k = static_cast<unsigned>(std::atoi(last.c_str() + 1));
      if (k < a.getNumOutputs() || k >= a.getNumOutputs() + a.getNumInputs())
        return -1;
      clang::Expr::EvalResult v;
      return a.getInputExpr(k - a.getNumOutputs())->EvaluateAsInt(v, ctx_) ? int(v.Val.getInt().getExtValue()) : -1;
    }
    return std::isdigit(static_cast<unsigned char>(last[0])) ? std::atoi(last.c_str()) : -1;
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
    if (!f->hasAttr<clang::CUDAGlobalAttr>() || !f->hasBody(def) ||
        (!sm.isInMainFile(sm.getExpansionLoc(f->getLocation())) && !isInstantiationOfMain(sm, f)))
      return;
    KernelEvents k;
    k.name = f->getNameAsString();
    clang::SourceLocation loc = sm.getExpansionLoc(f->getLocation());
    k.at = {sm.getExpansionLineNumber(loc), sm.getExpansionColumnNumber(loc)};
    if (const clang::TemplateArgumentList *args = f->getTemplateSpecializationArgs()) {
      std::string list;
      llvm::raw_string_ostream os(list);
      for (unsigned i = 0; i < args->size(); ++i) {
        os << (i ? ", " : "");
        args->get(i).print(ctx.getPrintingPolicy(), os, true);
      }
      k.name += "<" + os.str() + ">";
    }
    Collector(ctx, k).body(def->getBody());
    out_.kernels.push_back(std::move(k));
  }

  /// A kernel template's instantiation is located at the template: in the file when the template is.
  static bool isInstantiationOfMain(const clang::SourceManager &sm, const clang::FunctionDecl *f) {
    const clang::FunctionDecl *pattern = f->getTemplateInstantiationPattern();
    return pattern && sm.isInMainFile(sm.getExpansionLoc(pattern->getLocation()));
  }

  ParseResult &out_;
};

class ErrorsOnly : public clang::DiagnosticConsumer {
public:
  explicit ErrorsOnly(ParseResult &out) : out_(out) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    if (level < clang::DiagnosticsEngine::Error)
      return;
    llvm::SmallString<200> message;
    info.FormatDiagnostic(message);
    ParseResult::Error e{{}, message.str().str()};
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager &sm = info.getSourceManager();
      clang::SourceLocation loc = sm.getExpansionLoc(info.getLocation());
      if (sm.isInMainFile(loc))
        e.at = {sm.getExpansionLineNumber(loc), sm.getExpansionColumnNumber(loc)};
      else if (clang::PresumedLoc p = sm.getPresumedLoc(loc); p.isValid())
        e.message = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ": " + e.message;
    }
    out_.errors.push_back(std::move(e));
  }

private:
  ParseResult &out_;
};

class Action : public clang::ASTFrontendAction {
public:
  explicit Action(ParseResult &out) : out_(out) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef) override {
    ci.getDiagnostics().setClient(new ErrorsOnly(out_), /*ShouldOwnClient=*/true);
    return std::make_unique<Consumer>(out_);
  }

private:
  ParseResult &out_;
};

} // namespace

ParseResult parseCuda(const std::string &path, const std::string &text, const std::string &arch,
                      const std::vector<std::string> &extraArgs) {
  ParseResult out;
  // the flags ../shared/env/toolchain.md checked with Clang 19 and CUDA 13
  std::vector<std::string> args = {"-x", "cuda", "--cuda-path=/usr/local/cuda", "--cuda-gpu-arch=" + arch,
                                   "--cuda-device-only", "-nocudalib", "-Wno-unknown-cuda-version", "-std=c++17",
                                   "-resource-dir=/usr/lib/llvm-19/lib/clang/19", "-isystem", "/cake-cuda-shim",
                                   "-isystem", "/usr/local/cuda/include/cccl", "-fsyntax-only", "-w"};
  args.insert(args.end(), extraArgs.begin(), extraArgs.end());
  // Clang 19 does not know CUDA 13: it lowers `<<<...>>>` in host code through the legacy cudaConfigureCall,
  // which CUDA 13 no longer declares; declared here, host launch code parses (the checker reads device code only)
  clang::tooling::FileContentMappings shim = {
      {"/cake-cuda-shim/texture_fetch_functions.h", ""},
      {"/cake-cuda-shim/cake_cuda_shim.h",
       "#pragma once\nextern \"C\" int cudaConfigureCall(dim3, dim3, unsigned long = 0, void * = 0);\n"}};
  args.push_back("-include");
  args.push_back("/cake-cuda-shim/cake_cuda_shim.h");
  bool ran = clang::tooling::runToolOnCodeWithArgs(std::make_unique<Action>(out), text, args, path,
                                        "/usr/lib/llvm-19/bin/clang++",
                                        std::make_shared<clang::PCHContainerOperations>(), shim);
  if (!ran && out.errors.empty())
    out.errors.push_back({{}, "clang did not run on it (its driver refused the arguments)"});
  return out;
}

} // namespace cake::cuda
