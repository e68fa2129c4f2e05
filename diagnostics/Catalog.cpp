//===- Catalog.cpp - The rule catalog -------------------------------------===//
#include "diagnostics/Catalog.h"

#include <algorithm>
#include <array>

namespace cake {
namespace {

constexpr auto E = Severity::Error;

// Keep this table sorted by code; a unit test checks it.
constexpr std::array kRules = {
    RuleInfo{"syntax.character", "syntax", E, "invalid character",
             "Only ASCII is allowed outside comments and strings, so every token is unambiguous."},
    RuleInfo{"syntax.error-limit", "syntax", E, "too many errors",
             "After 100 syntax errors the rest of the file is skipped: later errors are most "
             "likely consequences of earlier ones."},
    RuleInfo{"syntax.nesting", "syntax", E, "nesting too deep",
             "Expressions and blocks nest at most 256 levels, which bounds the parser's stack on "
             "any input."},
    RuleInfo{"syntax.number", "syntax", E, "malformed number",
             "Numbers are decimal, 0x hexadecimal or 0b binary, with an optional fraction, exponent "
             "or unit suffix (e.g. 128B); anything else is a typo."},
    RuleInfo{"syntax.string", "syntax", E, "unterminated string literal",
             "A string must close on the line it opens; an open string would swallow the file."},
    RuleInfo{"syntax.unclosed", "syntax", E, "unclosed bracket or block",
             "Every '(', '[' and '{' needs its partner; the note points at the opener."},
    RuleInfo{"syntax.unexpected", "syntax", E, "unexpected token",
             "The parser expected a different token here; the message names what it expected."},
};

} // namespace

std::span<const RuleInfo> ruleCatalog() { return kRules; }

const RuleInfo *findRule(std::string_view code) {
  auto it = std::lower_bound(kRules.begin(), kRules.end(), code,
                             [](const RuleInfo &r, std::string_view c) { return r.code < c; });
  return it != kRules.end() && it->code == code ? &*it : nullptr;
}

} // namespace cake
