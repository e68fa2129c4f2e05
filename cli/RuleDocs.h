//===- RuleDocs.h - Rule pages embedded in the binary ----------*- C++ -*-===//
#pragma once

#include <string_view>

namespace cake::cli {

/// The page docs/rules/<code>.md as built into cake, or "" when none exists.
std::string_view ruleDoc(std::string_view code);

} // namespace cake::cli
