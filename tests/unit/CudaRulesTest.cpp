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
