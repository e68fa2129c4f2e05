//===- Catalog.h - The rule catalog ----------------------------*- C++ -*-===//
//
// Part of CAKE. Every diagnostic code the compiler can emit is declared once
// here, with its family, default severity, title and rationale. `cake rules`
// lists this table; renderers (e.g. SARIF) read titles from it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"

#include <span>
#include <string_view>

namespace cake {

struct RuleInfo {
  std::string_view code;      ///< Stable code, e.g. "syntax.unexpected".
  std::string_view family;    ///< e.g. "syntax", "sync", "tma", "resources".
  Severity severity;          ///< Default severity.
  bool hasFix;                ///< Findings carry a machine-applicable fix.
  std::string_view title;     ///< One line.
  std::string_view rationale; ///< Why the rule exists.
};

/// A hazard that CAKE makes impossible to write, rather than checking it.
struct Guarantee {
  int hazard;                  ///< Row of ../shared/design/hazards.md.
  std::string_view title;
  std::string_view how;
};

/// The hazards ruled out by construction, for `cake rules`.
std::span<const Guarantee> constructionGuarantees();

/// All rules, ordered by code.
std::span<const RuleInfo> ruleCatalog();

/// The rule for \p code, or nullptr when the code is unknown.
const RuleInfo *findRule(std::string_view code);

} // namespace cake
