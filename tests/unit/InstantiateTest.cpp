//===- InstantiateTest.cpp - Compile-time parameters (sema/Instantiate) ---===//
//
// instantiate() binds every parameter (a binding, else the default), checks
// kind and domain (param.value), the requires after every top-level constant
// (param.require) and that what it resolves is a compile-time value
// (param.static); the instance has int/bool parameters as constants, elem,
// swizzle and tag constants replaced at their uses, when(...) fields and
// ifs on parameters resolved, and the ranges of the source. allInstantiations
// enumerates the domains' product less what a require rules out.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "compiler/sema/Instantiate.h"
#include "compiler/syntax/Walk.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace cake;
using namespace cake::syntax;
using cake::test::parseText;
using cake::test::readRepoFile;

namespace {

/// A parsed buffer and the result of instantiating it.
struct Result {
  test::Parsed parsed;
  std::vector<Diagnostic> diags;
  std::optional<sema::Instance> instance;

  std::string_view source() const { return parsed.sm->text(parsed.file); }
  std::string_view text(SourceRange r) const { return source().substr(r.begin, r.size()); }
  /// The range of the \p nth occurrence of \p needle in the source.
  SourceRange find(std::string_view needle, size_t nth = 0) const {
    size_t at = source().find(needle);
    for (; nth > 0 && at != std::string_view::npos; --nth)
      at = source().find(needle, at + 1);
    EXPECT_NE(at, std::string_view::npos) << needle;
    return {parsed.file, uint32_t(at), uint32_t(at + needle.size())};
  }
  const Diagnostic *diag(std::string_view code) const {
    for (const Diagnostic &d : diags)
      if (d.code == code)
        return &d;
    return nullptr;
  }
  std::string codes() const {
    std::string out;
    for (const Diagnostic &d : diags)
      out += d.code + " " + d.message + "\n";
    return out;
  }
};

using Bindings = std::vector<std::pair<std::string, std::string>>;

Result instantiateText(std::string text, const Bindings &bindings = {}, std::string name = "") {
  Result r;
  r.parsed = parseText(std::move(text));
  EXPECT_TRUE(r.parsed.diags.empty()) << "the test's source must parse: " << r.parsed.diags.front().message;
  sema::Instantiation inst;
  inst.name = std::move(name);
  for (const auto &[n, v] : bindings)
    inst.bindings.push_back({n, v, std::nullopt});
  DiagnosticSink sink(r.diags);
  r.instance = sema::instantiate(r.parsed.module, inst, sink);
  return r;
}

const KernelDecl *kernel(const Module &m, std::string_view name = "") {
  for (const StmtPtr &s : m.items.stmts)
    if (auto *k = dyn_cast<KernelDecl>(s.get()); k && (name.empty() || k->name.name == name))
      return k;
  return nullptr;
}

const ConstDecl *constant(const Module &m, std::string_view name) {
  for (const StmtPtr &s : m.items.stmts)
    if (auto *c = dyn_cast<ConstDecl>(s.get()); c && c->name.name == name)
      return c;
  return nullptr;
}

const RoleStmt *role(const KernelDecl &k, std::string_view name) {
  const RoleStmt *out = nullptr;
  forEachStmt(k.body, [&](const Stmt &s) {
    if (auto *r = dyn_cast<RoleStmt>(&s); r && r->name.name == name)
      out = r;
  });
  return out;
}

std::vector<std::string> fieldNames(const std::vector<Field> &fs) {
  std::vector<std::string> out;
  for (const Field &f : fs)
    out.push_back(f.name.name);
  return out;
}

/// The names the `let`s of \p b bind, in order, one level deep.
std::vector<std::string> lets(const Block &b) {
  std::vector<std::string> out;
  for (const StmtPtr &s : b.stmts)
    if (auto *l = dyn_cast<LetStmt>(s.get()))
      out.push_back(l->names.at(0).name);
  return out;
}

std::string values(const sema::Instance &i) {
  std::string out;
  for (const auto &[n, v] : i.values)
    out += (out.empty() ? "" : " ") + n + "=" + v;
  return out;
}

const char *kParams = R"(param D: int in {32, 64, 128} = 64
param S: int in 1 .. 4 = 1
param E: elem in {bf16, fp16} = bf16
param F: bool = false
param W: swizzle in {64B, 128B} = 128B

kernel k(x: global E[N, D] align(16)) target(sm_90a) grid(1) block(128) {
}
)";

//===-- Defaults and bindings ---------------------------------------------===//

TEST(Instantiate, DefaultsBindEveryParameter) {
  Result r = instantiateText(kParams);
  ASSERT_TRUE(r.instance) << r.codes();
  EXPECT_TRUE(r.diags.empty()) << r.codes();
  EXPECT_EQ(values(*r.instance), "D=64 S=1 E=bf16 F=false W=128B");
  EXPECT_EQ(r.instance->label(), "D = 64, S = 1, E = bf16, F = false, W = 128B");
  // int and bool parameters become constants whose value is the default's text
  const ConstDecl *d = constant(r.instance->module, "D"), *f = constant(r.instance->module, "F");
  ASSERT_TRUE(d && f);
  EXPECT_EQ(d->value->kind, ExprKind::Number);
  EXPECT_EQ(d->value->text, "64");
  EXPECT_EQ(r.text(d->value->range), "64");
  EXPECT_EQ(f->value->kind, ExprKind::Bool);
  EXPECT_EQ(f->value->text, "false");
  // elem and swizzle parameters leave no declaration behind
  EXPECT_FALSE(constant(r.instance->module, "E"));
  EXPECT_FALSE(constant(r.instance->module, "W"));
  EXPECT_EQ(kernel(r.instance->module)->params.at(0).type.elem.name, "bf16");
}

