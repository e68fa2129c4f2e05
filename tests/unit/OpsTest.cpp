//===- OpsTest.cpp --------------------------------------------------------===//
#include "compiler/sema/Ops.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using namespace cake::sema;

namespace {

const OpInfo &op(std::string_view name) {
  const OpInfo *info = findOp(name);
  EXPECT_NE(info, nullptr) << name;
  static const OpInfo missing{};
  return info ? *info : missing;
}

TEST(Ops, SortedUniqueAndWellFormed) {
  auto ops = allOps();
  ASSERT_GT(ops.size(), 90u);
  for (size_t i = 1; i < ops.size(); ++i)
    EXPECT_LT(ops[i - 1].name, ops[i].name) << "table must be sorted and unique";
  for (const OpInfo &o : ops) {
    EXPECT_NE(o.name.find('.'), std::string_view::npos) << o.name;
    EXPECT_LE(size_t{o.minOperands}, maxOperands(o)) << o.name;
    EXPECT_FALSE(o.summary.empty()) << o.name;
    EXPECT_NE(o.targets, 0) << o.name;
    EXPECT_EQ(o.targets & ~AllTargets, 0) << o.name;
    EXPECT_EQ(findOp(o.name), &o) << o.name;
  }
}

TEST(Ops, FindOp) {
  EXPECT_NE(findOp("tma.load"), nullptr);
  EXPECT_EQ(findOp("tma.load")->name, "tma.load");
  EXPECT_NE(findOp("ring.release"), nullptr);
  EXPECT_NE(findOp("atomic.add"), nullptr);   // first row
  EXPECT_NE(findOp("wgmma.wait"), nullptr);   // last row
  EXPECT_NE(findOp("cp.async_commit"), nullptr);
  EXPECT_EQ(findOp("tma.lod"), nullptr);
  EXPECT_EQ(findOp("tma"), nullptr);
  EXPECT_EQ(findOp("tma."), nullptr);
  EXPECT_EQ(findOp(""), nullptr);
  EXPECT_EQ(findOp("zzz.top"), nullptr);
  EXPECT_EQ(findOp("aaa.bottom"), nullptr);
  EXPECT_EQ(findOp("ab.produce"), nullptr); // rings are looked up as ring.*
  EXPECT_EQ(findOp("TMA.LOAD"), nullptr);
}

// The escape hatches are language.md section 9's: raw mbarriers, barrier ids, cp.async's raw groups and
// tcgen05.commit; what rings and derived barriers lower to is not one.
TEST(Ops, EscapeHatchesAreSectionNine) {
  for (const char *name : {"mbarrier.wait", "mbarrier.arrive", "mbarrier.arrive_expect_tx", "mbarrier.expect_tx",
                           "mbarrier.try_wait", "bar.sync_id", "bar.arrive_id", "cp.async_commit", "cp.async_wait",
                           "cp.async_arrive", "tcgen05.commit"})
    EXPECT_TRUE(isEscapeHatch(findOp(name)->id)) << name;
  for (const char *name : {"bar.sync", "bar.arrive", "cp.async", "tma.load", "ring.produce", "ring.release",
                           "wgmma.wait", "cluster.sync", "tcgen05.mma"})
    EXPECT_FALSE(isEscapeHatch(findOp(name)->id)) << name;
  EXPECT_FALSE(isEscapeHatch(OpId::None));
}

TEST(Ops, OperandCounts) {
  EXPECT_EQ(maxOperands(op("tma.load")), 2u);
  EXPECT_EQ(op("tma.load").minOperands, 2);
  EXPECT_EQ(maxOperands(op("ring.produce")), 0u);
  EXPECT_EQ(maxOperands(op("topk.merge")), 4u);
  EXPECT_EQ(maxOperands(op("atomic.cas")), 3u);
  EXPECT_EQ(maxOperands(op("bar.sync")), SIZE_MAX);
  EXPECT_EQ(op("bar.sync").minOperands, 1);
  EXPECT_EQ(maxOperands(op("bar.arrive")), SIZE_MAX);
  EXPECT_EQ(maxOperands(op("math.cast")), 2u);
  EXPECT_EQ(maxOperands(op("tma.store_wait")), 1u);
}

TEST(Ops, TagOperands) {
  const OpInfo &cast = op("math.cast");
  EXPECT_FALSE(isTagOperand(cast, 0));
  EXPECT_TRUE(isTagOperand(cast, 1));
  EXPECT_FALSE(isTagOperand(cast, 2)); // out of range, not variadic

  const OpInfo &sync = op("bar.sync");
  EXPECT_TRUE(isTagOperand(sync, 0));
  EXPECT_TRUE(isTagOperand(sync, 1)); // clamped to the variadic last operand
  EXPECT_TRUE(isTagOperand(sync, 7));
  EXPECT_TRUE(isTagOperand(op("bar.arrive"), 3));

  EXPECT_FALSE(isTagOperand(op("tma.load"), 0));
  EXPECT_FALSE(isTagOperand(op("tma.load"), 1));
  EXPECT_FALSE(isTagOperand(op("ring.produce"), 0));
  EXPECT_FALSE(isTagOperand(op("wgmma.mma"), 2));
}

TEST(Ops, Options) {
  bool tag = true;
  const OpInfo &wgmma = op("wgmma.mma");
  EXPECT_TRUE(hasOption(wgmma, "shape", &tag));
  EXPECT_TRUE(tag);
  EXPECT_TRUE(hasOption(wgmma, "accumulate", &tag));
  EXPECT_FALSE(tag);
  EXPECT_TRUE(hasOption(wgmma, "scale_b", &tag));
  EXPECT_FALSE(tag);
  EXPECT_FALSE(hasOption(wgmma, "cta_group"));
  EXPECT_FALSE(hasOption(wgmma, "#shape"));
  EXPECT_FALSE(hasOption(wgmma, "shap"));
  EXPECT_FALSE(hasOption(wgmma, ""));

  const OpInfo &tc = op("tcgen05.mma");
  EXPECT_TRUE(hasOption(tc, "cta_group", &tag));
  EXPECT_FALSE(tag);
  EXPECT_TRUE(hasOption(tc, "shape", &tag));
  EXPECT_TRUE(tag);

  EXPECT_TRUE(hasOption(op("atomic.add"), "scope", &tag));
  EXPECT_TRUE(tag);
  EXPECT_TRUE(hasOption(op("atomic.add"), "sem", &tag));
  EXPECT_TRUE(tag);
  EXPECT_TRUE(hasOption(op("cp.async"), "by", &tag));
  EXPECT_TRUE(tag);
  EXPECT_TRUE(hasOption(op("cp.async"), "vec", &tag));
  EXPECT_FALSE(tag);
  EXPECT_TRUE(hasOption(op("ld.matrix"), "operand", &tag));
  EXPECT_TRUE(tag);
  EXPECT_TRUE(hasOption(op("tma.reduce"), "op", &tag));
  EXPECT_TRUE(tag);
  EXPECT_TRUE(hasOption(op("math.exp"), "precise", &tag));
  EXPECT_FALSE(tag);
  EXPECT_TRUE(hasOption(op("topk.merge"), "largest", &tag));
  EXPECT_FALSE(tag);
  EXPECT_TRUE(hasOption(op("ring.release"), "after"));
  EXPECT_FALSE(hasOption(op("ring.commit"), "after"));
  EXPECT_TRUE(hasOption(op("ld.global"), "clip")); // last option of the list
  EXPECT_FALSE(hasOption(op("math.cast"), "type"));  // an operand, not an option

  const OpInfo &tiles = op("sched.tiles");
  tag = true;
  EXPECT_TRUE(hasOption(tiles, "m", &tag));
  EXPECT_FALSE(tag);
  EXPECT_TRUE(hasOption(tiles, "group"));
  EXPECT_TRUE(hasOption(tiles, "heads"));
  EXPECT_FALSE(hasOption(tiles, ""));
}

TEST(Ops, Families) {
  for (std::string_view f : {"tma", "wgmma", "mbarrier", "ring", "cp", "math", "tcgen05", "atomic", "sched", "tile",
                             "topk", "self", "elect", "bar"})
    EXPECT_TRUE(isOpFamily(f)) << f;
  EXPECT_FALSE(isOpFamily("foo"));
  EXPECT_FALSE(isOpFamily(""));
  EXPECT_FALSE(isOpFamily("tm"));
  EXPECT_FALSE(isOpFamily("tma."));
  EXPECT_FALSE(isOpFamily("tma.load"));
  EXPECT_FALSE(isOpFamily("cp.async")); // "cp.async_commit" is in family "cp"
  EXPECT_FALSE(isOpFamily(std::string(200, 'a')));
}

TEST(Ops, Targets) {
  EXPECT_FALSE(op("wgmma.mma").targets & SM80);
  EXPECT_TRUE(op("wgmma.mma").targets & SM90a);
  EXPECT_FALSE(op("wgmma.mma").targets & SM100a);
  EXPECT_EQ(op("tcgen05.mma").targets, SM100a);
  EXPECT_EQ(op("mma.sync").targets, AllTargets);
  EXPECT_EQ(op("tma.load").targets, SM90a | SM100a);
  EXPECT_EQ(op("cp.async").targets, AllTargets);
  EXPECT_EQ(op("st.matrix").targets, SM90a | SM100a);
  EXPECT_EQ(op("ld.matrix").targets, AllTargets);
  EXPECT_EQ(op("tma.store_read").targets, SM90a | SM100a);
  EXPECT_EQ(op("cluster.rank").targets, SM90a | SM100a);
}

TEST(Ops, IssueAndClass) {
  EXPECT_EQ(op("tma.load").issue, Issue::One);
  EXPECT_EQ(op("tma.load").cls, OpClass::TmaLoad);
  EXPECT_EQ(op("tma.reduce").cls, OpClass::TmaStore);
  EXPECT_EQ(op("tma.store_wait").cls, OpClass::TmaWait);
  EXPECT_EQ(op("cp.async").issue, Issue::Coop);
  EXPECT_EQ(op("wgmma.mma").issue, Issue::Warpgroup);
  EXPECT_EQ(op("wgmma.mma").cls, OpClass::Mma);
  EXPECT_EQ(op("wgmma.wait").cls, OpClass::MmaSync);
  EXPECT_EQ(op("tcgen05.ld").cls, OpClass::Tmem);
  EXPECT_EQ(op("tcgen05.commit").cls, OpClass::MmaSync);
  EXPECT_EQ(op("ld.matrix").cls, OpClass::LoadShared);
  EXPECT_EQ(op("st.matrix").cls, OpClass::StoreShared);
  EXPECT_EQ(op("ring.produce").issue, Issue::Unit);
  EXPECT_EQ(op("ring.produce").cls, OpClass::Ring);
  EXPECT_EQ(op("wgmma.retired").issue, Issue::None);
  EXPECT_EQ(op("wgmma.retired").cls, OpClass::Event);
  EXPECT_EQ(op("sched.tiles").cls, OpClass::Schedule);
  EXPECT_EQ(op("tile.t").cls, OpClass::View);
  EXPECT_EQ(op("bar.sync").cls, OpClass::Barrier);
  EXPECT_EQ(op("cluster.sync").cls, OpClass::Barrier);
  EXPECT_EQ(op("mbarrier.wait").cls, OpClass::Mbarrier);
}

} // namespace

