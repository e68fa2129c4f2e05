//===- Ops.cpp - The primitive table --------------------------------------===//
//
// Part of CAKE. The table of OpInfo built from the rows of Ops.def (which
// documents the list conventions), the checks that keep it well formed, and
// the lookups: by id for every consumer, by name for name resolution.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Ops.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

namespace cake::sema {
namespace {

using enum Issue;
using enum OpClass;

constexpr uint8_t All = AllTargets;
constexpr uint8_t Sm90 = SM90a;
constexpr uint8_t Sm100 = SM100a;
constexpr uint8_t Sm90Up = SM90a | SM100a;

// The rows of Ops.def, sorted by name (a static_assert below checks it).
constexpr std::array kOps = {
#define CAKE_OP(Id, name, operands, operandKinds, minOperands, options, optionKinds, targets, issue, cls, summary,   \
                lowering)                                                                                          \
  OpInfo{OpId::Id, name, operands, operandKinds, minOperands, options, optionKinds, targets, issue, cls, summary, lowering},
#include "compiler/sema/Ops.def"
#undef CAKE_OP
};
static_assert(kOps.size() == kOpCount);

/// \p s without leading and trailing spaces.
constexpr std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

/// Calls \p fn on each trimmed item of the comma-separated \p list until it
/// returns true; returns whether one did.
template <typename Fn> constexpr bool anyItem(std::string_view list, Fn fn) {
  if (trim(list).empty())
    return false;
  while (true) {
    size_t comma = list.find(',');
    if (fn(trim(list.substr(0, comma))))
      return true;
    if (comma == std::string_view::npos)
      return false;
    list.remove_prefix(comma + 1);
  }
}

/// Number of items in the comma-separated \p list.
constexpr size_t countItems(std::string_view list) {
  size_t n = 0;
  anyItem(list, [&](std::string_view) { return ++n, false; });
  return n;
}

/// Item \p index of \p list, or an empty view when out of range.
constexpr std::string_view nthItem(std::string_view list, size_t index) {
  std::string_view found;
  anyItem(list, [&](std::string_view item) { return index-- == 0 ? (found = item, true) : false; });
  return found;
}

constexpr bool isVariadic(std::string_view operands) { return trim(operands).ends_with("..."); }

constexpr size_t maxOperandsOf(const OpInfo &op) {
  return isVariadic(op.operands) ? SIZE_MAX : countItems(op.operands);
}

/// The ArgKind spelled \p word in Ops.def, or nullopt.
constexpr std::optional<ArgKind> parseKind(std::string_view word) {
  constexpr std::pair<std::string_view, ArgKind> kKinds[] = {
      {"any", ArgKind::Any},       {"global", ArgKind::Global}, {"shared", ArgKind::Shared},
      {"tmem", ArgKind::Tmem},     {"reg", ArgKind::Reg},       {"view", ArgKind::View},
      {"value", ArgKind::Value},   {"int", ArgKind::Int},       {"bool", ArgKind::Bool},
      {"token", ArgKind::Token},   {"event", ArgKind::Event},   {"barrier", ArgKind::Barrier},
      {"type", ArgKind::Type},     {"shape", ArgKind::Shape},   {"scope", ArgKind::Scope},
      {"tag", ArgKind::Tag},
  };
  for (const auto &[name, kind] : kKinds)
    if (name == word)
      return kind;
  return std::nullopt;
}

/// Whether every item of \p kinds is a kind and they are as many as \p list's.
constexpr bool kindsMatch(std::string_view list, std::string_view kinds) {
  if (countItems(list) != countItems(kinds))
    return false;
  return !anyItem(kinds, [](std::string_view k) { return !parseKind(k); });
}

constexpr bool familyOf(std::string_view name, std::string_view &family) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0)
    return false;
  family = name.substr(0, dot);
  return true;
}

constexpr bool checkTable() {
  for (size_t i = 0; i < kOps.size(); ++i) {
    const OpInfo &op = kOps[i];
    std::string_view family;
    if (!familyOf(op.name, family) || op.summary.empty() || (op.targets & ~AllTargets) || !op.targets)
      return false;
    if (i > 0 && !(kOps[i - 1].name < op.name))
      return false; // unsorted or duplicate
    if (static_cast<size_t>(op.id) != i)
      return false; // the id indexes the table
    if (!kindsMatch(op.operands, op.operandKinds) || !kindsMatch(op.options, op.optionKinds))
      return false;
    size_t n = countItems(op.operands);
    if (op.minOperands > n)
      return false;
    // "..." may only end the last operand.
    for (size_t k = 0; k + 1 < n; ++k)
      if (nthItem(op.operands, k).ends_with("..."))
        return false;
  }
  return true;
}
static_assert(checkTable(), "Ops.def must be sorted, unique and well formed, its kinds one per item");

} // namespace

std::span<const OpInfo> allOps() { return kOps; }

const OpInfo &opInfo(OpId id) { return kOps[static_cast<size_t>(id)]; }

std::string_view opIdName(OpId id) { return id == OpId::None ? std::string_view() : opInfo(id).name; }