TEST(Instantiate, ExplicitBindingsOverrideDefaults) {
  Result r = instantiateText(kParams, {{"D", "128"}, {"S", "3"}, {"E", "fp16"}, {"F", "true"}, {"W", "64"}}, "wide");
  ASSERT_TRUE(r.instance) << r.codes();
  EXPECT_TRUE(r.diags.empty()) << r.codes();
  EXPECT_EQ(r.instance->name, "wide");
  EXPECT_EQ(values(*r.instance), "D=128 S=3 E=fp16 F=true W=64B"); // a swizzle is spelled with its B
  EXPECT_EQ(constant(r.instance->module, "D")->value->text, "128");
  EXPECT_EQ(constant(r.instance->module, "S")->value->text, "3");
  EXPECT_EQ(constant(r.instance->module, "F")->value->text, "true");
  EXPECT_EQ(kernel(r.instance->module)->params.at(0).type.elem.name, "fp16");
  // a parameter bound on the command line takes its value, the range stays the declaration's
  const ConstDecl *d = constant(r.instance->module, "D");
  EXPECT_EQ(r.text(d->range), "param D: int in {32, 64, 128} = 64");
}

TEST(Instantiate, WrongKindIsReportedAtTheParameterForTheCommandLine) {
  struct Case {
    std::string name, value, message;
  };
  for (const Case &c : std::vector<Case>{
           {"D", "abc", "--param D = abc: parameter 'D' takes an integer"},
           {"D", "64.0", "--param D = 64.0: parameter 'D' takes an integer"},
           {"F", "1", "--param F = 1: parameter 'F' takes true or false"},
           {"E", "i33", "--param E = i33: parameter 'E' takes an element type (bf16, fp16, fp32, ...)"},
           {"E", "mbarrier", "--param E = mbarrier: parameter 'E' takes an element type (bf16, fp16, fp32, ...)"},
           {"W", "96B", "--param W = 96B: parameter 'W' takes none, 32B, 64B or 128B"},
       }) {
    Result r = instantiateText(kParams, {{c.name, c.value}});
    EXPECT_FALSE(r.instance) << c.name << "=" << c.value;
    ASSERT_EQ(r.diags.size(), 1u) << r.codes();
    const Diagnostic &d = r.diags[0];
    EXPECT_EQ(d.code, "param.value");
    EXPECT_EQ(d.message, c.message);
    EXPECT_EQ(d.range.begin, r.find("param " + c.name + ":").begin + 6) << "at the parameter's name";
    EXPECT_EQ(r.text(d.range), c.name);
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].message, "'" + c.name + "' is declared here");
    EXPECT_EQ(r.text(d.notes[0].range).substr(0, 8), "param " + c.name + ":");
  }
}

TEST(Instantiate, OutsideASetIsReported) {
  Result r = instantiateText(kParams, {{"D", "48"}});
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.value");
  EXPECT_EQ(r.diags[0].message, "--param D = 48 is outside the domain of parameter 'D': {32, 64, 128}");
  EXPECT_EQ(r.diags[0].range.begin, r.find("param D:").begin + 6);
  EXPECT_EQ(r.text(r.diags[0].range), "D");

  // an element type outside its set (a valid element type, not one of the set's)
  Result e = instantiateText(kParams, {{"E", "fp32"}});
  EXPECT_FALSE(e.instance);
  ASSERT_EQ(e.diags.size(), 1u) << e.codes();
  EXPECT_EQ(e.diags[0].message, "--param E = fp32 is outside the domain of parameter 'E': {bf16, fp16}");
  Result w = instantiateText(kParams, {{"W", "32B"}});
  ASSERT_EQ(w.diags.size(), 1u) << w.codes();
  EXPECT_EQ(w.diags[0].message, "--param W = 32B is outside the domain of parameter 'W': {64B, 128B}");
}

TEST(Instantiate, ARangeExcludesItsUpperBound) {
  for (const char *ok : {"1", "2", "3"}) {
    Result r = instantiateText(kParams, {{"S", ok}});
    EXPECT_TRUE(r.instance) << "S = " << ok << ": " << r.codes();
  }
  for (const char *bad : {"0", "4", "-1", "100"}) {
    Result r = instantiateText(kParams, {{"S", bad}});
    EXPECT_FALSE(r.instance) << "S = " << bad;
    ASSERT_EQ(r.diags.size(), 1u) << r.codes();
    EXPECT_EQ(r.diags[0].code, "param.value");
    EXPECT_EQ(r.diags[0].message, std::string("--param S = ") + bad +
                                      " is outside the domain of parameter 'S': 1 .. 4 (the upper bound excluded)");
    EXPECT_EQ(r.text(r.diags[0].range), "S");
  }
}

