//===- Query.h - Questions the features ask of an analysis -----*- C++ -*-===//
//
// Part of CAKE. Helpers shared by the feature files: reading a document
// position from params, walking the syntax tree, finding what is at an
// offset (a symbol, a call, a member, a type), the names visible at an
// offset, and the declarations behind ring tokens.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Ops.h"
#include "lsp/core/Features.h"

#include <functional>

namespace cake::lsp {

/// A position of a request: the document's analysis and the byte offset
/// (positions past the end of a line or of the text clamp).
struct Located {
  std::string uri;
  std::shared_ptr<const Analysis> analysis;
  uint32_t offset = 0;
};

/// The analysis of \p uri and the offset of \p position in it; throws
/// InvalidParams when the document is not open.
Located locate(State &state, const std::string &uri, Position position);

/// Callbacks of walk(), each optional, called in source order (pre-order).
struct Walker {
  std::function<void(const syntax::Stmt &)> stmt;
  std::function<void(const syntax::Expr &)> expr;
  std::function<void(const syntax::TypeExpr &)> type;
  std::function<void(const syntax::Clause &)> clause;
  std::function<void(const syntax::Field &)> field;
};

void walk(const syntax::Block &block, const Walker &walker);
void walk(const syntax::Stmt &stmt, const Walker &walker);

/// The kernel whose declaration contains \p offset, or nullptr.
const syntax::KernelDecl *kernelAt(const syntax::Module &module, uint32_t offset);
/// The model of kernel \p decl, or nullptr. \p decl may be of the parse or
/// of the tree the model describes (an instantiation's keeps the ranges).
const sema::Kernel *modelKernel(const sema::Module &model, const syntax::KernelDecl *decl);
/// The model of the kernel that contains \p offset, or nullptr.
const sema::Kernel *modelKernelAt(const Analysis &analysis, uint32_t offset);

/// The symbol declared or used at \p offset, or just before it (a cursor
/// right after a name), or nullptr.
const sema::Symbol *symbolAt(const sema::SymbolIndex &index, uint32_t offset);

/// symbolAt, or for a name sema records no reference for (a shape's extent,
/// `bf16[64, BK]`) the innermost declaration of that name visible there;
/// nullptr when there is none.
const sema::Symbol *symbolNear(const Analysis &analysis, uint32_t offset);

/// Every use of \p symbol, sorted and unique: the references of the symbol
/// index and the Name expressions of the analyzed tree it records none for
/// where \p symbol is the innermost declaration of that name (a shape's
/// extent). The declaration is not included.
std::vector<SourceRange> usesOf(const Analysis &analysis, const sema::Symbol &symbol);

/// The syntax nodes at an offset, innermost of each sort.
struct NodesAt {
  const syntax::Expr *expr = nullptr;        ///< innermost expression containing the offset
  const syntax::Expr *call = nullptr;        ///< a call whose callee contains the offset
  const syntax::Expr *keyword = nullptr;     ///< a keyword argument whose name contains the offset
  const syntax::Expr *keywordCall = nullptr; ///< the call of `keyword`
  const syntax::TypeExpr *type = nullptr;
};

NodesAt nodesAt(const syntax::Module &module, uint32_t offset);

/// The operation a call invokes ("ring.produce" for `ab.produce()` where
/// `ab` is a ring of \p kernel), or nullptr.
const sema::OpInfo *opOfCall(const syntax::Expr &call, const sema::Kernel *kernel);

/// The let statement a symbol of kind Let declares, or nullptr.
const syntax::LetStmt *letOf(const syntax::Module &module, const sema::Symbol &symbol);

/// When \p let binds a ring token (`let s = ab.consume()`): the ring, else
/// nullptr. \p producing is set for a write token.
const sema::Ring *tokenRing(const syntax::LetStmt &let, const sema::Kernel &kernel, bool *producing = nullptr);

/// A declaration visible at an offset (for completion).
struct Visible {
  std::string name;
  sema::SymbolKind kind;
  SourceRange declRange;
  std::string detail; ///< from the symbol index, else printed from the syntax
};

/// The names visible at \p offset: module constants and kernels, and inside
/// a kernel its parameters, size symbols and kernel-scope declarations, and
/// the lets, vars and loop variables of the blocks around the offset that
/// precede it. Works on a tree with syntax errors (from what parsed). It
/// reads the tree the model describes (CheckResult::analyzed): in a file
/// with parameters the int and bool ones are constants there.
std::vector<Visible> visibleAt(const Analysis &analysis, uint32_t offset);

/// Splits a primitive table list ("#shape, accumulate") into its names,
/// without the tag marks and the variadic "...".
std::vector<std::string_view> listNames(std::string_view list);

/// The documentation of an operation (Hover.cpp): its call form with
/// operands and options, summary, tag positions, targets and issue contract.
/// \p spelled is the name as written (`ab.produce` for ring.produce).
std::string describeOp(const sema::OpInfo &op, std::string_view spelled, bool markdown);

} // namespace cake::lsp
