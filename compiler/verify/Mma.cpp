//===- Mma.cpp - The mma rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/mma.def and their pages in docs/rules/.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

namespace cake::verify {

void checkMma(const sema::Kernel &kernel, RuleContext &ctx) {}

} // namespace cake::verify