TEST(Instantiate, AManifestBindingIsReportedWhereTheManifestWroteIt) {
  // the binding's range is in another buffer (the manifest's)
  test::Parsed p = parseText(kParams);
  FileId manifest = p.sm->addBuffer("lib.manifest.json", R"({"params": {"D": 48, "S": "x"}})");
  std::string_view mtext = p.sm->text(manifest);
  auto at = [&](std::string_view s) {
    uint32_t b = uint32_t(mtext.find(s));
    return SourceRange{manifest, b, uint32_t(b + s.size())};
  };
  sema::Instantiation inst{"lib_d48", {{"D", "48", at("48")}, {"S", "x", at("\"x\"")}}, at("{\"params\"")};
  std::vector<Diagnostic> diags;
  DiagnosticSink sink(diags);
  EXPECT_FALSE(sema::instantiate(p.module, inst, sink));
  ASSERT_EQ(diags.size(), 2u);
  sortDiagnostics(diags);
  EXPECT_EQ(diags[0].code, "param.value");
  EXPECT_EQ(diags[0].range, at("48"));
  // no "--param": the manifest wrote it
  EXPECT_EQ(diags[0].message, "D = 48 is outside the domain of parameter 'D': {32, 64, 128}");
  EXPECT_EQ(diags[0].notes.at(0).range.file, p.file) << "the note is at the declaration";
  EXPECT_EQ(diags[1].range, at("\"x\""));
  EXPECT_EQ(diags[1].message, "S = x: parameter 'S' takes an integer");
}

TEST(Instantiate, UnknownParameterNamesTheDeclaredOnes) {
  Result r = instantiateText(kParams, {{"X", "1"}});
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.value");
  EXPECT_EQ(r.diags[0].message, "there is no parameter 'X' in this file (its parameters: D, E, F, S, W)");
  EXPECT_EQ(r.diags[0].range.file, r.parsed.file);

  Result none = instantiateText("kernel k() target(sm_80) grid(1) block(32) {\n}\n", {{"D", "64"}});
  EXPECT_FALSE(none.instance);
  ASSERT_EQ(none.diags.size(), 1u);
  EXPECT_EQ(none.diags[0].message, "there is no parameter 'D' in this file (it declares none)");

  // located: the binding's own range, else the instantiation's
  test::Parsed p = parseText(kParams);
  FileId m = p.sm->addBuffer("m.json", "{\"name\": \"x\", \"params\": {\"Q\": 1}}");
  uint32_t qAt = uint32_t(p.sm->text(m).find("\"Q\""));
  SourceRange entry{m, 0, uint32_t(p.sm->text(m).size())}, q{m, qAt, qAt + 3};
  for (auto [binding, want] : {std::pair{std::optional<SourceRange>(q), q}, {std::nullopt, entry}}) {
    std::vector<Diagnostic> diags;
    DiagnosticSink sink(diags);
    EXPECT_FALSE(sema::instantiate(p.module, {"x", {{"Q", "1", binding}}, entry}, sink));
    ASSERT_EQ(diags.size(), 1u);
    EXPECT_EQ(diags[0].range, want);
  }
}

TEST(Instantiate, MissingValue) {
  const char *src = "param D: int in {32, 64}\nparam E: elem = bf16\n"
                    "kernel k(x: global E[D]) target(sm_80) grid(1) block(32) {\n}\n";
  Result r = instantiateText(src);
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.value");
  EXPECT_EQ(r.diags[0].message, "parameter 'D' has no value: give it a default (= value) or bind it (a manifest's "
                                "params, or --param D=VALUE)");
  EXPECT_EQ(r.text(r.diags[0].range), "D");
  EXPECT_TRUE(r.diags[0].notes.empty());
  EXPECT_TRUE(instantiateText(src, {{"D", "32"}}).instance) << "bound, it has one";

  // a manifest's instantiation that lacks it: reported at the entry, noted at the declaration
  test::Parsed p = parseText(src);
  FileId m = p.sm->addBuffer("m.json", "{\"name\": \"x\"}");
  SourceRange entry{m, 0, 13};
  std::vector<Diagnostic> diags;
  DiagnosticSink sink(diags);
  EXPECT_FALSE(sema::instantiate(p.module, {"x", {}, entry}, sink));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].range, entry);
  ASSERT_EQ(diags[0].notes.size(), 1u);
  EXPECT_EQ(diags[0].notes[0].message, "'D' is declared here");
  EXPECT_EQ(diags[0].notes[0].range.file, p.file);
}

