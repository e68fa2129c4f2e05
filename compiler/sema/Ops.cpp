//===- Ops.cpp - The primitive table --------------------------------------===//
//
// Part of CAKE. One row per operation of the language reference, section 10.2
// (with the details of 10.3-10.13, section 8 for ring operations and section 9
// for raw barriers). Keep the table sorted by name: findOp binary-searches it,
// a static_assert below and a unit test check the order.
//
// List conventions (see OpInfo in Ops.h):
//   - operands and options are comma-separated names;
//   - a leading '#' marks a tag position (bare identifiers there are option
//     values, never variables): "x, #type", "#shape, accumulate";
//   - a trailing "..." on the last operand makes the operation variadic, the
//     last operand repeating: "#scope...";
//   - the option list "*" accepts any keyword name, none of them a tag. It is
//     used by sched.tiles, whose keywords are the tile dimension names chosen
//     by the author (m = Mt, n = Nt, b = B, ...) and `group`.
// Ring operations are written "ring.<op>"; the source spells them with the
// ring's name as the family (`ab.produce()`).
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Ops.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace cake::sema {
namespace {

using enum Issue;
using enum OpClass;

constexpr uint8_t All = AllTargets;
constexpr uint8_t Sm90 = SM90a;
constexpr uint8_t Sm100 = SM100a;
constexpr uint8_t Sm90Up = SM90a | SM100a;

// Keep this table sorted by name; a unit test checks it.
// name, operands, minOperands, options, targets, issue, class, summary
constexpr std::array kOps = {
    // running argmin over tiles (10.10)
    OpInfo{"argmin.finish", "best, best_id", 2, "", All, Unit, Reduce,
           "merges argmin.fold's per-lane partials: best, best_id become the rows' results", "@"},
    OpInfo{"argmin.fold", "best, best_id, x", 3, "offset", All, Unit, Reduce,
           "per row, folds x's minimum along axis 1 (index + offset) into per-lane partials", "@"},
    // atomics (10.12)
    OpInfo{"atomic.add", "value, dst", 2, "#scope, #sem", All, Thread, Atomic, "atomic add; returns the old value(s)", "@"},
    OpInfo{"atomic.cas", "expected, value, dst", 3, "#scope, #sem", All, Thread, Atomic,
           "atomic compare-and-swap; returns the old value", "@"},
    OpInfo{"atomic.exch", "value, dst", 2, "#scope, #sem", All, Thread, Atomic,
           "atomic exchange; returns the old value(s)", "@"},
    OpInfo{"atomic.max", "value, dst", 2, "#scope, #sem", All, Thread, Atomic, "atomic max; returns the old value(s)", "@"},
    OpInfo{"atomic.min", "value, dst", 2, "#scope, #sem", All, Thread, Atomic, "atomic min; returns the old value(s)", "@"},
    // barriers (10.12, section 9)
    OpInfo{"bar.arrive", "#scope...", 1, "", All, Thread, Barrier, "arrive at a derived named barrier (not warp)", "@"},
    OpInfo{"bar.arrive_id", "id", 1, "threads", All, Thread, Barrier, "arrive at raw named barrier id 1..15", "@"},
    OpInfo{"bar.sync", "#scope...", 1, "", All, Thread, Barrier, "barrier over warp, warpgroup, roles or cta", "@"},
    OpInfo{"bar.sync_id", "id", 1, "threads", All, Thread, Barrier, "sync on raw named barrier id 1..15", "@"},
    // cluster barriers and identity (10.12, 10.13)
    OpInfo{"cluster.arrive", "", 0, "", Sm90Up, Thread, Barrier, "cluster barrier arrive (every thread)"},
    OpInfo{"cluster.id", "d", 1, "", Sm90Up, Thread, Identity, "cluster index along dimension d"},
    OpInfo{"cluster.rank", "", 0, "", Sm90Up, Thread, Identity, "rank of this CTA in its cluster"},
    OpInfo{"cluster.size", "", 0, "", Sm90Up, Thread, Identity, "CTAs in the cluster"},
    OpInfo{"cluster.sync", "", 0, "", Sm90Up, Thread, Barrier, "cluster barrier (every thread)"},
    OpInfo{"cluster.wait", "", 0, "", Sm90Up, Thread, Barrier, "cluster barrier wait (every thread)"},
    // cp.async (10.4, section 9)
    OpInfo{"cp.async", "src, dst", 2, "#by, clip, vec", All, Coop, CpAsync,
           "cooperative async copy global to shared; clip zero-fills", "@"},
    OpInfo{"cp.async_arrive", "b", 1, "", All, Thread, CpAsync, "cp.async.mbarrier.arrive.noinc on a raw barrier"},
    OpInfo{"cp.async_commit", "", 0, "", All, Thread, CpAsync, "commit a raw cp.async group", "cake::rt::cp_async_commit_group()"},
    OpInfo{"cp.async_wait", "n", 1, "", All, Thread, CpAsync, "wait until at most n raw cp.async groups pend", "@"},
    // CTA identity (10.13)
    OpInfo{"cta.count", "", 0, "", All, Thread, Identity, "CTAs in the grid"},
    OpInfo{"cta.id", "d", 1, "", All, Thread, Identity, "CTA index along dimension d (0..2)", "@"},
    OpInfo{"elect.one", "", 0, "", All, Unit, Identity, "true on one fixed thread of the unit", "@"},
    // fences (10.12)
    OpInfo{"fence.cta", "", 0, "", All, Thread, Fence, "fence.acq_rel at CTA scope", "cake::rt::fence_acq_rel_cta()"},
    OpInfo{"fence.gpu", "", 0, "", All, Thread, Fence, "fence.acq_rel at GPU scope", "cake::rt::fence_acq_rel_gpu()"},
    OpInfo{"fence.proxy_async", "region", 1, "", Sm90Up, Thread, Fence,
           "order generic-proxy accesses before async-proxy ones", "cake::rt::fence_proxy_async_shared()"},
    OpInfo{"fence.sys", "", 0, "", All, Thread, Fence, "fence.acq_rel at system scope", "cake::rt::fence_acq_rel_sys()"},
    // loads (10.5)
    OpInfo{"ld.global", "src", 1, "like, axis, mask, other, clip", All, Thread, LoadGlobal,
           "load a global view into registers", "@"},
    OpInfo{"ld.matrix", "src", 1, "#operand, trans", All, Warp, LoadShared,
           "ldmatrix.x4 of a 16-bit shared view into an MMA operand", "@"},
    OpInfo{"ld.shared", "src", 1, "like, axis", All, Thread, LoadShared, "load a shared view into registers", "@"},
    // elementwise math (10.9)
    OpInfo{"math.abs", "x", 1, "precise", All, Thread, Math, "absolute value"},
    OpInfo{"math.cast", "x, #type", 2, "", All, Thread, Math, "convert to an element type (round to nearest even)", "@"},
    OpInfo{"math.cdiv", "a, b", 2, "", All, Thread, Math, "ceiling division (a + b - 1) / b", "cake::rt::cdiv($0, $1)"},
    OpInfo{"math.exp", "x", 1, "precise", All, Thread, Math, "exponential (approximate unless precise)"},
    OpInfo{"math.exp2", "x", 1, "precise", All, Thread, Math, "base-2 exponential (approximate unless precise)"},
    OpInfo{"math.fma", "a, b, c", 3, "", All, Thread, Math, "fused multiply-add a * b + c"},
    OpInfo{"math.log", "x", 1, "precise", All, Thread, Math, "natural logarithm (approximate unless precise)"},
    OpInfo{"math.log2", "x", 1, "precise", All, Thread, Math, "base-2 logarithm (approximate unless precise)"},
    OpInfo{"math.max", "a, b", 2, "", All, Thread, Math, "elementwise maximum", "max($0, $1)"},
    OpInfo{"math.min", "a, b", 2, "", All, Thread, Math, "elementwise minimum", "min($0, $1)"},
    OpInfo{"math.rsqrt", "x", 1, "precise", All, Thread, Math, "reciprocal square root (approximate unless precise)"},
    OpInfo{"math.select", "p, a, b", 3, "", All, Thread, Math, "true select: p ? a : b, both sides computed", "($0 ? $1 : $2)"},
    OpInfo{"math.sigmoid", "x", 1, "precise", All, Thread, Math, "logistic sigmoid (approximate unless precise)"},
    OpInfo{"math.sqrt", "x", 1, "precise", All, Thread, Math, "square root (approximate unless precise)"},
    OpInfo{"math.tanh", "x", 1, "precise", All, Thread, Math, "hyperbolic tangent (approximate unless precise)"},
    // raw mbarriers (section 9, 10.12)
    OpInfo{"mbarrier.arrive", "b", 1, "count, cta", All, Thread, Mbarrier, "arrive on a raw barrier (cta = remote)", "@"},
    OpInfo{"mbarrier.arrive_expect_tx", "b", 1, "bytes", Sm90Up, One, Mbarrier,
           "arrive on a raw barrier expecting tx bytes", "@"},
    OpInfo{"mbarrier.expect_tx", "b", 1, "bytes", Sm90Up, One, Mbarrier, "expect tx bytes on a raw barrier"},
    OpInfo{"mbarrier.try_wait", "b", 1, "parity", All, Thread, Mbarrier, "test a raw barrier's phase parity"},
    OpInfo{"mbarrier.wait", "b", 1, "parity", All, Thread, Mbarrier, "wait for a raw barrier's phase parity", "@"},
    // tensor cores (10.6)
    OpInfo{"mma.sync", "a, b, acc", 3, "#shape", All, Warp, Mma, "synchronous warp MMA acc += a b^T", "@"},
    // reductions (10.10)
    OpInfo{"reduce.argmax", "x", 1, "axis", All, Unit, Reduce, "(values, indices) of the maximum along axis"},
    OpInfo{"reduce.argmin", "x", 1, "axis", All, Unit, Reduce, "(values, indices) of the minimum along axis"},
    OpInfo{"reduce.max", "x", 1, "axis", All, Unit, Reduce, "maximum along axis", "@"},
    OpInfo{"reduce.min", "x", 1, "axis", All, Unit, Reduce, "minimum along axis", "@"},
    OpInfo{"reduce.sum", "x", 1, "axis", All, Unit, Reduce, "sum along axis", "@"},
    // rings (section 8)
    OpInfo{"ring.commit", "token", 1, "", All, Unit, Ring, "publish the slot; expect-tx / cp.async group derived", "@"},
    OpInfo{"ring.consume", "", 0, "", All, Unit, Ring, "wait for a full slot; returns a read token", "@"},
    OpInfo{"ring.produce", "", 0, "", All, Unit, Ring, "wait for an empty slot; returns a write token", "@"},
    OpInfo{"ring.release", "token", 1, "after", All, Unit, Ring, "hand the slot back, now or after an event", "@"},
    // scans (10.10)
    OpInfo{"scan.max", "x", 1, "axis, exclusive", All, Unit, Reduce, "prefix maximum along axis"},
    OpInfo{"scan.min", "x", 1, "axis, exclusive", All, Unit, Reduce, "prefix minimum along axis"},
    OpInfo{"scan.sum", "x", 1, "axis, exclusive", All, Unit, Reduce, "prefix sum along axis"},
    // scheduling (10.13): any keyword names a tile dimension, plus `group`
    OpInfo{"sched.tiles", "", 0, "*", All, None, Schedule, "tile space of a persistent kernel", "@"},
    // thread identity (10.13)
    OpInfo{"self.lane", "", 0, "", All, Thread, Identity, "lane within the warp", "int(cake::rt::lane_id())"},
    OpInfo{"self.thread", "", 0, "", All, Thread, Identity, "thread index relative to the role", "@"},
    OpInfo{"self.warp", "", 0, "", All, Thread, Identity, "warp index relative to the role", "@"},
    OpInfo{"self.warpgroup", "", 0, "", All, Thread, Identity, "warpgroup index relative to the role", "@"},
    // stores (10.5)
    OpInfo{"st.global", "value, dst", 2, "mask, clip", All, Thread, StoreGlobal, "store registers to a global view", "@"},
    OpInfo{"st.matrix", "value, dst", 2, "trans", Sm90Up, Warp, StoreShared,
           "stmatrix of a 16-bit fragment into a shared view", "@"},
    OpInfo{"st.shared", "value, dst", 2, "", All, Thread, StoreShared, "store registers to a shared view"},
    // tcgen05 and tensor memory (10.8)
    OpInfo{"tcgen05.commit", "b", 1, "", Sm100, One, MmaSync, "arrive on a raw barrier when tcgen05 ops complete", "@"},
    OpInfo{"tcgen05.cp", "src, dst", 2, "", Sm100, One, Tmem, "copy shared memory into tensor memory"},
    OpInfo{"tcgen05.done", "", 0, "", Sm100, None, Event, "release event: the unit's tcgen05 ops complete", "@"},
    OpInfo{"tcgen05.fence_after", "", 0, "", Sm100, Thread, MmaSync, "tcgen05 fence after a thread sync", "cake::rt::tcgen05_fence_after_thread_sync()"},
    OpInfo{"tcgen05.fence_before", "", 0, "", Sm100, Thread, MmaSync, "tcgen05 fence before a thread sync", "cake::rt::tcgen05_fence_before_thread_sync()"},
    OpInfo{"tcgen05.ld", "src", 1, "#shape", Sm100, Warp, Tmem, "load a warp's TMEM lane quadrant to registers", "@"},
    OpInfo{"tcgen05.mma", "a, b, acc", 3, "#shape, accumulate, cta_group", Sm100, One, Mma,
           "asynchronous MMA into tensor memory", "@"},
    OpInfo{"tcgen05.st", "value, dst", 2, "#shape", Sm100, Warp, Tmem, "store registers to tensor memory"},
    OpInfo{"tcgen05.wait_ld", "", 0, "", Sm100, Warp, MmaSync, "wait for tcgen05.ld before using loaded values", "cake::rt::tcgen05_wait_ld()"},
    OpInfo{"tcgen05.wait_st", "", 0, "", Sm100, Warp, MmaSync, "wait for tcgen05.st before reusing stored TMEM"},
    // views (10.13)
    OpInfo{"tile.bytes", "v", 1, "", All, None, View, "size in bytes of a view or type"},
    OpInfo{"tile.expand", "x, axis", 2, "", All, None, View, "insert a size-1 dimension"},
    OpInfo{"tile.iota", "", 0, "like, axis", All, Thread, View, "0 .. x.shape[a], distributed like axis a of x"},
    OpInfo{"tile.t", "v", 1, "", All, None, View, "transposed (MN-major) MMA operand view"},
    // TMA (10.3)
    OpInfo{"tma.load", "src, dst", 2, "multicast, barrier", Sm90Up, One, TmaLoad,
           "TMA copy of a global box into shared memory", "@"},
    OpInfo{"tma.prefetch", "src", 1, "", Sm90Up, One, TmaOther, "L2 prefetch of a global box"},
    OpInfo{"tma.reduce", "src, dst", 2, "#op", Sm90Up, One, TmaStore, "TMA reduction of shared memory into global"},
    OpInfo{"tma.store", "src, dst", 2, "", Sm90Up, One, TmaStore, "TMA store of shared memory to global (one group)", "@"},
    OpInfo{"tma.store_read", "depth", 1, "", Sm90Up, None, Event, "release event: TMA stores finished reading"},
    OpInfo{"tma.store_wait", "n", 1, "complete", Sm90Up, One, TmaWait,
           "wait until at most n bulk store groups read shared memory", "@"},
    // top-k (10.11)
    OpInfo{"topk.merge", "keys, ids, new_keys, new_ids", 4, "largest", All, Unit, Reduce,
           "per row, the k smallest (largest) of state and candidates"},
    // warp-level (10.12)
    OpInfo{"warp.all", "p", 1, "", All, Warp, WarpOp, "true if p holds on every lane"},
    OpInfo{"warp.any", "p", 1, "", All, Warp, WarpOp, "true if p holds on some lane"},
    OpInfo{"warp.ballot", "p", 1, "", All, Warp, WarpOp, "u32 mask of the lanes where p holds"},
    OpInfo{"warp.shfl", "x, lane", 2, "", All, Warp, WarpOp, "read x from another lane"},
    OpInfo{"warp.shfl_xor", "x, mask", 2, "", All, Warp, WarpOp, "read x from lane ^ mask"},
    // wgmma (10.7)
    OpInfo{"wgmma.commit", "", 0, "", Sm90, Warpgroup, MmaSync, "wgmma.commit_group", "@"},
    OpInfo{"wgmma.mma", "a, b, acc", 3, "#shape, accumulate, scale_a, scale_b", Sm90, Warpgroup, Mma,
           "asynchronous warpgroup MMA acc (+)= a b^T", "@"},
    OpInfo{"wgmma.retired", "depth", 1, "", Sm90, None, Event, "release event: the slot's wgmma group retired", "@"},
    OpInfo{"wgmma.wait", "n", 1, "", Sm90, Warpgroup, MmaSync, "wgmma.wait_group n", "@"},
};

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
static_assert(checkTable(), "kOps must be sorted, unique and well formed");

} // namespace

std::span<const OpInfo> allOps() { return kOps; }

const OpInfo *findOp(std::string_view name) {
  auto it = std::lower_bound(kOps.begin(), kOps.end(), name,
                             [](const OpInfo &op, std::string_view n) { return op.name < n; });
  return it != kOps.end() && it->name == name ? &*it : nullptr;
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

} // namespace cake::sema
