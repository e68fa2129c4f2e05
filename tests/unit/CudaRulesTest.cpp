//===- CudaRulesTest.cpp - The CUDA checker's rules, without Clang --------===//
//
// compiler/cuda/Rules.h over hand-made event lists (the front end is tested
// by tests/lit/cuda on real .cu files).
//
//===----------------------------------------------------------------------===//
#include "compiler/cuda/Rules.h"

#include <gtest/gtest.h>

using namespace cake::cuda;

TEST(CudaRules, ClassifiesPtxWithLabelsPredicatesAndBraces) {
  EXPECT_EQ(classifyPtx("mbarrier.init.shared::cta.b64 [%0], %1"), EventKind::MbarInit);
  EXPECT_EQ(classifyPtx("fence.mbarrier_init.release.cluster"), EventKind::FenceMbarInit);
  EXPECT_EQ(classifyPtx("W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1"), EventKind::MbarWait);
  EXPECT_EQ(classifyPtx("@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1"), EventKind::MbarExpectTx);
  EXPECT_EQ(classifyPtx("mbarrier.arrive.shared::cta.b64 _, [%0]"), EventKind::MbarArrive);
  EXPECT_EQ(classifyPtx("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4]"), EventKind::SharedRead);
  EXPECT_EQ(classifyPtx("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1}"), EventKind::SharedWrite);
  EXPECT_EQ(classifyPtx("{ cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4]"),
            EventKind::TmaLoad);
  EXPECT_EQ(classifyPtx("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1]"), EventKind::TmaStore);
  EXPECT_EQ(classifyPtx("cp.async.bulk.wait_group.read 0"), EventKind::BulkWait);
  EXPECT_EQ(classifyPtx("bar.sync 0"), EventKind::CtaBarrier);
  EXPECT_EQ(classifyPtx("bar.sync 1, 256"), EventKind::NamedBarrier); // a named barrier is not the CTA's
  EXPECT_EQ(classifyPtx("mov.u32 %0, %%laneid"), EventKind::Other);
  EXPECT_EQ(classifyPtx("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3]"),
            EventKind::BulkLoad);
  EXPECT_EQ(classifyPtx("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2"), EventKind::TmaStore);
  EXPECT_EQ(classifyPtx("bar.warp.sync 0xffffffff"), EventKind::WarpBarrier);
  EXPECT_EQ(classifyPtx("barrier.cta.sync.aligned 2, 128"), EventKind::NamedBarrier);
  // operands split at the commas outside brackets and braces
  EXPECT_EQ(ptxOperands("@p mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1"),
            (std::vector<std::string>{"_", "[%0]", "%1"}));
  EXPECT_EQ(ptxOperands("cp.async.bulk.tensor.2d.shared::cluster.global [%0], [%1, {%2, %3}], [%4]"),
            (std::vector<std::string>{"[%0]", "[%1, {%2, %3}]", "[%4]"}));
  EXPECT_EQ(ptxOperands("W: bar.sync 1, 256"), (std::vector<std::string>{"1", "256"}));
}