TEST(Instantiate, BadDefaultsAndDomains) {
  Result r = instantiateText("param D: int in {32, 64} = 96\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].message, "D = 96 is outside the domain of parameter 'D': {32, 64}");
  EXPECT_EQ(r.text(r.diags[0].range), "96") << "at the default";

  Result kind = instantiateText("param D: float = 1\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  ASSERT_EQ(kind.diags.size(), 1u) << kind.codes();
  EXPECT_EQ(kind.diags[0].message, "unknown parameter kind 'float' (expected int, bool, elem or swizzle)");
  EXPECT_EQ(kind.text(kind.diags[0].range), "float");

  Result def = instantiateText("param D: int = K\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  ASSERT_EQ(def.diags.size(), 1u) << def.codes();
  EXPECT_EQ(def.diags[0].message, "the default of parameter 'D' must be an integer known at compile time");
  EXPECT_EQ(def.text(def.diags[0].range), "K");

  Result dom = instantiateText("param D: elem in bf16 .. fp16 = bf16\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  ASSERT_EQ(dom.diags.size(), 1u) << dom.codes();
  EXPECT_EQ(dom.diags[0].code, "param.value");
  EXPECT_EQ(dom.text(dom.diags[0].range), "bf16 .. fp16");

  Result choice = instantiateText("param D: int in {32, N} = 32\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  ASSERT_EQ(choice.diags.size(), 1u) << choice.codes();
  EXPECT_EQ(choice.text(choice.diags[0].range), "N");

  // every problem of the bindings is reported, not just the first
  Result many = instantiateText(kParams, {{"D", "1"}, {"S", "9"}, {"Q", "1"}});
  EXPECT_EQ(many.diags.size(), 3u) << many.codes();
}

//===-- Requires ----------------------------------------------------------===//

const char *kRequires = R"(param D: int in {32, 64, 128} = 64
param S: int in 1 .. 4 = 1
require S == 1 || D <= 64, BM * D <= 4096
const BM = 4096 / 64

kernel k() target(sm_80) grid(1) block(32) {
}
)";

TEST(Instantiate, RequiresAreCheckedAfterLaterConstants) {
  Result ok = instantiateText(kRequires);
  EXPECT_TRUE(ok.instance) << ok.codes(); // BM is declared after the require
  Result r = instantiateText(kRequires, {{"D", "128"}});
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.require");
  EXPECT_EQ(r.diags[0].message, "this instantiation violates 'require BM * D <= 4096' (D = 128)");
  EXPECT_EQ(r.text(r.diags[0].range), "BM * D <= 4096");

  Result both = instantiateText(kRequires, {{"D", "128"}, {"S", "2"}});
  ASSERT_EQ(both.diags.size(), 2u) << both.codes();
  sortDiagnostics(both.diags);
  EXPECT_EQ(both.diags[0].message, "this instantiation violates 'require S == 1 || D <= 64' (D = 128, S = 2)");
  EXPECT_EQ(both.text(both.diags[0].range), "S == 1 || D <= 64");
  EXPECT_EQ(both.text(both.diags[1].range), "BM * D <= 4096");
}

TEST(Instantiate, ARequireThatIsNotCompileTimeIsStatic) {
  Result r = instantiateText("param D: int in {32, 64} = 64\nrequire D <= K\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.static");
  EXPECT_EQ(r.text(r.diags[0].range), "D <= K");
}

TEST(Instantiate, ARequireUnderAnIfAppliesWhenItsBranchDoes) {
  const char *src = "param D: int in {32, 64, 128} = 64\nparam S: int in 1 .. 3 = 1\n"
                    "if S > 1 {\n  require D <= 64\n}\nkernel k() target(sm_80) grid(1) block(32) {\n}\n";
  EXPECT_TRUE(instantiateText(src, {{"D", "128"}}).instance);
  Result r = instantiateText(src, {{"D", "128"}, {"S", "2"}});
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.require");
}

//===-- when(...) ---------------------------------------------------------===//

const char *kWhen = R"(param S: int in 1 .. 3 = 1
const SPLIT = S > 1

kernel k(
  x: global fp32[N],
  ids: global i32[N] when(S == 1),
  pv: global fp32[S, N] when(SPLIT),
) target(sm_90a) grid(1) block(128) {
  ring r stages(2) producer(p) consumer(p) {
    a: shared fp32[64]
    b: shared fp32[64, S] when(S > 1) align(16)
  }
}
)";

TEST(Instantiate, WhenKeepsOrDropsKernelParametersAndRingSlots) {
  Result one = instantiateText(kWhen);
  ASSERT_TRUE(one.instance) << one.codes();
  const KernelDecl *k = kernel(one.instance->module);
  EXPECT_EQ(fieldNames(k->params), (std::vector<std::string>{"x", "ids"}));
  const auto *ring = dyn_cast<RingStmt>(k->body.stmts.at(0).get());
  ASSERT_TRUE(ring);
  EXPECT_EQ(fieldNames(ring->slots), (std::vector<std::string>{"a"}));
  // the kept field has no when(...) left, and its range is the source's
  EXPECT_TRUE(k->params[1].type.clauses.empty());
  EXPECT_EQ(one.text(k->params[1].range), "ids: global i32[N] when(S == 1)");

  Result two = instantiateText(kWhen, {{"S", "2"}});
  ASSERT_TRUE(two.instance) << two.codes();
  k = kernel(two.instance->module);
  EXPECT_EQ(fieldNames(k->params), (std::vector<std::string>{"x", "pv"}));
  ring = dyn_cast<RingStmt>(k->body.stmts.at(0).get());
  EXPECT_EQ(fieldNames(ring->slots), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(ring->slots[1].type.clauses.size(), 1u) << "the other clauses stay";
  EXPECT_EQ(ring->slots[1].type.clauses[0].name.name, "align");
}

TEST(Instantiate, WhenNeedsACompileTimeCondition) {
  Result r = instantiateText("param S: int in 1 .. 3 = 1\n"
              "kernel k(x: global fp32[N], y: global fp32[N] when(N > 1)) target(sm_80) grid(1) block(32) {\n}\n");
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.static");
  EXPECT_EQ(r.text(r.diags[0].range), "N > 1");

  Result two = instantiateText("param S: int in 1 .. 3 = 1\n"
                "kernel k(y: global fp32[N] when(S > 1, S < 3)) target(sm_80) grid(1) block(32) {\n}\n");
  ASSERT_EQ(two.diags.size(), 1u) << two.codes();
  EXPECT_EQ(two.diags[0].message, "when(...) takes one compile-time condition");
  EXPECT_EQ(two.text(two.diags[0].range), "when(S > 1, S < 3)");
}

//===-- if on a parameter in a kernel body --------------------------------===//

const char *kBodyIf = R"(param V: int in 0 .. 4 = 0
param S: int in 1 .. 3 = 1
const C = 1

kernel k(x: global fp32[N]) target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    let n = cta.id(0)
    // which variant
    if V == 0 {
      let a = 1
    } else if V == 1 {
      let b = 1
    } else if V == 2 {
      let c = 1
    } else {
      let d = 1
    }
    if V == 3 {
      let only3 = 1
    }
    if n < N {
      let e = 1
    } else if S > 1 {
      let f = 1
    } else {
      let g = 1
    }
    if n < N {
      let h = 1
    } else if S > 1 {
      let i = 1
    }
    if S == 1 {
      let j = 1
    } else if n < N {
      let l = 1
    } else {
      let m = 1
    }
    if C > 0 {
      let o = 1
    }
  }
}
)";

/// The role body's statements: let names, and "if" for a runtime if.
std::vector<std::string> shape(const Result &r) {
  std::vector<std::string> out;
  const RoleStmt *body = role(*kernel(r.instance->module), "r");
  for (const StmtPtr &s : body->body.stmts)
    if (auto *l = dyn_cast<LetStmt>(s.get()))
      out.push_back(l->names.at(0).name);
    else if (s->kind == StmtKind::If)
      out.push_back("if");
  return out;
}

const IfStmt &nthIf(const Result &r, size_t n) {
  const RoleStmt *body = role(*kernel(r.instance->module), "r");
  for (const StmtPtr &s : body->body.stmts)
    if (auto *i = dyn_cast<IfStmt>(s.get()); i && n-- == 0)
      return *i;
  throw std::out_of_range("no such if");
}

TEST(Instantiate, BodyIfOnAParameterTakesItsBranch) {
  std::vector<std::string> taken = {"a", "b", "c", "d"};
  for (int v = 0; v < 4; ++v) {
    Result r = instantiateText(kBodyIf, {{"V", std::to_string(v)}});
    ASSERT_TRUE(r.instance) << r.codes();
    std::vector<std::string> s = shape(r);
    ASSERT_GE(s.size(), 2u);
    EXPECT_EQ(s[0], "n");
    EXPECT_EQ(s[1], taken[v]) << "V = " << v;
    EXPECT_EQ(std::count(s.begin(), s.end(), "only3"), v == 3) << "an if without else, V = " << v;
    // the branch's statements keep their ranges; the comment above the if moves to them
    const RoleStmt *body = role(*kernel(r.instance->module), "r");
    const Stmt &first = *body->body.stmts.at(1);
    EXPECT_EQ(r.text(first.range), "let " + taken[v] + " = 1");
    EXPECT_EQ(first.trivia.leading, std::vector<std::string>{"// which variant"});
  }
}

TEST(Instantiate, AnElseIfOnAParameterAfterARuntimeIfBecomesItsElse) {
  for (const char *s : {"1", "2"}) {
    Result r = instantiateText(kBodyIf, {{"S", s}});
    ASSERT_TRUE(r.instance) << r.codes();
    const IfStmt &mixed = nthIf(r, 0);
    EXPECT_EQ(r.text(mixed.cond->range), "n < N");
    EXPECT_EQ(lets(mixed.thenBody), std::vector<std::string>{"e"});
    EXPECT_FALSE(mixed.elseIf);
    ASSERT_TRUE(mixed.elseBody);
    EXPECT_EQ(lets(*mixed.elseBody), std::vector<std::string>{std::string(s) == "1" ? "g" : "f"});

    // without a final else: S = 1 leaves the runtime if alone
    const IfStmt &noElse = nthIf(r, 1);
    EXPECT_EQ(lets(noElse.thenBody), std::vector<std::string>{"h"});
    EXPECT_FALSE(noElse.elseIf);
    if (std::string(s) == "1")
      EXPECT_FALSE(noElse.elseBody);
    else
      EXPECT_EQ(lets(*noElse.elseBody), std::vector<std::string>{"i"});
  }
}

TEST(Instantiate, AResolvedIfWhoseElseIfIsRuntimeKeepsIt) {
  Result one = instantiateText(kBodyIf, {{"S", "1"}});
  ASSERT_TRUE(one.instance);
  std::vector<std::string> s = shape(one);
  EXPECT_NE(std::find(s.begin(), s.end(), "j"), s.end());
  Result two = instantiateText(kBodyIf, {{"S", "2"}});
  ASSERT_TRUE(two.instance);
  s = shape(two);
  EXPECT_EQ(std::find(s.begin(), s.end(), "j"), s.end());
  // if S == 1 {j} else if n < N {l} else {m}: S = 2 leaves `if n < N {l} else {m}`
  const IfStmt &rest = nthIf(two, 2);
  EXPECT_EQ(two.text(rest.cond->range), "n < N");
  EXPECT_EQ(lets(rest.thenBody), std::vector<std::string>{"l"});
  ASSERT_TRUE(rest.elseBody);
  EXPECT_EQ(lets(*rest.elseBody), std::vector<std::string>{"m"});
}

TEST(Instantiate, AnIfOnPlainConstantsStaysARuntimeIf) {
  Result r = instantiateText(kBodyIf);
  ASSERT_TRUE(r.instance);
  std::vector<std::string> s = shape(r);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s.back(), "if") << "if C > 0 names no parameter";
}

