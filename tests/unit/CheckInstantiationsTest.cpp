//===- CheckInstantiationsTest.cpp - checkSource over instantiations ------===//
//
// A file with parameters is checked once per instantiation and the findings
// are merged (driver/Check.cpp): a finding several instantiations share is
// reported once, with a note naming where it was found (one instantiation,
// all of them, those sharing some values, or a list), and a fix that not
// every instantiation keeping the code it edits found is offered, not
// preferred.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Check.h"
#include "compiler/driver/Fixes.h"
#include "tests/unit/TestUtil.h"

#include <gtest/gtest.h>

using namespace cake;

namespace {

// name.unknown (with a "did you mean" fix) inside ifs on the parameters: the
// finding at `no` exists where S > 1, the one at `nn0` everywhere, `nx`
// where S + W == 3, `ny` where S + W != 2, `y` where S == 1 (its field is
// dropped by when(...)), `nz` where S == 2 and W > 1: each in a branch only
// the instantiations that found it keep. `xs` is in code every instantiation
// keeps, and unknown only where W == 1.
const char *kSource = R"(param S: int in 1 .. 3 = 1
param W: int in 1 .. 4 = 1

kernel k(
  x: global fp32[N],
  y: global fp32[N] when(S > 1),
  xs: global fp32[N] when(W > 1),
) target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    let n0 = cta.id(0)
    if S > 1 {
      st.global(1.0, x[no])
    }
    st.global(2.0, x[nn0])
    if S + W == 3 {
      st.global(3.0, x[nx])
    }
    if S + W != 2 {
      st.global(4.0, x[ny])
    }
    if S == 1 {
      st.global(5.0, y[n0])
    }
    if S == 2 && W > 1 {
      st.global(6.0, x[nz])
    }
    st.global(7.0, xs[n0])
  }
}
)";

struct Checked {
  SourceManager sm;
  FileId file;
  CheckResult result;

  /// The diagnostics whose message starts with \p prefix.
  std::vector<const Diagnostic *> find(std::string_view prefix) const {
    std::vector<const Diagnostic *> out;
    for (const Diagnostic &d : result.diagnostics)
      if (d.message.starts_with(prefix))
        out.push_back(&d);
    return out;
  }
  /// The one diagnostic at \p name (the unknown name's text).
  const Diagnostic &at(std::string_view name) const {
    std::vector<const Diagnostic *> found = find("unknown name '" + std::string(name) + "'");
    EXPECT_EQ(found.size(), 1u) << name << "\n" << dump();
    static const Diagnostic none;
    return found.empty() ? none : *found[0];
  }
  std::string dump() const {
    std::string out;
    for (const Diagnostic &d : result.diagnostics) {
      out += d.code + ": " + d.message + "\n";
      for (const Note &n : d.notes)
        out += "  note: " + n.message + "\n";
    }
    return out;
  }
  std::string_view text(SourceRange r) const { return sm.text(file).substr(r.begin, r.size()); }
};

std::unique_ptr<Checked> check(const char *source, std::vector<sema::Instantiation> insts) {
  auto c = std::make_unique<Checked>();
  c->file = c->sm.addBuffer("k.cake", source);
  CheckOptions options;
  options.instantiations = std::move(insts);
  c->result = checkSource(c->sm, c->file, options);
  return c;
}

sema::Instantiation bind(int s, int w, std::string name = "") {
  return {std::move(name), {{"S", std::to_string(s), std::nullopt}, {"W", std::to_string(w), std::nullopt}}, {}};
}

/// The last note: where the finding was found.
std::string where(const Diagnostic &d) { return d.notes.empty() ? "" : d.notes.back().message; }

bool preferred(const Diagnostic &d) {
  EXPECT_FALSE(d.fixes.empty()) << d.message;
  for (const Fix &f : d.fixes)
    if (f.preferred)
      return true;
  return false;
}

TEST(CheckInstantiations, OneInstantiationIsNamedWithItsValues) {
  auto c = check(kSource, {bind(2, 1, "split")});
  ASSERT_TRUE(c->result.instance);
  EXPECT_EQ(where(c->at("no")), "in instantiation split: S = 2, W = 1");
  EXPECT_EQ(c->find("unknown name 'y'").size(), 0u) << "S = 2 keeps y";
  EXPECT_TRUE(preferred(c->at("no"))) << "one instantiation checked: every finding is in all of them";
  // the note is at the first parameter's name
  EXPECT_EQ(c->text(c->at("no").notes.back().range), "S");

  auto unnamed = check(kSource, {bind(2, 1)});
  EXPECT_EQ(where(unnamed->at("no")), "in instantiation S = 2, W = 1");
  // no instantiation given: the defaults
  auto defaults = check(kSource, {});
  EXPECT_EQ(where(defaults->at("nn0")), "in instantiation S = 1, W = 1");
  EXPECT_EQ(defaults->find("unknown name 'no'").size(), 0u);
  EXPECT_EQ(defaults->at("y").code, "name.unknown");
}