TEST(CudaRules, InitFenceAndStoreWaitInSourceOrder) {
  auto ev = [](EventKind k, uint32_t line) { return Event{k, {line, 1}, "op", ""}; };
  // threads' own waits see the init after a CTA barrier; the async proxy (a TMA load completing on it) needs the
  // fence
  KernelEvents threads{"t", {1, 1}, {ev(EventKind::MbarInit, 3), ev(EventKind::CtaBarrier, 4), ev(EventKind::MbarWait, 5)}};
  EXPECT_TRUE(checkKernel(threads).empty());
  KernelEvents k{"k", {1, 1}, {ev(EventKind::MbarInit, 3), ev(EventKind::CtaBarrier, 4), ev(EventKind::TmaLoad, 5)}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "mbar.init-fence");
  EXPECT_EQ(f[0].at.line, 3u);
  ASSERT_EQ(f[0].notes.size(), 1u);
  EXPECT_EQ(f[0].notes[0].at.line, 5u);
  // the fence between them: clean
  k.events.insert(k.events.begin() + 1, ev(EventKind::FenceMbarInit, 3));
  EXPECT_TRUE(checkKernel(k).empty());
  // a store with no wait after it: reported at the store; a wait after it: clean
  KernelEvents s{"s", {1, 1}, {ev(EventKind::TmaStore, 7), ev(EventKind::BulkCommit, 8)}};
  f = checkKernel(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tma.store-wait");
  EXPECT_EQ(f[0].at.line, 7u);
  s.events.push_back(ev(EventKind::BulkWait, 9));
  EXPECT_TRUE(checkKernel(s).empty());
}

// cp.async.bulk.wait_group(.read) N waits for committed groups but the N most recent: a store whose group is
// never committed, or among the N a wait lets run on, is pending at exit (the emitted CUDA of a `tma.store_wait(1)`
// at a kernel's end, bench/cuda/crosscheck.py's gemm_sm90_ws store_wait_deeper mutant of line 68).
TEST(CudaRules, StoreWaitCountsBulkGroups) {
  auto ev = [](EventKind k, uint32_t line, int64_t n = -1) {
    Event e{k, {line, 1}, "op", ""};
    e.n = n;
    return e;
  };
  // never committed: the wait covers no group of it
  KernelEvents open{"o", {1, 1}, {ev(EventKind::TmaStore, 3), ev(EventKind::BulkWait, 4, 0)}};
  open.end = {6, 1};
  std::vector<Finding> f = checkKernel(open);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tma.store-wait");
  EXPECT_NE(f[0].message.find("never committed"), std::string::npos);
  ASSERT_TRUE(f[0].fix.has_value()); // the fix commits, then waits
  EXPECT_NE(f[0].fix->statement.find("commit_group"), std::string::npos);
  // its own group the most recent: wait_group.read 1 leaves it running
  KernelEvents deep{"d", {1, 1}, {ev(EventKind::TmaStore, 3), ev(EventKind::BulkCommit, 3), ev(EventKind::BulkWait, 4, 1)}};
  f = checkKernel(deep);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].at.line, 3u);
  deep.events.back().n = 0;
  EXPECT_TRUE(checkKernel(deep).empty());
  // a younger group committed after it: wait 1 retires the older store, not the younger one
  KernelEvents two{"t", {1, 1}, {ev(EventKind::TmaStore, 3), ev(EventKind::BulkCommit, 3), ev(EventKind::TmaStore, 4),
                                 ev(EventKind::BulkCommit, 4), ev(EventKind::BulkWait, 5, 1)}};
  f = checkKernel(two);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].at.line, 4u);
  // a depth that is not a constant retires every committed group, never the open one
  KernelEvents unknown{"u", {1, 1}, {ev(EventKind::TmaStore, 3), ev(EventKind::BulkCommit, 3), ev(EventKind::BulkWait, 4)}};
  EXPECT_TRUE(checkKernel(unknown).empty());
}

TEST(CudaRules, ProxyFenceBothDirections) {
  auto ev = [](EventKind k, uint32_t line) { return Event{k, {line, 1}, "op", ""}; };
  // hazard 11: a generic write, then a TMA store
  KernelEvents w{"w", {1, 1}, {ev(EventKind::SharedWrite, 3), ev(EventKind::CtaBarrier, 4), ev(EventKind::TmaStore, 5),
                               ev(EventKind::BulkCommit, 5), ev(EventKind::BulkWait, 6)}};
  std::vector<Finding> f = checkKernel(w);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "proxy.fence");
  EXPECT_EQ(f[0].at.line, 5u);
  EXPECT_EQ(f[0].notes.at(0).at.line, 3u);
  w.events.insert(w.events.begin() + 1, ev(EventKind::FenceProxyAsync, 3));
  EXPECT_TRUE(checkKernel(w).empty());
  // hazard 12: a generic read, then a plain arrive releasing the stage; a producer's expect_tx is no release
  // (reads of a stage some wait delivered; a read before any wait, of a word no barrier guards, is not followed)
  KernelEvents r{"r", {1, 1}, {ev(EventKind::SharedRead, 6), ev(EventKind::MbarWait, 6), ev(EventKind::SharedRead, 7),
                               ev(EventKind::MbarExpectTx, 8), ev(EventKind::MbarArrive, 9)}};
  f = checkKernel(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "proxy.fence");
  EXPECT_EQ(f[0].at.line, 9u);
  r.events.insert(r.events.begin() + 4, ev(EventKind::FenceProxyAsync, 8));
  EXPECT_TRUE(checkKernel(r).empty());
  KernelEvents unguarded{"u", {1, 1}, {ev(EventKind::SharedRead, 6), ev(EventKind::MbarArrive, 9)}};
  EXPECT_TRUE(checkKernel(unguarded).empty());
}