TEST(Ops, IdsIndexTheTable) {
  ASSERT_EQ(allOps().size(), kOpCount);
  for (const OpInfo &o : allOps()) {
    EXPECT_EQ(&opInfo(o.id), &o) << o.name;
    EXPECT_EQ(opIdName(o.id), o.name);
  }
  EXPECT_EQ(findOp("tma.load")->id, OpId::TmaLoad);
  EXPECT_EQ(findOp("wgmma.wait")->id, OpId::WgmmaWait);
  EXPECT_EQ(opIdName(OpId::None), "");
  ASSERT_NE(findRingOp("produce"), nullptr);
  EXPECT_EQ(findRingOp("produce")->id, OpId::RingProduce);
  EXPECT_EQ(findRingOp("release")->id, OpId::RingRelease);
  EXPECT_EQ(findRingOp("load"), nullptr);
  EXPECT_EQ(findRingOp(""), nullptr);
}

TEST(Ops, Signatures) {
  EXPECT_EQ(signature(op("tma.load")),
            "tma.load(src: global view, dst: shared view, multicast?: int, barrier?: barrier)");
  EXPECT_EQ(signature(op("bar.sync")), "bar.sync(scope: scope, ...)");
  EXPECT_EQ(signature(op("ring.release"), "ab.release"), "ab.release(token: ring token, after?: event)");
  EXPECT_EQ(signature(op("math.cast")), "math.cast(x: value, type: element type)");
  EXPECT_EQ(signature(op("sched.tiles")), "sched.tiles(name?: int)");
  EXPECT_EQ(operandKind(op("tcgen05.cp"), 0), ArgKind::Shared);
  EXPECT_EQ(operandKind(op("tcgen05.cp"), 1), ArgKind::Tmem);
  EXPECT_EQ(operandKind(op("tcgen05.cp"), 2), ArgKind::Any); // out of range
  EXPECT_EQ(operandKind(op("bar.sync"), 5), ArgKind::Scope); // variadic
  EXPECT_EQ(optionKind(op("tma.load"), "barrier"), ArgKind::Barrier);
  EXPECT_EQ(optionKind(op("wgmma.mma"), "shape"), ArgKind::Shape);
  EXPECT_EQ(optionKind(op("sched.tiles"), "m"), ArgKind::Int);
  EXPECT_EQ(optionKind(op("tma.load"), "nope"), ArgKind::Any);
}