std::vector<sema::Instantiation> everyOne() {
  std::vector<sema::Instantiation> out;
  for (int s = 1; s < 3; ++s)
    for (int w = 1; w < 4; ++w)
      out.push_back(bind(s, w));
  return out;
}

TEST(CheckInstantiations, AFindingOfEveryInstantiationAppearsOnce) {
  auto c = check(kSource, everyOne());
  const Diagnostic &d = c->at("nn0"); // exactly one, though all six found it
  EXPECT_EQ(where(d), "in every instantiation checked (6)");
  EXPECT_EQ(c->text(d.range), "nn0");
  EXPECT_TRUE(preferred(d)) << "every instantiation found the same fix";
  // nothing is reported twice
  for (size_t i = 0; i < c->result.diagnostics.size(); ++i)
    for (size_t j = i + 1; j < c->result.diagnostics.size(); ++j)
      EXPECT_FALSE(c->result.diagnostics[i].range == c->result.diagnostics[j].range &&
                   c->result.diagnostics[i].message == c->result.diagnostics[j].message)
          << c->result.diagnostics[i].message;
}

TEST(CheckInstantiations, AFindingOfThoseWithSomeValuesNamesThem) {
  auto c = check(kSource, everyOne());
  EXPECT_EQ(where(c->at("no")), "in every instantiation checked with S = 2 (3 of 6)");
  EXPECT_EQ(where(c->at("y")), "in every instantiation checked with S = 1 (3 of 6)");
  // a fix inside a branch that only the instantiations which found it keep: it changes none of the others
  EXPECT_TRUE(preferred(c->at("no")));
  EXPECT_TRUE(preferred(c->at("y")));
  // a fix found in only some of the instantiations that keep the code: the others (W > 1, where xs is a
  // tensor) would change, so it is offered, not preferred
  EXPECT_EQ(where(c->at("xs")), "in every instantiation checked with W = 1 (2 of 6)");
  EXPECT_FALSE(preferred(c->at("xs")));
}

TEST(CheckInstantiations, OtherwiseTheyAreListed) {
  auto c = check(kSource, everyOne());
  // S + W == 3: (1, 2) and (2, 1), which share no value
  EXPECT_EQ(where(c->at("nx")), "in 2 of 6 instantiations: S = 1, W = 2; S = 2, W = 1");
  EXPECT_TRUE(preferred(c->at("nx"))) << "only those two keep its branch";
  // S + W != 2: five of six, the list cut at four
  EXPECT_EQ(where(c->at("ny")),
            "in 5 of 6 instantiations: S = 1, W = 2; S = 1, W = 3; S = 2, W = 1; S = 2, W = 2; and 1 more");
  // S == 2 && W > 1: they share S = 2, but not every instantiation with S = 2 has it
  EXPECT_EQ(where(c->at("nz")), "in 2 of 6 instantiations: S = 2, W = 2; S = 2, W = 3");
  // named instantiations are listed by name
  auto named = check(kSource, {bind(1, 2, "a"), bind(2, 1, "b"), bind(1, 1, "c")});
  EXPECT_EQ(where(named->at("nx")), "in 2 of 3 instantiations: a; b");
}

TEST(CheckInstantiations, AWrongInstantiationIsNamedByItsBindings) {
  auto c = check(kSource, {bind(1, 1), bind(5, 1)});
  std::vector<const Diagnostic *> bad = c->find("--param S = 5");
  ASSERT_EQ(bad.size(), 1u) << c->dump();
  EXPECT_EQ(bad[0]->code, "param.value");
  EXPECT_EQ(where(*bad[0]), "in instantiation S = 5, W = 1");
  // the valid one is still checked, and it is the one the model describes
  ASSERT_TRUE(c->result.instance);
  EXPECT_EQ(c->result.instance->label(), "S = 1, W = 1");
  EXPECT_TRUE(c->result.model);
  EXPECT_EQ(where(c->at("nn0")), "in instantiation S = 1, W = 1");

  auto alone = check(kSource, {bind(5, 1, "five")});
  ASSERT_EQ(alone->find("--param S = 5").size(), 1u);
  EXPECT_EQ(where(*alone->find("--param S = 5")[0]), "in instantiation five: S = 5, W = 1");
  EXPECT_FALSE(alone->result.instance);
  EXPECT_FALSE(alone->result.model);

  // a default outside its domain, no instantiation given
  auto def = check("param S: int in 1 .. 3 = 7\nkernel k() target(sm_80) grid(1) block(32) {\n}\n", {});
  ASSERT_EQ(def->result.diagnostics.size(), 1u) << def->dump();
  EXPECT_EQ(where(def->result.diagnostics[0]), "in the default instantiation");
}