// A fence inside a loop that may run zero times does not cover what follows the loop; a wait in the loop's
// second iteration does not excuse its first.
TEST(CudaRules, LoopsZeroTripAndBackEdge) {
  auto ev = [](EventKind k, uint32_t line) { return Event{k, {line, 1}, "op", ""}; };
  Event loop{EventKind::LoopBegin, {4, 1}, "loop", ""};
  KernelEvents k{"k", {1, 1}, {ev(EventKind::SharedWrite, 3), loop, ev(EventKind::FenceProxyAsync, 5),
                               ev(EventKind::LoopEnd, 4), ev(EventKind::TmaStore, 7), ev(EventKind::BulkCommit, 7),
                               ev(EventKind::BulkWait, 8)}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "proxy.fence");
  EXPECT_EQ(f[0].at.line, 7u);
  k.events[1].mayBeEmpty = false; // a loop known to run: its fence covers the store
  EXPECT_TRUE(checkKernel(k).empty());
  // a store waited only inside a loop that may not run: pending at exit
  KernelEvents s{"s", {1, 1}, {ev(EventKind::TmaStore, 3), loop, ev(EventKind::BulkWait, 5), ev(EventKind::LoopEnd, 4)}};
  f = checkKernel(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tma.store-wait");
}

// bar.race: every lane writes, one lane arrives; a warp or named barrier between orders the writes first.
TEST(CudaRules, ElectedArriveAfterAllLanesWrites) {
  Event write{EventKind::SharedWrite, {3, 1}, "op", ""};
  Event arrive{EventKind::MbarArrive, {5, 1}, "op", ""};
  arrive.oneLane = true;
  KernelEvents k{"k", {1, 1}, {write, arrive}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.race");
  EXPECT_EQ(f[0].at.line, 5u);
  k.events.insert(k.events.begin() + 1, Event{EventKind::WarpBarrier, {4, 1}, "__syncwarp()", ""});
  EXPECT_TRUE(checkKernel(k).empty());
  // every lane arrives (no elect): each releases its own writes
  KernelEvents all{"a", {1, 1}, {write, Event{EventKind::MbarArrive, {5, 1}, "op", ""}}};
  EXPECT_TRUE(checkKernel(all).empty());
}

// Branches are two paths; a fixed per-thread condition takes the same arm again (the store and its wait by one
// thread), a different condition does not.
TEST(CudaRules, FixedConditionsTakeTheSameArm) {
  auto ev = [](EventKind k, uint32_t line) { return Event{k, {line, 1}, "op", ""}; };
  auto branch = [](uint32_t line, const char *key) {
    Event b{EventKind::BranchBegin, {line, 1}, "threadIdx.x == 0", ""};
    b.divergent = true;
    b.object = key;
    return b;
  };
  KernelEvents k{"k", {1, 1}, {branch(3, "tid0"), ev(EventKind::TmaStore, 4), ev(EventKind::BulkCommit, 5),
                               ev(EventKind::BranchElse, 3), ev(EventKind::BranchEnd, 3), branch(7, "tid0"),
                               ev(EventKind::BulkWait, 8), ev(EventKind::BranchElse, 7), ev(EventKind::BranchEnd, 7)}};
  EXPECT_TRUE(checkKernel(k).empty());
  k.events[5].object = "tid32"; // another thread waits: the storing thread exits with its store in flight
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tma.store-wait");
  EXPECT_TRUE(f[0].fix.has_value() == false); // no closing brace known: no fix-it
  k.end = {10, 1};
  f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  ASSERT_TRUE(f[0].fix.has_value());
  EXPECT_EQ(f[0].fix->before.line, 10u);
}

// bar.uniform: a CTA barrier under a divergent branch or loop; a note when the branch is uniform only for
// blocks up to some size (BranchBegin.n).
TEST(CudaRules, CtaBarrierUnderDivergentControl) {
  Event branch{EventKind::BranchBegin, {3, 1}, "threadIdx.x < 32", ""};
  branch.divergent = true;
  KernelEvents k{"k", {1, 1}, {branch, Event{EventKind::CtaBarrier, {4, 3}, "__syncthreads()", ""},
                               Event{EventKind::BranchElse, {3, 1}, "else", ""},
                               Event{EventKind::BranchEnd, {3, 1}, "end", ""}}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.uniform");
  EXPECT_TRUE(f[0].decided);
  k.events[0].n = 128; // all threads agree in blocks of at most 128: not decided without launch bounds
  f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].decided);
  k.events[0].divergent = false; // a uniform branch
  k.events[0].n = -1;
  EXPECT_TRUE(checkKernel(k).empty());
}

// bar.ids: ids past 15, counts not whole warps, one id with two counts; a note for an id that is not constant.
TEST(CudaRules, NamedBarrierIdsAndCounts) {
  // threads 0 .. (the count in whole warps) - 1 of a block of 256 use a constant id; an id -1 is not decided
  auto bar = [](uint32_t line, int64_t id, int64_t threads) {
    Event e{EventKind::NamedBarrier, {line, 1}, "bar.sync %0, %1", ""};
    e.n = id;
    e.threads = threads;
    if (id >= 0) {
      e.reach.assign(256, -1);
      for (int64_t t = 0; t < (threads + 31) / 32 * 32; ++t)
        e.reach[t] = static_cast<int16_t>(id);
    }
    return e;
  };
  KernelEvents ok{"k", {1, 1}, {bar(3, 1, 256), bar(4, 1, 256), bar(5, 2, 128)}};
  EXPECT_TRUE(checkKernel(ok).empty());
  KernelEvents bad{"k", {1, 1}, {bar(3, 1, 256), bar(4, 1, 128), bar(5, 2, 100), bar(6, 16, 128), bar(7, -1, 128)}};
  std::vector<Finding> f = checkKernel(bad);
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].at.line, 4u); // the second count
  EXPECT_EQ(f[0].notes.at(0).at.line, 3u);
  EXPECT_EQ(f[1].at.line, 5u);
  EXPECT_EQ(f[2].at.line, 6u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(f[i].code, "bar.ids");
  // the id that is not decided: a note of each rule (sorted by code at one place)
  EXPECT_EQ(f[3].at.line, 7u);
  EXPECT_EQ(f[3].code, "bar.count");
  EXPECT_EQ(f[4].code, "bar.ids");
  EXPECT_FALSE(f[3].decided || f[4].decided);
}

