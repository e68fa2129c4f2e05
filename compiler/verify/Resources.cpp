//===- Resources.cpp - The resources rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/resources.def and their pages in docs/rules/.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

namespace cake::verify {

void checkResources(const sema::Kernel &kernel, RuleContext &ctx) {}

} // namespace cake::verify