TEST(CheckInstantiations, AFileWithoutParameters) {
  const char *plain = R"(kernel k(x: global fp32[N]) target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    let n0 = cta.id(0)
    st.global(1.0, x[nn0])
  }
}
)";
  auto c = check(plain, {});
  EXPECT_TRUE(c->at("nn0").notes.empty()) << "nothing to name";
  EXPECT_FALSE(c->result.instance);
  // a manifest's named instantiation that binds nothing checks the file as it is
  auto named = check(plain, {{"plain_k", {}, {}}});
  EXPECT_EQ(where(named->at("nn0")), "in instantiation plain_k");
  auto bound = check(plain, {{"", {{"D", "1", std::nullopt}}, {}}});
  ASSERT_EQ(bound->find("there is no parameter 'D'").size(), 1u) << bound->dump();
}

TEST(CheckInstantiations, TheInstanceKeepsTheFilesRanges) {
  auto c = check(kSource, {bind(2, 2)});
  ASSERT_TRUE(c->result.instance);
  EXPECT_EQ(c->result.analyzed().file, c->file);
  EXPECT_EQ(c->text(c->at("no").range), "no");
  ASSERT_FALSE(c->at("no").fixes.empty());
  ASSERT_FALSE(c->at("no").fixes[0].edits.empty());
  EXPECT_EQ(c->text(c->at("no").fixes[0].edits[0].range), "no");
  EXPECT_EQ(c->at("no").fixes[0].edits[0].newText, "n0");
}

} // namespace

// Regression (the KNN mutation gate, 2026-12-03): a fix every instantiation
// proposes at the same place for the same rule stays preferred even where
// each names its own witness in the message ("when Q = 100, SK = 100" here,
// "SK = 112" there), so `cake check --fix` restores the program; before, the
// differing messages kept the findings apart and the fix was only offered.
TEST(CheckInstantiations, TheSameFixEverywhereStaysPreferredThoughTheWitnessesDiffer) {
  std::string text = cake::test::readRepoFile("kernels/knn/knn_sm90.cake");
  const std::string clipped = "ld.global(qn[t.m * BM + r0], like = acc[0], axis = 0, clip = true)";
  ASSERT_NE(text.find(clipped), std::string::npos);
  text.replace(text.find(clipped), clipped.size(), "ld.global(qn[t.m * BM + r0], like = acc[0], axis = 0)");
  auto inst = [](std::string dp, std::string wg, std::string kp) {
    return sema::Instantiation{"", {{"DP", dp, std::nullopt}, {"WG", wg, std::nullopt}, {"KP", kp, std::nullopt}}, {}};
  };
  auto c = check(text.c_str(), {inst("128", "2", "16"), inst("64", "2", "8"), inst("256", "1", "32")});
  std::vector<const Diagnostic *> found = c->find("'ld.global' of 'qn[t.m * BM + r0]' can run out of bounds");
  ASSERT_GE(found.size(), 2u) << c->dump();
  EXPECT_NE(found[0]->message, found[1]->message) << "the witnesses differ";
  for (const Diagnostic *d : found)
    EXPECT_TRUE(preferred(*d)) << d->message;
}

// Regression (the KNN mutation gate, 2026-12-04): the one-pass and the passes
// instantiations of kernels/knn/knn_sm90.cake fold in different branches of
// `if AFTER`; with a wgmma.wait deleted each branch's fold reads the
// accumulator in flight, two findings at two places, each in the
// instantiations that keep its branch, both proposing the same insertion.
// Before, a fix counted only where one finding was found everywhere, so
// neither was preferred and `cake check --fix` left the error.
TEST(CheckInstantiations, TheSameFixFromEachBranchIsPreferred) {
  std::string text = cake::test::readRepoFile("kernels/knn/knn_sm90.cake");
  const std::string wait = "        wgmma.wait(0)\n        xs.release(s0)\n";
  ASSERT_NE(text.find(wait), std::string::npos);
  std::string mutated = text;
  mutated.replace(mutated.find(wait), wait.size(), "        xs.release(s0)\n");
  auto inst = [](std::string after) {
    return sema::Instantiation{"", {{"DP", "128", std::nullopt}, {"KP", "32", std::nullopt}, {"AFTER", after, std::nullopt}}, {}};
  };
  auto c = check(mutated.c_str(), {inst("false"), inst("true")});
  std::vector<const Diagnostic *> found = c->find("accumulator 'acc' is read while the wgmma.mma");
  ASSERT_EQ(found.size(), 2u) << c->dump();
  EXPECT_NE(found[0]->range.begin, found[1]->range.begin) << "one finding in each branch";
  for (const Diagnostic *d : found)
    EXPECT_TRUE(preferred(*d)) << d->message;
  std::string fixed = mutated;
  applyFixes(fixed, c->file, c->result.diagnostics);
  EXPECT_EQ(fixed, text);
}
