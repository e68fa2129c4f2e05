//===- Printer.h - Canonical CAKE IR printer -------------------*- C++ -*-===//
//
// The printer defines the canonical format that `cake fmt` writes: two-space
// indentation, one statement per line, spaces around binary operators,
// comments and single blank lines kept. It is total (any tree prints) and
// parse(print(m)) equals m for every parsed module.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/syntax/AST.h"

#include <string>

namespace cake::syntax {

/// Kernel headers longer than this put one parameter per line.
inline constexpr size_t kMaxLineWidth = 100;

std::string print(const Module &module);
std::string print(const Expr &expr);
std::string print(const TypeExpr &type);
/// `name` or `name(args)`.
std::string print(const Clause &clause);
/// Clauses separated by single spaces (no leading space).
std::string print(const std::vector<Clause> &clauses);

} // namespace cake::syntax
