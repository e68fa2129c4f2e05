//===- Copies.cpp - The copies rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/copies.def and their pages in docs/rules/.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

namespace cake::verify {

void checkCopies(const sema::Kernel &kernel, RuleContext &ctx) {}

} // namespace cake::verify
