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
                               ev(EventKind::LoopEnd, 4), ev(EventKind::TmaStore, 7), ev(EventKind::BulkWait, 8)}};
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
  auto bar = [](uint32_t line, int64_t id, int64_t threads) {
    Event e{EventKind::NamedBarrier, {line, 1}, "bar.sync %0, %1", ""};
    e.n = id;
    e.threads = threads;
    return e;
  };
  KernelEvents ok{"k", {1, 1}, {bar(3, 1, 256), bar(4, 1, 256), bar(5, 2, 128)}};
  EXPECT_TRUE(checkKernel(ok).empty());
  KernelEvents bad{"k", {1, 1}, {bar(3, 1, 256), bar(4, 1, 128), bar(5, 2, 100), bar(6, 16, 128), bar(7, -1, 128)}};
  std::vector<Finding> f = checkKernel(bad);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].at.line, 4u); // the second count
  EXPECT_EQ(f[0].notes.at(0).at.line, 3u);
  EXPECT_EQ(f[1].at.line, 5u);
  EXPECT_EQ(f[2].at.line, 6u);
  EXPECT_EQ(f[3].at.line, 7u);
  EXPECT_FALSE(f[3].decided);
  for (const Finding &x : f)
    EXPECT_EQ(x.code, "bar.ids");
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