// mbar.expect-tx: constant bytes against the constant bulk copies of the same block; a tensor copy is a note.
TEST(CudaRules, ExpectTxAgainstBulkCopies) {
  auto e = [](EventKind k, uint32_t line, int64_t n) {
    Event x{k, {line, 1}, "op", ""};
    x.n = n;
    return x;
  };
  KernelEvents k{"k", {1, 1}, {e(EventKind::MbarExpectTx, 3, 1024), e(EventKind::BulkLoad, 4, 512),
                               e(EventKind::BulkLoad, 5, 512), e(EventKind::MbarWait, 6, -1)}};
  EXPECT_TRUE(checkKernel(k).empty());
  k.events[2].n = 256;
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "mbar.expect-tx");
  EXPECT_TRUE(f[0].decided);
  k.events[2] = e(EventKind::TmaLoad, 5, -1);
  f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].decided);
}

// An unclosed loop or branch (a malformed event list) runs to the end of the events: no hang, no crash.
TEST(CudaRules, UnclosedLoopsAndBranchesEnd) {
  KernelEvents k{"k", {1, 1}, {Event{EventKind::LoopBegin, {2, 1}, "loop", ""},
                               Event{EventKind::BranchBegin, {3, 1}, "c", ""},
                               Event{EventKind::TmaStore, {4, 1}, "op", ""}}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tma.store-wait");
}

// Hazard 12 needs a TMA refill: reads of a delivered stage, then an arrive on a barrier that some wait guards a
// TMA load behind, is flagged; an arrive on a barrier after which the other side refills with generic stores is
// not (ThunderKittens' lcsf.cuh:166 before barrier identities); an arrive whose barrier is not followed still is.
TEST(CudaRules, ProxyFenceReleaseOnlyForTmaRefills) {
  auto ev = [](EventKind k, uint32_t line, const char *barrier = "") {
    Event e{k, {line, 1}, "op", ""};
    e.barrier = barrier;
    return e;
  };
  KernelEvents k{"k", {1, 1}, {ev(EventKind::MbarWait, 2, "empty"), ev(EventKind::TmaLoad, 3),
                               ev(EventKind::MbarWait, 5, "full"), ev(EventKind::SharedRead, 6),
                               ev(EventKind::MbarArrive, 7, "empty")}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "proxy.fence");
  EXPECT_EQ(f[0].at.line, 7u);
  k.events[4].barrier = "handback"; // nobody waits on it before a TMA load
  EXPECT_TRUE(checkKernel(k).empty());
  k.events[4].barrier = ""; // not followed: reported as before
  EXPECT_EQ(checkKernel(k).size(), 1u);
}

// Hazard 17: the registers a tcgen05.ld fills are read only after tcgen05.wait::ld (the IR verifier's
// tcgen05.wait); a wait on one path only leaves the other path's read flagged.
TEST(CudaRules, TmemLoadWaitedBeforeRead) {
  EXPECT_EQ(classifyPtx("tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1}, [%32]"), EventKind::TmemLoad);
  EXPECT_EQ(classifyPtx("tcgen05.wait::ld.sync.aligned"), EventKind::TmemWait);
  EXPECT_EQ(classifyPtx("tcgen05.wait::st.sync.aligned"), EventKind::Other);
  EXPECT_EQ(classifyPtx("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3}], [%1]"),
            EventKind::TmaStore);
  Event load{EventKind::TmemLoad, {3, 1}, "tcgen05.ld", ""};
  load.object = "1:r";
  Event read{EventKind::AccRead, {5, 1}, "a read of r", ""};
  read.object = "1:r";
  Event other = read;
  other.object = "2:s"; // another array: no load pending on it
  KernelEvents k{"k", {1, 1}, {load, other, read}};
  std::vector<Finding> f = checkKernel(k);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tcgen05.wait");
  EXPECT_EQ(f[0].at.line, 5u);
  EXPECT_EQ(f[0].notes.at(0).at.line, 3u);
  k.events.insert(k.events.begin() + 1, Event{EventKind::TmemWait, {4, 1}, "tcgen05.wait::ld", ""});
  EXPECT_TRUE(checkKernel(k).empty());
  Event branch{EventKind::BranchBegin, {4, 1}, "c", ""};
  KernelEvents half{"h", {1, 1}, {load, branch, Event{EventKind::TmemWait, {4, 1}, "w", ""},
                                  Event{EventKind::BranchElse, {4, 1}, "else", ""},
                                  Event{EventKind::BranchEnd, {4, 1}, "end", ""}, read}};
  f = checkKernel(half);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "tcgen05.wait");
}