TEST(Instantiate, AnIfMixingAParameterAndARuntimeValueIsStatic) {
  Result r = instantiateText(R"(param S: int in 1 .. 3 = 1
kernel k(x: global fp32[N]) target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    let n = cta.id(0)
    if S > 1 && n < N {
      let a = 1
    }
  }
}
)");
  EXPECT_FALSE(r.instance);
  ASSERT_EQ(r.diags.size(), 1u) << r.codes();
  EXPECT_EQ(r.diags[0].code, "param.static");
  EXPECT_EQ(r.diags[0].message, "an 'if' on a parameter must be known at compile time: it may use parameters, "
                                "constants and element types, not sizes, lets or runtime values");
  EXPECT_EQ(r.text(r.diags[0].range), "S > 1 && n < N");
}

TEST(Instantiate, TopLevelIfTakesItsBranch) {
  const char *src = R"(param BN: int in {64, 128, 256} = 128
if BN == 64 {
  const MMA = m64n64k16
} else if BN == 128 {
  const MMA = m64n128k16
} else {
  const MMA = m64n256k16
}

kernel k() target(sm_90a) grid(1) block(128) {
  role r warpgroups(0) issue(warpgroup) {
    wgmma.mma(a, b, acc, shape = MMA)
  }
}
)";
  for (auto [bn, tag] : {std::pair{"64", "m64n64k16"}, {"128", "m64n128k16"}, {"256", "m64n256k16"}}) {
    Result r = instantiateText(src, {{"BN", bn}});
    ASSERT_TRUE(r.instance) << r.codes();
    for (const StmtPtr &s : r.instance->module.items.stmts)
      EXPECT_NE(s->kind, StmtKind::If) << "resolved";
    const Expr *shapeArg = nullptr;
    forEachCall(*kernel(r.instance->module), [&](const Expr &call) {
      for (const ExprPtr &a : call.operands)
        if (a->kind == ExprKind::Keyword && a->text == "shape")
          shapeArg = a->operands.at(0).get();
    });
    ASSERT_TRUE(shapeArg);
    EXPECT_EQ(shapeArg->text, tag) << "BN = " << bn;
    EXPECT_EQ(r.text(shapeArg->range), "MMA") << "the use's range";
  }
  Result bad = instantiateText("param S: int in 1 .. 3 = 1\nif S > N {\n  const A = 1\n}\n");
  ASSERT_EQ(bad.diags.size(), 1u) << bad.codes();
  EXPECT_EQ(bad.diags[0].code, "param.static");
  EXPECT_EQ(bad.text(bad.diags[0].range), "S > N");
  Result nested = instantiateText("param S: int in 1 .. 3 = 1\nif S > 1 {\n  param T: int = 1\n}\n", {{"S", "2"}});
  ASSERT_EQ(nested.diags.size(), 1u) << nested.codes();
  EXPECT_EQ(nested.diags[0].message, "declare parameters at the top level, not under an 'if'");
}

