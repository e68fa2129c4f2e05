//===- TacticsTest.cpp - Named schedule rewrites (issue #21) --------------===//
//
// compiler/driver/Tactics.h: a rewrite changes only what it names (comments
// and layout stay), is checked again, and is refused with the reason when it
// does not apply or leaves errors.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Tactics.h"
#include "tests/unit/TestUtil.h"

#include <gtest/gtest.h>

using namespace cake;

namespace {

const char *kRing = "// a ring of two stages\n"
                    "param W: int in 1 .. 3 = 1\n"
                    "kernel k(\n"
                    "  x: global bf16[N, 64] align(16),\n"
                    ") target(sm_90a) grid(1) block(128 * (W + 1)) {\n"
                    "  ring r stages(2) producer(p) consumer(c) {   // keep this comment\n"
                    "    t: shared bf16[64, 64] swizzle(128B)\n"
                    "  }\n"
                    "  role p warpgroups(0) issue(elect) {\n"
                    "    let s = r.produce()\n"
                    "    tma.load(x[0, 0], s.t)\n"
                    "    r.commit(s)\n"
                    "  }\n"
                    "  role c warpgroups(1 .. W + 1) issue(warpgroup) {\n"
                    "    let s = r.consume()\n"
                    "    r.release(s)\n"
                    "  }\n"
                    "}\n";

TEST(Tactics, StagesChangesOnlyTheNumber) {
  auto r = applyTactic("k.cake", kRing, "stages", {{"ring", "r"}, {"to", "3"}});
  ASSERT_TRUE(r) << r.error().message;
  std::string want = kRing;
  want.replace(want.find("stages(2)"), 9, "stages(3)");
  EXPECT_EQ(r->text, want);
  EXPECT_EQ(r->description, "ring 'r': stages(2) -> stages(3)");
}

TEST(Tactics, ParamChangesTheDefault) {
  auto r = applyTactic("k.cake", kRing, "param", {{"name", "W"}, {"to", "2"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(r->text.find("param W: int in 1 .. 3 = 2\n"), std::string::npos);
  EXPECT_EQ(r->description, "param W: 1 -> 2");
}

TEST(Tactics, RefusedWithTheReason) {
  // outside the parameter's domain: the checker's param.value, located in the rewritten file
  auto domain = applyTactic("k.cake", kRing, "param", {{"name", "W"}, {"to", "7"}});
  ASSERT_FALSE(domain);
  EXPECT_EQ(domain.error().kind, Error::Source);
  EXPECT_NE(domain.error().message.find("[param.value]"), std::string::npos) << domain.error().message;
  ASSERT_FALSE(domain.error().diagnostics.empty());
  // what does not apply
  for (auto [name, args, says] :
       {std::tuple<std::string, std::map<std::string, std::string>, std::string>{
            "stages", {{"ring", "zz"}, {"to", "3"}}, "has no ring 'zz'"},
        {"stages", {{"ring", "r"}}, "to is missing"},
        {"swizzle", {}, "there is no tactic 'swizzle'"},
        {"param", {{"name", "Q"}, {"to", "1"}}, "has no parameter 'Q'"}}) {
    auto r = applyTactic("k.cake", kRing, name, args);
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().kind, Error::InvalidArgument) << name;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
  // a file that does not parse is not rewritten
  auto broken = applyTactic("k.cake", "kernel k( {", "stages", {{"ring", "r"}, {"to", "3"}});
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("does not parse"), std::string::npos);
}

const char *kLoops = "kernel k(x: global fp32[N]) target(sm_80) grid(1) block(32) {\n"
                     "  role r warps(0 .. 1) issue(warp) {\n"
                     "    for i in 0 .. 8 {\n"
                     "      if i < N {\n"
                     "        st.global(1.0, x[i])\n"
                     "      }\n"
                     "    }\n"
                     "    for j in 0 .. 4 unroll(2) {\n"
                     "      if j < N {\n"
                     "        st.global(2.0, x[j])\n"
                     "      }\n"
                     "    }\n"
                     "    for j in 0 .. N {\n"
                     "      st.global(3.0, x[j])\n"
                     "    }\n"
                     "  }\n"
                     "}\n";

TEST(Tactics, UnrollSetsReplacesOrRemovesTheClause) {
  auto full = applyTactic("k.cake", kLoops, "unroll", {{"loop", "i"}, {"to", "full"}});
  ASSERT_TRUE(full) << full.error().message;
  std::string want = kLoops;
  want.replace(want.find("for i in 0 .. 8 {"), 17, "for i in 0 .. 8 unroll {");
  EXPECT_EQ(full->text, want);
  EXPECT_EQ(full->description, "loop 'i' (line 3): none -> unroll");
  auto four = applyTactic("k.cake", kLoops, "unroll", {{"loop", "j"}, {"line", "8"}, {"to", "4"}});
  ASSERT_TRUE(four) << four.error().message;
  EXPECT_NE(four->text.find("for j in 0 .. 4 unroll(4) {\n"), std::string::npos);
  EXPECT_EQ(four->description, "loop 'j' (line 8): unroll(2) -> unroll(4)");
  auto none = applyTactic("k.cake", kLoops, "unroll", {{"loop", "j"}, {"line", "8"}, {"to", "none"}});
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_NE(none->text.find("for j in 0 .. 4 {\n"), std::string::npos);
  // the same text back: unroll(2) again
  auto back = applyTactic("k.cake", none->text, "unroll", {{"loop", "j"}, {"line", "8"}, {"to", "2"}});
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->text, kLoops);
}

TEST(Tactics, UnrollIsRefusedWithTheReason) {
  for (auto [args, says] : {std::pair<std::map<std::string, std::string>, std::string>{
                                {{"loop", "j"}, {"to", "full"}}, "has 2 loops over 'j' (lines 8, 13): say which with line=L"},
                            {{{"loop", "q"}, {"to", "full"}}, "has no loop over 'q'"},
                            {{{"loop", "i"}, {"to", "0"}}, "to=N with N a positive integer, not '0'"},
                            {{{"loop", "i"}, {"to", "none"}}, "loop 'i' (line 3) is not unrolled: nothing to remove"}}) {
    auto r = applyTactic("k.cake", kLoops, "unroll", args);
    ASSERT_FALSE(r) << says;
    EXPECT_EQ(r.error().kind, Error::InvalidArgument);
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
  // more copies than unroll(n) may ask for: the checker's kernel.clause, located in the rewritten file
  auto many = applyTactic("k.cake", kLoops, "unroll", {{"loop", "i"}, {"to", "65"}});
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().kind, Error::Source);
  EXPECT_NE(many.error().message.find("is refused: the result has"), std::string::npos) << many.error().message;
  EXPECT_NE(many.error().message.find("[kernel.clause]"), std::string::npos) << many.error().message;
}

// persistent: an explicit grid becomes grid(persistent) with a sched.tiles of its extents (the outermost
// first), each role's body runs once per tile one level deeper, and the CTA's index reads the tile's.
TEST(Tactics, PersistentLoopsEveryRoleOverTheOldGridsTiles) {
  const char *grid = "kernel k(\n"
                     "  x: global fp32[M, N] align(16),\n"
                     ") target(sm_90a) grid(math.cdiv(N, 32), M) block(32) {\n"
                     "  assume N % 32 == 0\n"
                     "  let row = cta.id(1)\n"
                     "  let col = cta.id(0) * 32 + 0\n"
                     "  role r warps(0 .. 1) issue(warp) {\n"
                     "    // one row of 32 columns\n"
                     "    let v = ld.global(x[row, col:col + 32])\n"
                     "    st.global(v, x[row, col:col + 32])\n"
                     "  }\n"
                     "}\n";
  auto r = applyTactic("k.cake", grid, "persistent", {{"kernel", "k"}, {"to", "8"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->description, "kernel 'k': grid(math.cdiv(N, 32), M) -> grid(persistent), tiles in groups of 8");
  EXPECT_EQ(r->text, "kernel k(\n"
                     "  x: global fp32[M, N] align(16),\n"
                     ") target(sm_90a) grid(persistent) block(32) {\n"
                     "  assume N % 32 == 0\n"
                     "  let tiles = sched.tiles(y = M, x = math.cdiv(N, 32), group = 8)\n"
                     "  role r warps(0 .. 1) issue(warp) {\n"
                     "    for t in tiles {\n"
                     "      let row = t.y\n"
                     "      let col = t.x * 32 + 0\n"
                     "      // one row of 32 columns\n"
                     "      let v = ld.global(x[row, col:col + 32])\n"
                     "      st.global(v, x[row, col:col + 32])\n"
                     "    }\n"
                     "  }\n"
                     "}\n");
  // group 1: tiles row by row, no group written
  auto rows = applyTactic("k.cake", grid, "persistent", {{"kernel", "k"}, {"to", "1"}});
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_NE(rows->text.find("let tiles = sched.tiles(y = M, x = math.cdiv(N, 32))\n"), std::string::npos);
}

// On a persistent kernel the tactic is the raster swizzle alone: its schedule's group, written or added.
TEST(Tactics, PersistentSetsARasterGroup) {
  const std::string gemm = cake::test::readRepoFile("kernels/gemm/gemm_sm90_ws.cake");
  auto r = applyTactic("gemm.cake", gemm, "persistent", {{"kernel", "gemm_sm90_ws"}, {"to", "16"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->description, "kernel 'gemm_sm90_ws': tiles in groups of 16");
  std::string want = gemm;
  want.replace(want.find("group = 8)"), 10, "group = 16)");
  EXPECT_EQ(r->text, want);
  std::string noGroup = gemm;
  noGroup.replace(noGroup.find(", group = 8)"), 12, ")");
  auto added = applyTactic("gemm.cake", noGroup, "persistent", {{"kernel", "gemm_sm90_ws"}, {"to", "4"}});
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_EQ(added->text, want.replace(want.find("group = 16)"), 11, "group = 4)"));
}

TEST(Tactics, PersistentIsRefusedWithTheReason) {
  const std::string base = "kernel k(\n"
                           "  x: global fp32[M, N] align(16),\n"
                           ") target(sm_90a) grid(M) block(32) {\n"
                           "  role r warps(0 .. 1) issue(warp) {\n"
                           "    st.global(1.0, x[BODY, 0])\n"
                           "  }\n"
                           "}\n";
  auto with = [&](const std::string &index) {
    std::string text = base;
    return text.replace(text.find("BODY"), 4, index);
  };
  for (auto [text, args, says] :
       {std::tuple<std::string, std::map<std::string, std::string>, std::string>{
            with("cta.id(0)"), {{"kernel", "q"}, {"to", "8"}}, "has no kernel 'q'"},
        {with("cta.id(0)"), {{"kernel", "k"}, {"to", "0"}}, "to=G with G a positive integer"},
        {with("cta.id(0) % cta.count()"), {{"kernel", "k"}, {"to", "8"}}, "reads cta.count()"},
        {with("cta.id(1)"), {{"kernel", "k"}, {"to", "8"}}, "reads cta.id(d) with d not one of its grid's 1"}}) {
    auto r = applyTactic("k.cake", text, "persistent", args);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

// epilogue: refused with the reason when the pattern is not there or the chunk is not a swizzle's width.
TEST(Tactics, EpilogueIsRefusedWithTheReason) {
  const std::string gemm = cake::test::readRepoFile("tests/lit/cli/Inputs/epilogue/gemm_sm90_stglobal.cake");
  for (auto [args, says] :
       {std::pair<std::map<std::string, std::string>, std::string>{{{"acc", "sum"}, {"to", "64"}},
                                                                   "has no role that declares 'var sum'"},
        {{{"acc", "acc"}, {"to", "0"}}, "to=W with W a positive integer"},
        {{{"acc", "acc"}, {"to", "8"}}, "a chunk of 8 bf16 columns is 16 bytes, not a swizzle's width"}}) {
    auto r = applyTactic("gemm.cake", gemm, "epilogue", args);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
  // the library's GEMM stores through TMA already: no st.global of its accumulator to rewrite
  auto done = applyTactic("gemm.cake", cake::test::readRepoFile("kernels/gemm/gemm_sm90_ws.cake"), "epilogue",
                          {{"acc", "acc"}, {"to", "64"}});
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().message.find("has no st.global(math.cast(acc, T), G[ROW, COL])"), std::string::npos)
      << done.error().message;
}

} // namespace

// tile: the GEMM's 256-wide tile made 128 wide; the one MMA shape whose N was 256 follows, nothing else moves.
TEST(Tactics, TileSetsTheConstAndTheMmaShapes) {
  const std::string gemm = cake::test::readRepoFile("kernels/gemm/gemm_sm90_ws.cake");
  auto r = applyTactic("gemm.cake", gemm, "tile", {{"name", "BN"}, {"to", "128"}});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->description, "const BN: 256 -> 128 (and 1 MMA shape)");
  std::string want = gemm;
  want.replace(want.find("const BN = 256"), 14, "const BN = 128");
  want.replace(want.find("shape = m64n256k16"), 18, "shape = m64n128k16");
  EXPECT_EQ(r->text, want);
}

TEST(Tactics, TileIsRefusedWithTheReason) {
  const std::string gemm = cake::test::readRepoFile("kernels/gemm/gemm_sm90_ws.cake");
  // no wgmma is 512 wide: the checker's finding, located
  auto wide = applyTactic("gemm.cake", gemm, "tile", {{"name", "BN"}, {"to", "512"}});
  ASSERT_FALSE(wide);
  EXPECT_EQ(wide.error().kind, Error::Source);
  EXPECT_NE(wide.error().message.find("is refused"), std::string::npos) << wide.error().message;
  for (auto [args, says] : {std::pair<std::map<std::string, std::string>, std::string>{
                                {{"name", "BX"}, {"to", "64"}}, "has no const 'BX' written as a number"},
                            {{{"name", "BN"}, {"to", "0"}}, "to=N with N a positive integer"}}) {
    auto r = applyTactic("gemm.cake", gemm, "tile", args);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}

// warp-specialize: the produces of a ring a role both produces and consumes move to a new producer warpgroup,
// in the loops around them, and the role keeps the rest; refused with the reason otherwise.
namespace {
const char *kSingle = "kernel k(\n"
                      "  x: global bf16[N, 64] align(16),\n"
                      ") target(sm_90a) grid(1) block(128) {\n"
                      "  ring r stages(2) producer(c) consumer(c) {\n"
                      "    t: shared bf16[64, 64] swizzle(128B)\n"
                      "  }\n"
                      "  role c warpgroups(0) issue(warpgroup) {\n"
                      "    let w = self.warpgroup()\n"
                      "    for i in 0 .. 4 {\n"
                      "      for j in 0 .. 2 {\n"
                      "        let p = r.produce()\n"
                      "        if elect.one() {\n"
                      "          tma.load(x[ROW, 0], p.t)\n"
                      "        }\n"
                      "        r.commit(p)\n"
                      "      }\n"
                      "      for j in 0 .. 2 {\n"
                      "        let s = r.consume()\n"
                      "        r.release(s)\n"
                      "      }\n"
                      "    }\n"
                      "  }\n"
                      "}\n";

std::string single(const std::string &row) {
  std::string text = kSingle;
  return text.replace(text.find("ROW"), 3, row);
}
} // namespace

TEST(Tactics, WarpSpecializeMovesTheProducesToAProducerWarpgroup) {
  auto r = applyTactic("k.cake", single("(i * 2 + j) * 64"), "warp-specialize", {{"ring", "r"}, {"to", "load"}});
  ASSERT_TRUE(r) << r.error().message;
  // the producer: the loops around the produces, the copy unwrapped from its elect; the consumer keeps the
  // rest (a loop left empty goes), one warpgroup up, with the registers the producer leaves
  EXPECT_EQ(r->text, "kernel k(\n"
                     "  x: global bf16[N, 64] align(16),\n"
                     ") target(sm_90a) grid(1) block(256) {\n"
                     "  ring r stages(2) producer(load) consumer(c) {\n"
                     "    t: shared bf16[64, 64] swizzle(128B)\n"
                     "  }\n"
                     "  role load warpgroups(0) regs(40) issue(elect) {\n"
                     "    for i in 0 .. 4 {\n"
                     "      for j in 0 .. 2 {\n"
                     "        let p = r.produce()\n"
                     "        tma.load(x[(i * 2 + j) * 64, 0], p.t)\n"
                     "        r.commit(p)\n"
                     "      }\n"
                     "    }\n"
                     "  }\n"
                     "\n"
                     "  role c warpgroups(1) regs(256) issue(warpgroup) {\n"
                     "    let w = self.warpgroup()\n"
                     "    for i in 0 .. 4 {\n"
                     "      for j in 0 .. 2 {\n"
                     "        let s = r.consume()\n"
                     "        r.release(s)\n"
                     "      }\n"
                     "    }\n"
                     "  }\n"
                     "}\n");
  EXPECT_NE(r->description.find("'c' regs(256)"), std::string::npos) << r->description;
  auto lean = applyTactic("k.cake", single("j * 64"), "warp-specialize", {{"ring", "r"}, {"to", "load"}, {"regs", "24"}});
  ASSERT_TRUE(lean) << lean.error().message;
  EXPECT_NE(lean->text.find("role load warpgroups(0) regs(24) issue(elect)"), std::string::npos) << lean->text;
}

TEST(Tactics, WarpSpecializeIsRefusedWithTheReason) {
  std::string underIf = single("j * 64");
  underIf.replace(underIf.find("        let p"), 0, "        if i > 0 {\n");
  underIf.replace(underIf.find("        r.commit(p)\n") + 20, 0, "        }\n");
  std::string sm80 = single("j * 64");
  sm80.replace(sm80.find("sm_90a"), 6, "sm_80");
  std::string betweenRoles = single("j * 64");
  betweenRoles.replace(betweenRoles.find("let w"), 0, "let q = r.produce()\n    r.commit(q)\n    ");
  for (auto [text, args, says] :
       {std::tuple<std::string, std::map<std::string, std::string>, std::string>{
            single("w * 64"), {{"ring", "r"}, {"to", "load"}}, "reads 'w', a value of role 'c'"},
        {single("j * 64"), {{"ring", "q"}, {"to", "load"}}, "has no ring 'q'"},
        {single("j * 64"), {{"ring", "r"}, {"to", "c"}}, "has a role 'c' already"},
        {single("j * 64"), {{"ring", "r"}, {"to", "w"}}, "already declares the name 'w'"},
        {single("j * 64"), {{"ring", "r"}, {"to", "load"}, {"regs", "x"}}, "regs=P with P a positive integer"},
        {underIf, {{"ring", "r"}, {"to", "load"}}, "only loops may enclose the produces"},
        {sm80, {{"ring", "r"}, {"to", "load"}}, "no GPU with setmaxnreg"},
        {cake::test::readRepoFile("kernels/gemm/gemm_sm90_ws.cake"), {{"ring", "ab"}, {"to", "loader"}},
         "consumed by role 'compute' already: nothing to specialize"}}) {
    auto r = applyTactic("k.cake", text, "warp-specialize", args);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
}