// bar.count over Event::reach: per id, the threads of all its uses against its count; an arrive and a sync of
// two groups add up; a use whose threads are not known leaves the counts unchecked (a note).
TEST(CudaRules, NamedBarrierCountsTheThreadsThatReachIt) {
  auto bar = [](uint32_t line, int64_t id, int64_t threads, int16_t first, int16_t last, int16_t use) {
    Event e{EventKind::NamedBarrier, {line, 1}, "bar.sync", ""};
    e.n = id;
    e.threads = threads;
    e.reach.assign(256, -1);
    for (int t = first; t <= last; ++t)
      e.reach[t] = use;
    return e;
  };
  KernelEvents ok{"ok", {1, 1}, {bar(3, 1, 256, 0, 127, 1), bar(4, 1, 256, 128, 255, 1), bar(5, 2, 128, 0, 127, 2)}};
  EXPECT_TRUE(checkKernel(ok).empty());
  KernelEvents few{"few", {1, 1}, {bar(3, 1, 128, 0, 63, 1)}};
  std::vector<Finding> f = checkKernel(few);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.count");
  EXPECT_NE(f[0].message.find("64 threads"), std::string::npos);
  // an id each thread computes: 0-127 use 3, 128-255 use 4, each of 128: clean; all on 3 with 128: too many
  Event computed = bar(6, -1, 128, 0, 127, 3);
  for (int t = 128; t < 256; ++t)
    computed.reach[t] = 4;
  KernelEvents perThread{"p", {1, 1}, {computed}};
  EXPECT_TRUE(checkKernel(perThread).empty());
  KernelEvents mixed{"m", {1, 1}, {bar(6, -1, 128, 0, 255, 3)}};
  f = checkKernel(mixed);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.count");
  // some lanes of a warp: bar.uniform, and no count compared for that id
  KernelEvents lanes{"l", {1, 1}, {bar(3, 1, 256, 0, 15, 1)}};
  f = checkKernel(lanes);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.uniform");
  // half a warpgroup at one use of a barrier the whole warpgroup uses elsewhere: the branch splits the group
  // (bar.uniform at that use; the other use, 128 of 128, is clean)
  KernelEvents split{"s", {1, 1}, {bar(3, 1, 128, 128, 191, 1), bar(4, 1, 128, 128, 255, 1)}};
  f = checkKernel(split);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.uniform");
  EXPECT_EQ(f[0].at.line, 3u);
  // two warpgroups, each whole, on one id of 128 at two places: they mix (bar.count at both)
  KernelEvents shared{"w", {1, 1}, {bar(3, 1, 128, 0, 127, 1), bar(4, 1, 128, 128, 255, 1)}};
  f = checkKernel(shared);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].code, "bar.count");
  EXPECT_EQ(f[1].code, "bar.count");
  // one use not decided: a note, and the wrong count elsewhere is not compared
  Event unknown{EventKind::NamedBarrier, {7, 1}, "bar.sync", ""};
  unknown.n = 5;
  unknown.threads = 128;
  KernelEvents notDecided{"n", {1, 1}, {bar(3, 1, 128, 0, 63, 1), unknown}};
  f = checkKernel(notDecided);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "bar.count");
  EXPECT_FALSE(f[0].decided);
}