//===-- Substitution ------------------------------------------------------===//

const char *kSubst = R"(param E: elem in {bf16, fp16} = bf16
param SW: swizzle in {none, 64B, 128B} = 128B
const MMA = m64n128k16
const ACC = fp32

kernel k(
  A: global E[M, 64] align(16),
  C: global E[M, 128] align(16),
) target(sm_90a) grid(1) block(128) {
  ring ab stages(2) producer(r) consumer(r) {
    a: shared E[64, 64] swizzle(SW)
  }
  role r warpgroups(0) issue(warpgroup) {
    var acc: reg ACC[64, 128]
    let s = ab.consume()
    wgmma.mma(s.a, s.a, acc, shape = MMA)
    st.global(math.cast(acc, E), C[0, 0])
  }
}
)";

TEST(Instantiate, ElemParametersAndTagConstantsAreReplacedAtTheirUses) {
  for (auto [e, sw] : {std::pair{"bf16", "128B"}, {"fp16", "64B"}, {"fp16", "none"}}) {
    Result r = instantiateText(kSubst, {{"E", e}, {"SW", sw}});
    ASSERT_TRUE(r.instance) << r.codes();
    const KernelDecl *k = kernel(r.instance->module);
    // types: the kernel's parameters, a ring slot, a var
    EXPECT_EQ(k->params.at(0).type.elem.name, e);
    EXPECT_EQ(k->params.at(1).type.elem.name, e);
    EXPECT_EQ(r.text(k->params.at(0).type.elem.range), "E") << "the use's range";
    const auto *ring = dyn_cast<RingStmt>(k->body.stmts.at(0).get());
    EXPECT_EQ(ring->slots.at(0).type.elem.name, e);
    const Clause &swizzle = ring->slots.at(0).type.clauses.at(0);
    EXPECT_EQ(print(swizzle), std::string("swizzle(") + sw + ")");
    EXPECT_EQ(swizzle.args.at(0)->kind, std::string(sw) == "none" ? ExprKind::Name : ExprKind::Number);
    EXPECT_EQ(r.text(swizzle.args.at(0)->range), "SW");
    std::string body = print(r.instance->module);
    EXPECT_NE(body.find("var acc: reg fp32[64, 128]"), std::string::npos) << body;
    EXPECT_NE(body.find("shape = m64n128k16"), std::string::npos) << body;
    EXPECT_NE(body.find(std::string("math.cast(acc, ") + e + ")"), std::string::npos) << body;
    // the tag constants are gone (their uses hold the tag); nothing names E, SW, MMA or ACC
    EXPECT_FALSE(constant(r.instance->module, "MMA"));
    EXPECT_FALSE(constant(r.instance->module, "ACC"));
    for (const char *name : {"E", "SW", "MMA", "ACC"})
      EXPECT_EQ(body.find(std::string(name) + ")"), std::string::npos) << name << " in " << body;
    EXPECT_EQ(body.find("shape = MMA"), std::string::npos);
  }
}

