//===- Catalog.cpp - The rule catalog -------------------------------------===//
#include "diagnostics/Catalog.h"

#include <algorithm>
#include <array>

namespace cake {
namespace {

constexpr auto Error = Severity::Error;
[[maybe_unused]] constexpr auto Warning = Severity::Warning;
constexpr bool Fix = true, NoFix = false;

// Each family declares its rules in diagnostics/rules/<family>.def; the
// table is sorted here at compile time so that lookups can bisect.
constexpr auto kRules = [] {
  std::array rules = {
#define RULE(code, family, severity, fix, title, rationale) RuleInfo{code, family, severity, fix, title, rationale},
#include "diagnostics/rules/all.def"
#undef RULE
  };
  std::sort(rules.begin(), rules.end(), [](const RuleInfo &a, const RuleInfo &b) { return a.code < b.code; });
  return rules;
}();

} // namespace

std::span<const RuleInfo> ruleCatalog() { return kRules; }

std::span<const Guarantee> constructionGuarantees() {
  static constexpr Guarantee kGuarantees[] = {
      {1, "expect-tx bytes", "A ring's commit derives the byte count from the boxes copied into the slot; rings "
                             "have no byte-count operand to get wrong (raw mbarriers: mbar.expect-tx)."},
      {2, "phase parity", "Rings derive the phase of every wait and carry it through all loops of a role; "
                          "ring operations take no parity operand (raw mbarriers keep this hazard: "
                          "their phase check, mbar.phase, is not implemented yet)."},
      {3, "arrive counts", "Rings derive full and empty counts from the producer and consumer roles (raw "
                           "mbarriers: mbar.count)."},
      {6, "barrier init", "Every mbarrier, raw ones included, is initialized in the derived prologue with "
                          "fence.mbarrier_init and a CTA barrier; there is no init operation to misplace (the "
                          "lit test tests/lit/construction/guarantees.cake shows mbarrier.init is rejected)."},
      {7, "barrier storage", "Barriers live in a separate area placed before data; no declaration can alias "
                             "them, and a generic load, store, copy or atomic on an mbarrier object is an error "
                             "(mbar.access)."},
      {8, "remote waits", "mbarrier.wait and try_wait take no CTA operand: a wait is always on the local barrier "
                          "(arrive remote, wait local); tests/lit/construction checks that `cta =` is rejected."},
      {24, "shared-memory alignment", "Allocations get the alignment their swizzle and TMA use need (1024 B for "
                                      "128B swizzle); align(n) can only raise it."},
      {25, "swizzle agreement", "One shared-memory view feeds both the TMA box and the MMA descriptor, so their "
                                "swizzle and major-ness cannot disagree."},
  };
  return kGuarantees;
}

const RuleInfo *findRule(std::string_view code) {
  auto it = std::lower_bound(kRules.begin(), kRules.end(), code,
                             [](const RuleInfo &r, std::string_view c) { return r.code < c; });
  return it != kRules.end() && it->code == code ? &*it : nullptr;
}

} // namespace cake
