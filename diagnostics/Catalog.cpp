//===- Catalog.cpp - The rule catalog -------------------------------------===//
#include "diagnostics/Catalog.h"

#include <algorithm>
#include <array>

namespace cake {
namespace {

constexpr auto Error = Severity::Error;
[[maybe_unused]] constexpr auto Warning = Severity::Warning;

// Each family declares its rules in diagnostics/rules/<family>.def; the
// table is sorted here at compile time so that lookups can bisect.
constexpr auto kRules = [] {
  std::array rules = {
#define RULE(code, family, severity, title, rationale) RuleInfo{code, family, severity, title, rationale},
#include "diagnostics/rules/all.def"
#undef RULE
  };
  std::sort(rules.begin(), rules.end(), [](const RuleInfo &a, const RuleInfo &b) { return a.code < b.code; });
  return rules;
}();

} // namespace

std::span<const RuleInfo> ruleCatalog() { return kRules; }

const RuleInfo *findRule(std::string_view code) {
  auto it = std::lower_bound(kRules.begin(), kRules.end(), code,
                             [](const RuleInfo &r, std::string_view c) { return r.code < c; });
  return it != kRules.end() && it->code == code ? &*it : nullptr;
}

} // namespace cake