TEST(Instantiate, ConditionsCompareElementTypes) {
  const char *src = R"(param E: elem in {bf16, fp16} = bf16
require E != fp32
const W = 64
if E == fp16 {
  const TAG = 1
} else {
  const TAG = 2
}
kernel k() target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    if E == bf16 {
      let isBf16 = TAG
    }
  }
}
)";
  Result b = instantiateText(src);
  ASSERT_TRUE(b.instance) << b.codes();
  EXPECT_EQ(print(*constant(b.instance->module, "TAG")->value), "2");
  EXPECT_EQ(lets(role(*kernel(b.instance->module), "r")->body), std::vector<std::string>{"isBf16"});
  Result f = instantiateText(src, {{"E", "fp16"}});
  ASSERT_TRUE(f.instance) << f.codes();
  EXPECT_EQ(print(*constant(f.instance->module, "TAG")->value), "1");
  EXPECT_TRUE(lets(role(*kernel(f.instance->module), "r")->body).empty());
}

//===-- Ranges and modules without parameters -----------------------------===//

TEST(Instantiate, TheInstanceKeepsTheSourcesRanges) {
  Result r = instantiateText(kSubst, {{"E", "fp16"}});
  ASSERT_TRUE(r.instance);
  const Module &m = r.instance->module;
  EXPECT_EQ(m.file, r.parsed.file);
  const KernelDecl *k = kernel(m);
  EXPECT_EQ(r.text(k->name.range), "k");
  EXPECT_EQ(r.text(k->range).substr(0, 9), "kernel k(");
  EXPECT_EQ(k->range, kernel(r.parsed.module)->range);
  // every statement and every call of the kernel sits where the source has it
  std::vector<SourceRange> before, after;
  forEachStmt(kernel(r.parsed.module)->body, [&](const Stmt &s) { before.push_back(s.range); });
  forEachStmt(k->body, [&](const Stmt &s) { after.push_back(s.range); });
  EXPECT_EQ(before, after);
  std::vector<std::string> calls;
  forEachCall(k->body, [&](const Expr &call) { calls.push_back(std::string(r.text(call.range))); });
  EXPECT_EQ(calls, (std::vector<std::string>{"ab.consume()", "wgmma.mma(s.a, s.a, acc, shape = MMA)",
                                             "math.cast(acc, E)", "st.global(math.cast(acc, E), C[0, 0])"}));
}

/// Every range of \p b's statements, fields and calls, in order.
void ranges(const Block &b, std::vector<SourceRange> &out) {
  forEachStmt(b, [&](const Stmt &s) {
    out.push_back(s.range);
    if (auto *ring = dyn_cast<RingStmt>(&s))
      for (const Field &f : ring->slots)
        out.push_back(f.range), out.push_back(f.type.range);
  });
  forEachCall(b, [&](const Expr &call) {
    out.push_back(call.range);
    for (const ExprPtr &a : call.operands)
      out.push_back(a->range);
  });
}