const OpInfo *findOp(std::string_view name) {
  auto it = std::lower_bound(kOps.begin(), kOps.end(), name,
                             [](const OpInfo &op, std::string_view n) { return op.name < n; });
  return it != kOps.end() && it->name == name ? &*it : nullptr;
}

const OpInfo *findRingOp(std::string_view member) {
  for (const OpInfo &op : kOps)
    if (op.cls == OpClass::Ring && op.name.substr(op.name.find('.') + 1) == member)
      return &op;
  return nullptr;
}

bool isEscapeHatch(OpId id) {
  switch (id) {
  case OpId::BarSyncId:
  case OpId::BarArriveId:
  case OpId::CpAsyncArrive:
  case OpId::CpAsyncCommit:
  case OpId::CpAsyncWait:
  case OpId::Tcgen05Commit:
    return true;
  default:
    return id != OpId::None && opInfo(id).cls == OpClass::Mbarrier;
  }
}

bool isOpFamily(std::string_view family) {
  // Rows of one family are contiguous and start with "family."; search for
  // that prefix in a stack buffer (no allocation).
  char buffer[64];
  if (family.empty() || family.size() + 1 > sizeof(buffer))
    return false;
  std::copy(family.begin(), family.end(), buffer);
  buffer[family.size()] = '.';
  std::string_view prefix(buffer, family.size() + 1);
  auto it = std::lower_bound(kOps.begin(), kOps.end(), prefix,
                             [](const OpInfo &op, std::string_view p) { return op.name < p; });
  for (; it != kOps.end() && it->name.starts_with(prefix); ++it) {
    std::string_view f;
    if (familyOf(it->name, f) && f == family)
      return true;
  }
  return false;
}

size_t maxOperands(const OpInfo &op) { return maxOperandsOf(op); }

bool isTagOperand(const OpInfo &op, size_t index) {
  size_t n = countItems(op.operands);
  if (n == 0)
    return false;
  if (index >= n) {
    if (!isVariadic(op.operands))
      return false;
    index = n - 1;
  }
  return nthItem(op.operands, index).starts_with('#');
}

bool hasOption(const OpInfo &op, std::string_view name, bool *isTag) {
  if (isTag)
    *isTag = false;
  if (name.empty())
    return false;
  return anyItem(op.options, [&](std::string_view item) {
    if (item == "*")
      return true; // any keyword, never a tag
    bool tag = item.starts_with('#');
    if (tag)
      item.remove_prefix(1);
    if (item != name)
      return false;
    if (isTag)
      *isTag = tag;
    return true;
  });
}

std::string_view argKindName(ArgKind kind) {
  switch (kind) {
  case ArgKind::Any:
    return "any";
  case ArgKind::Global:
    return "global view";
  case ArgKind::Shared:
    return "shared view";
  case ArgKind::Tmem:
    return "tmem view";
  case ArgKind::Reg:
    return "registers";
  case ArgKind::View:
    return "view";
  case ArgKind::Value:
    return "value";
  case ArgKind::Int:
    return "int";
  case ArgKind::Bool:
    return "bool";
  case ArgKind::Token:
    return "ring token";
  case ArgKind::Event:
    return "event";
  case ArgKind::Barrier:
    return "barrier";
  case ArgKind::Type:
    return "element type";
  case ArgKind::Shape:
    return "shape";
  case ArgKind::Scope:
    return "scope";
  case ArgKind::Tag:
    return "tag";
  }
  return "any";
}

ArgKind operandKind(const OpInfo &op, size_t index) {
  size_t n = countItems(op.operands);
  if (n == 0 || (index >= n && !isVariadic(op.operands)))
    return ArgKind::Any;
  return parseKind(nthItem(op.operandKinds, std::min(index, n - 1))).value_or(ArgKind::Any);
}

ArgKind optionKind(const OpInfo &op, std::string_view name) {
  for (size_t i = 0, n = countItems(op.options); i < n; ++i) {
    std::string_view item = nthItem(op.options, i);
    if (item.starts_with('#'))
      item.remove_prefix(1);
    if (item == name || item == "*")
      return parseKind(nthItem(op.optionKinds, i)).value_or(ArgKind::Any);
  }
  return ArgKind::Any;
}

std::string signature(const OpInfo &op, std::string_view spelled) {
  std::string out = std::string(spelled.empty() ? op.name : spelled) + "(";
  auto add = [&](std::string_view name, bool optional, ArgKind kind) {
    if (out.back() != '(')
      out += ", ";
    while (name.starts_with('#'))
      name.remove_prefix(1);
    bool variadic = name.ends_with("...");
    if (variadic)
      name.remove_suffix(3);
    out += std::string(name == "*" ? "name" : name) + (optional ? "?" : "") + ": " + std::string(argKindName(kind));
    if (variadic)
      out += ", ...";
  };
  for (size_t i = 0, n = countItems(op.operands); i < n; ++i)
    add(nthItem(op.operands, i), i >= op.minOperands, operandKind(op, i));
  for (size_t i = 0, n = countItems(op.options); i < n; ++i)
    add(nthItem(op.options, i), true, parseKind(nthItem(op.optionKinds, i)).value_or(ArgKind::Any));
  return out + ")";
}

} // namespace cake::sema