TEST(Instantiate, AModuleWithoutParametersInstantiatesToAnEqualTree) {
  size_t checked = 0;
  for (const auto &e : std::filesystem::recursive_directory_iterator(std::string(CAKE_SOURCE_DIR) + "/kernels")) {
    if (e.path().extension() != ".cake")
      continue;
    std::string text = readRepoFile(std::filesystem::relative(e.path(), CAKE_SOURCE_DIR).string());
    test::Parsed p = parseText(text);
    ASSERT_TRUE(p.diags.empty()) << e.path();
    if (!sema::parameters(p.module).empty())
      continue;
    std::vector<Diagnostic> diags;
    DiagnosticSink sink(diags);
    std::optional<sema::Instance> i = sema::instantiate(p.module, {}, sink);
    ASSERT_TRUE(i) << e.path();
    EXPECT_TRUE(diags.empty()) << e.path();
    EXPECT_TRUE(i->values.empty());
    EXPECT_EQ(i->label(), "");
    EXPECT_TRUE(equal(p.module, i->module)) << e.path();
    EXPECT_EQ(print(i->module), print(p.module)) << e.path();
    ASSERT_EQ(i->module.items.stmts.size(), p.module.items.stmts.size());
    for (size_t n = 0; n < p.module.items.stmts.size(); ++n) {
      EXPECT_EQ(i->module.items.stmts[n]->range, p.module.items.stmts[n]->range);
      if (auto *k = dyn_cast<KernelDecl>(p.module.items.stmts[n].get())) {
        std::vector<SourceRange> before, after;
        ranges(k->body, before);
        ranges(static_cast<const KernelDecl &>(*i->module.items.stmts[n]).body, after);
        EXPECT_EQ(before, after) << e.path();
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 3u) << "the library's kernels without parameters";
}

//===-- allInstantiations -------------------------------------------------===//

TEST(AllInstantiations, TheProductOfTheDomainsLessTheRequires) {
  const char *src = R"(param D: int in {32, 64, 128} = 64
param WG: int in 1 .. 4 = 3
param F: bool = false
require WG == 1 || D <= 64
kernel k() target(sm_80) grid(1) block(32) {
}
)";
  test::Parsed p = parseText(src);
  bool truncated = true;
  std::vector<sema::Instantiation> all = sema::allInstantiations(p.module, 100, &truncated);
  EXPECT_FALSE(truncated);
  // the same product and filter, computed here
  std::set<std::string> want;
  for (int d : {32, 64, 128})
    for (int wg = 1; wg < 4; ++wg)
      for (const char *f : {"false", "true"})
        if (wg == 1 || d <= 64)
          want.insert("D=" + std::to_string(d) + " WG=" + std::to_string(wg) + " F=" + f);
  std::set<std::string> have;
  for (const sema::Instantiation &inst : all) {
    std::string key;
    for (const sema::Binding &b : inst.bindings)
      key += (key.empty() ? "" : " ") + b.name + "=" + b.value;
    EXPECT_TRUE(have.insert(key).second) << "twice: " << key;
    // every one instantiates cleanly; a bool's domain is false and true (sema::domainValues)
    std::vector<Diagnostic> diags;
    DiagnosticSink sink(diags);
    std::optional<sema::Instance> i = sema::instantiate(p.module, inst, sink);
    ASSERT_TRUE(i) << key;
    EXPECT_TRUE(diags.empty()) << key;
    EXPECT_EQ(i->values.back().second, key.substr(key.rfind('=') + 1));
  }
  EXPECT_EQ(have, want);
  EXPECT_EQ(all.size(), want.size());
  EXPECT_EQ(all.size(), 14u);
}

TEST(AllInstantiations, ARangeDomainAndSetsOfOtherKinds) {
  test::Parsed p = parseText("param S: int in 1 .. 9 = 1\nparam E: elem in {bf16, fp16} = bf16\n"
                             "param B: bool in {true, false} = true\n"
                             "kernel k() target(sm_80) grid(1) block(32) {\n}\n");
  std::vector<sema::Instantiation> all = sema::allInstantiations(p.module, 1000);
  EXPECT_EQ(all.size(), 8u * 2 * 2);
  std::set<std::string> s;
  for (const sema::Instantiation &inst : all) {
    s.insert(inst.bindings.at(0).value);
    std::vector<Diagnostic> diags;
    DiagnosticSink sink(diags);
    EXPECT_TRUE(sema::instantiate(p.module, inst, sink)) << (diags.empty() ? "" : diags[0].message);
  }
  EXPECT_EQ(s, (std::set<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"}));
}

TEST(AllInstantiations, SetValuesWrittenAsExpressionsInstantiate) {
  // a set's values are compile-time integers, not necessarily literals
  test::Parsed p = parseText("param D: int in {2 * 16, 64, -1 + 129} = 64\n"
                             "kernel k() target(sm_80) grid(1) block(32) {\n}\n");
  std::vector<sema::Instantiation> all = sema::allInstantiations(p.module, 100);
  ASSERT_EQ(all.size(), 3u);
  std::vector<std::string> got;
  for (const sema::Instantiation &inst : all) {
    std::vector<Diagnostic> diags;
    DiagnosticSink sink(diags);
    std::optional<sema::Instance> i = sema::instantiate(p.module, inst, sink);
    ASSERT_TRUE(i) << inst.bindings.at(0).value << ": " << (diags.empty() ? "" : diags[0].message);
    got.push_back(i->values.at(0).second);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"32", "64", "128"}));
}

TEST(AllInstantiations, Truncation) {
  test::Parsed p = parseText("param A: int in 0 .. 10 = 0\nparam B: int in 0 .. 10 = 0\nrequire A != B\n"
                             "kernel k() target(sm_80) grid(1) block(32) {\n}\n");
  bool truncated = false;
  EXPECT_EQ(sema::allInstantiations(p.module, 1000, &truncated).size(), 90u);
  EXPECT_FALSE(truncated);
  EXPECT_EQ(sema::allInstantiations(p.module, 90, &truncated).size(), 90u);
  EXPECT_FALSE(truncated) << "exactly the limit is not truncated";
  std::vector<sema::Instantiation> some = sema::allInstantiations(p.module, 89, &truncated);
  EXPECT_EQ(some.size(), 89u);
  EXPECT_TRUE(truncated);
  for (const sema::Instantiation &inst : some)
    EXPECT_NE(inst.bindings.at(0).value, inst.bindings.at(1).value) << "only those the require allows";
  // a huge range stops early, but says so
  test::Parsed huge = parseText("param A: int in 0 .. 1000000000 = 0\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  EXPECT_EQ(sema::allInstantiations(huge.module, 16, &truncated).size(), 16u);
  EXPECT_TRUE(truncated);
}

TEST(AllInstantiations, AModuleWithoutParametersHasOne) {
  test::Parsed p = parseText("const A = 1\nkernel k() target(sm_80) grid(1) block(32) {\n}\n");
  bool truncated = true;
  std::vector<sema::Instantiation> all = sema::allInstantiations(p.module, 10, &truncated);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_TRUE(all[0].bindings.empty());
  EXPECT_FALSE(truncated);
}

} // namespace
