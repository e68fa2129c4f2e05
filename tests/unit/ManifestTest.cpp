//===- ManifestTest.cpp - Kernel library manifests and the dispatcher -----===//
//
// formats::readManifest reads docs/libraries.md's JSON and names the file,
// line and column of whatever is wrong; library::dispatch takes the first
// rule whose instantiation's domain holds the problem (compute capability by
// major version) and whose predicate holds, with a trace of every rule tried;
// evaluate, kPadOf and validate; and a binding of a manifest that is outside
// its parameter's domain is a param.value located in the manifest.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Check.h"
#include "compiler/library/Manifest.h"
#include "formats/Manifest.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

using namespace cake;
namespace fs = std::filesystem;

namespace {

/// A fresh directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cake-manifest-XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string &name, const std::string &text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

const char *kSource = R"(param D: int in {32, 64} = 64
param elem: elem in {bf16, fp16} = bf16

kernel k(x: global elem[N, D] align(16)) target(sm_90a) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
  }
}
)";

/// A valid manifest; tests replace parts of it.
const char *kGood = R"({
  "manifest": 1,
  "library": "demo",
  "entries": {
    "main": {
      "op": "assign",
      "kernels": ["k"],
      "scratch": ["cn"],
      "kPad": "2 * D"
    }
  },
  "instantiations": [
    {
      "name": "demo_d64",
      "source": "demo.cake",
      "entry": "main",
      "target": "sm_90a",
      "params": {"D": 64, "elem": "bf16"},
      "domain": {"dtype": "bf16", "D": 64},
      "covers": "bf16, D = 64"
    },
    {
      "name": "demo_d32",
      "source": "demo.cake",
      "entry": "main",
      "params": {"D": 32},
      "domain": {"dtype": "bf16", "D": 32},
      "optional": true
    }
  ],
  "predicates": {
    "big": {"expr": "B * N >= 4096", "evidence": "a sweep"}
  },
  "rules": [
    {"use": "demo_d64", "when": "big"},
    {"use": "demo_d32"}
  ]
}
)";

/// kGood with the first \p from replaced by \p to.
std::string edit(std::string_view from, std::string_view to, std::string text = kGood) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// "line:col" of the first \p needle in \p text (1-based, bytes).
std::string lineCol(std::string_view text, std::string_view needle, size_t nth = 0) {
  size_t at = text.find(needle);
  for (; nth > 0 && at != std::string_view::npos; --nth)
    at = text.find(needle, at + 1);
  EXPECT_NE(at, std::string_view::npos) << needle;
  if (at == std::string_view::npos)
    return "?";
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i)
    if (text[i] == '\n')
      ++line, col = 1;
    else
      ++col;
  return std::to_string(line) + ":" + std::to_string(col);
}

struct Read {
  std::string path;
  std::string error; ///< "" when it read
  std::optional<library::Manifest> manifest;
};

Read read(const TempDir &dir, const std::string &text, SourceManager &sm) {
  Read r;
  r.path = dir.write("demo.manifest.json", text);
  auto m = formats::readManifest(sm, r.path);
  if (m)
    r.manifest = std::move(*m);
  else
    r.error = m.error().message;
  return r;
}

/// The text is refused with \p message, at the first \p needle (nth).
void expectError(const std::string &text, std::string_view needle, const std::string &message, size_t nth = 0) {
  TempDir dir;
  SourceManager sm;
  Read r = read(dir, text, sm);
  EXPECT_FALSE(r.manifest) << "accepted:\n" << text;
  EXPECT_EQ(r.error, r.path + ":" + lineCol(text, needle, nth) + ": " + message) << text;
}

//===-- readManifest ------------------------------------------------------===//

TEST(ReadManifest, AGoodManifest) {
  TempDir dir;
  SourceManager sm;
  Read r = read(dir, kGood, sm);
  ASSERT_TRUE(r.manifest) << r.error;
  const library::Manifest &m = *r.manifest;
  EXPECT_EQ(m.library, "demo");
  EXPECT_EQ(m.path, r.path);
  EXPECT_EQ(m.dir, dir.path.string());
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].op, "assign");
  EXPECT_EQ(m.entries[0].kernels, std::vector<std::string>{"k"});
  EXPECT_EQ(m.entries[0].scratch, std::vector<std::string>{"cn"});
  EXPECT_EQ(m.entries[0].kPad, "2 * D");
  EXPECT_EQ(m.entries[0].distance, "");
  ASSERT_EQ(m.instances.size(), 2u);
  const library::Instance &a = m.instances[0], &b = m.instances[1];
  EXPECT_EQ(a.name, "demo_d64");
  EXPECT_EQ(a.target, "sm_90a");
  EXPECT_EQ(b.target, "sm_90a") << "the default target";
  EXPECT_FALSE(a.optional);
  EXPECT_TRUE(b.optional);
  EXPECT_EQ(a.covers, "bf16, D = 64");
  EXPECT_EQ(m.sourcePath(a), (dir.path / "demo.cake").string());
  // numbers are read as their decimal text; every binding knows where it was written
  ASSERT_EQ(a.params.size(), 2u);
  for (const sema::Binding &p : a.params) {
    ASSERT_TRUE(p.at) << p.name;
    std::string_view written = sm.text(p.at->file).substr(p.at->begin, p.at->size());
    EXPECT_EQ(written, p.name == "D" ? "64" : "\"bf16\"");
    EXPECT_EQ(p.value, p.name == "D" ? "64" : "bf16");
  }
  EXPECT_EQ(a.domain.size(), 2u);
  ASSERT_TRUE(a.at);
  EXPECT_EQ(sm.text(a.at->file).substr(a.at->begin, 1), "{");
  EXPECT_EQ(a.instantiation().name, "demo_d64");
  EXPECT_EQ(a.instantiation().bindings.size(), 2u);
  ASSERT_EQ(m.predicates.size(), 1u);
  EXPECT_EQ(m.predicates[0].expr, "B * N >= 4096");
  ASSERT_EQ(m.rules.size(), 2u);
  EXPECT_EQ(m.rules[0].when, "big");
  EXPECT_EQ(m.rules[1].when, "");
}

TEST(ReadManifest, TheKMeansManifestReadsAndValidates) {
  SourceManager sm;
  auto m = formats::readManifest(sm, std::string(CAKE_SOURCE_DIR) + "/kernels/kmeans/kmeans.manifest.json");
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->library, "kmeans");
  EXPECT_TRUE(library::validate(*m).empty());
  EXPECT_GE(m->instances.size(), 30u);
  for (const library::Instance &i : m->instances)
    EXPECT_TRUE(fs::exists(m->sourcePath(i))) << i.name;
}

TEST(ReadManifest, EveryKMeansInstantiationChecksClean) {
  // what the library builds: each instantiation of the manifest, as `cake check` checks it by default
  SourceManager sm;
  auto m = formats::readManifest(sm, std::string(CAKE_SOURCE_DIR) + "/kernels/kmeans/kmeans.manifest.json");
  ASSERT_TRUE(m) << m.error().message;
  std::map<std::string, FileId> files;
  for (const library::Instance &i : m->instances) {
    std::string path = m->sourcePath(i);
    if (!files.count(path)) {
      std::ifstream in(path);
      std::stringstream text;
      text << in.rdbuf();
      files[path] = sm.addBuffer(path, text.str());
    }
    CheckOptions options;
    options.instantiations = {i.instantiation()};
    CheckResult result = checkSource(sm, files[path], options);
    for (const Diagnostic &d : result.diagnostics)
      ADD_FAILURE() << i.name << ": " << d.message << " [" << d.code << "]";
    if (!sema::parameters(result.module).empty()) {
      ASSERT_TRUE(result.instance) << i.name;
      EXPECT_EQ(result.instance->name, i.name);
      EXPECT_EQ(result.instance->values.size(), sema::parameters(result.module).size()) << i.name;
    }
  }
}

TEST(ReadManifest, NotJsonIsLocated) {
  std::string text = edit("\"library\": \"demo\",", "\"library\": \"demo\" oops,");
  TempDir dir;
  SourceManager sm;
  Read r = read(dir, text, sm);
  EXPECT_FALSE(r.manifest);
  EXPECT_TRUE(r.error.starts_with(r.path + ":" + lineCol(text, "oops") + ": ")) << r.error;
  // a missing file names the file
  auto missing = formats::readManifest(sm, (dir.path / "none.manifest.json").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("none.manifest.json"), std::string::npos) << missing.error().message;
}

TEST(ReadManifest, TopLevelProblems) {
  expectError("[1, 2]\n", "[", "a manifest is a JSON object");
  expectError(edit("\"manifest\": 1", "\"manifest\": 2"), "2,", "\"manifest\": 1 (the format's version) is required");
  expectError(edit("\"manifest\": 1,\n", ""), "{", "\"manifest\": 1 (the format's version) is required");
  expectError(edit("\"manifest\": 1", "\"manifest\": \"1\""), "\"1\"",
              "\"manifest\": 1 (the format's version) is required");
  expectError(edit("\"library\": \"demo\",\n", ""), "{", "missing \"library\"");
  expectError(edit("\"library\": \"demo\"", "\"library\": 7"), "7,", "\"library\" must be a string");
  expectError(edit("\"entries\": {", "\"entries\": [1], \"x\": {"), "[1]",
              "\"entries\" must be an object of entries by name");
  expectError(edit("\"instantiations\": [", "\"instantiations\": {}, \"old\": ["), "{}, \"old\"",
              "\"instantiations\" (an array) is required");
  expectError(edit("\"instantiations\": [", "\"old\": ["), "{", "\"instantiations\" (an array) is required");
}

TEST(ReadManifest, EntryProblems) {
  expectError(edit("      \"op\": \"assign\",\n", ""), "{\n      \"kernels\"", "missing \"op\"");
  expectError(edit("\"op\": \"assign\"", "\"op\": [\"assign\"]"), "[\"assign\"]", "\"op\" must be a string");
  expectError(edit("\"kernels\": [\"k\"]", "\"kernels\": \"k\""), "\"k\",",
              "\"kernels\" must be an array of strings");
  expectError(edit("\"scratch\": [\"cn\"]", "\"scratch\": [\"cn\", 3]"), "3]", "expected a string");
  expectError(edit("\"kernels\": [\"k\"]", "\"kernels\": []"), "{\n      \"op\"", "entry 'main' lists no kernels");
  expectError(edit("\"kPad\": \"2 * D\"", "\"kPad\": 2.5"), "2.5", "expected an integer, a boolean or a string");
  expectError(edit("\"main\": {", "\"main\": 5, \"other\": {"), "5,", "an entry is an object");
}

TEST(ReadManifest, InstantiationProblems) {
  expectError(edit("      \"name\": \"demo_d64\",\n", ""), "{\n      \"source\"", "missing \"name\"");
  expectError(edit("\"source\": \"demo.cake\"", "\"source\": null"), "null", "\"source\" must be a string");
  expectError(edit("\"entry\": \"main\",\n      \"target\"", "\"target\""), "{\n      \"name\": \"demo_d64\"",
              "missing \"entry\"");
  expectError(edit("\"optional\": true", "\"optional\": \"yes\""), "\"yes\"", "\"optional\" must be true or false");
  expectError(edit("\"params\": {\"D\": 64, \"elem\": \"bf16\"}", "\"params\": [64]"), "[64]",
              "\"params\" must be an object");
  expectError(edit("\"params\": {\"D\": 64,", "\"params\": {\"D\": 64.5,"), "64.5",
              "expected an integer, a boolean or a string");
  expectError(edit("\"domain\": {\"dtype\": \"bf16\", \"D\": 32}", "\"domain\": {\"dtype\": [\"bf16\"]}"),
              "[\"bf16\"]", "expected an integer, a boolean or a string");
  expectError(edit("\"instantiations\": [\n", "\"instantiations\": [\n    7,\n"), "7,", "an instantiation is an object");
}

TEST(ReadManifest, PredicateAndRuleProblems) {
  expectError(edit("{\"expr\": \"B * N >= 4096\", \"evidence\": \"a sweep\"}", "{\"evidence\": \"a sweep\"}"),
              "{\"evidence\"", "missing \"expr\"");
  expectError(edit("{\"expr\": \"B * N >= 4096\", \"evidence\": \"a sweep\"}", "\"B * N\""), "\"B * N\"",
              "a predicate is an object");
  expectError(edit("\"evidence\": \"a sweep\"", "\"evidence\": 1"), "1}", "\"evidence\" must be a string");
  expectError(edit("\"predicates\": {", "\"predicates\": [], \"x\": {"), "[]",
              "\"predicates\" must be an object of predicates by name");
  expectError(edit("{\"use\": \"demo_d32\"}", "{\"when\": \"big\"}"), "{\"when\": \"big\"}", "missing \"use\"");
  expectError(edit("{\"use\": \"demo_d32\"}", "{\"use\": 32}"), "32}\n  ]", "\"use\" must be a string");
  expectError(edit("{\"use\": \"demo_d32\"}", "\"demo_d32\""), "\"demo_d32\"\n", "a rule is an object", 0);
  expectError(edit("\"rules\": [", "\"rules\": \"first\", \"old\": ["), "\"first\"", "\"rules\" must be an array");
}

TEST(ReadManifest, CrossReferencesAreLocated) {
  // what library::validate finds points at the value that is wrong
  expectError(edit("\"entry\": \"main\",\n      \"target\"", "\"entry\": \"mian\",\n      \"target\""), "\"mian\"",
              "instantiation 'demo_d64' serves the unknown entry 'mian'");
  expectError(edit("{\"use\": \"demo_d32\"}", "{\"use\": \"demo_d16\"}"), "\"demo_d16\"",
              "a rule uses the unknown instantiation 'demo_d16'");
  expectError(edit("{\"use\": \"demo_d64\", \"when\": \"big\"}", "{\"use\": \"demo_d64\", \"when\": \"large\"}"),
              "\"large\"", "a rule's predicate 'large' is not defined");
  expectError(edit("\"target\": \"sm_90a\"", "\"target\": \"gfx90a\""), "\"gfx90a\"",
              "instantiation 'demo_d64' has the unknown target 'gfx90a'");
  expectError(edit("\"name\": \"demo_d32\"", "\"name\": \"demo_d64\""), "\"demo_d64\"",
              "instantiation 'demo_d64' is listed twice", 1);
  expectError(edit("\"kPad\": \"2 * D\"", "\"kPad\": \"2 * BN\""), "\"2 * BN\"",
              "instantiation 'demo_d64': the kPad of entry 'main' does not evaluate with its parameters");
  TempDir dir;
  SourceManager sm;
  Read r = read(dir, edit("\"B * N >= 4096\"", "\"B * (N\""), sm);
  EXPECT_FALSE(r.manifest);
  EXPECT_TRUE(r.error.starts_with(r.path + ":" + lineCol(edit("\"B * N >= 4096\"", "\"B * (N\""), "\"B * (N\"") +
                                  ": predicate 'big' does not parse: "))
      << r.error;
}

//===-- dispatch, evaluate, kPadOf, validate -------------------------------===//

library::Manifest demo() {
  library::Manifest m;
  m.library = "demo";
  m.entries = {{"assign", "assign", {"k"}, "", "", {}, "2 * BN * S", "", {}, ""},
               {"update", "update", {"u"}, "", "", {}, "1", "", {}, ""}};
  library::Instance big{"big", "a.cake", "assign", "sm_90a", {{"BN", "128", {}}, {"S", "2", {}}},
                        {{"dtype", "bf16"}, {"D", "128"}}, "", "", false, {}};
  library::Instance wide = big;
  wide.name = "wide";
  wide.params = {{"BN", "128", {}}, {"S", "1", {}}};
  library::Instance ampere{"ampere", "b.cake", "assign", "sm_80", {{"BN", "64", {}}, {"S", "1", {}}},
                           {{"dtype", "bf16"}}, "", "", false, {}};
  library::Instance upd{"upd", "u.cake", "update", "sm_100a", {}, {}, "", "", false, {}};
  m.instances = {big, wide, ampere, upd};
  m.predicates = {{"many", "B * N >= 4096", "fitted"}, {"cores", "SMS * 2 > B", ""}};
  m.rules = {{"big", "many", {}}, {"wide", "", {}}, {"ampere", "", {}}, {"upd", "", {}}};
  return m;
}

library::Problem problem(std::map<std::string, std::string> values) { return {std::move(values)}; }

TEST(Dispatch, TheFirstRuleThatHoldsWins) {
  library::Manifest m = demo();
  library::Decision d = library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "128"},
                                                       {"B", "64"}, {"N", "64"}, {"cc", "90"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->name, "big");
  EXPECT_EQ(d.rule, &m.rules[0]);
  EXPECT_EQ(d.why, "big: in its domain and many holds (B * N >= 4096); fitted: fitted");
  EXPECT_EQ(d.trace, std::vector<std::string>{d.why});

  // the predicate fails: the next rule takes it, and the trace says why the first did not
  d = library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "128"}, {"B", "1"}, {"N", "64"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->name, "wide");
  EXPECT_EQ(d.rule, &m.rules[1]);
  ASSERT_EQ(d.trace.size(), 2u);
  EXPECT_EQ(d.trace[0], "big: many does not hold (B * N >= 4096 is 0)");
  EXPECT_EQ(d.trace[1], "wide: in its domain (dtype = bf16, D = 128, runs sm_90a)");
  EXPECT_EQ(d.why, d.trace[1]);
}

TEST(Dispatch, DomainMismatchesAreTraced) {
  library::Manifest m = demo();
  library::Decision d = library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "64"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->name, "ampere");
  ASSERT_EQ(d.trace.size(), 3u);
  EXPECT_EQ(d.trace[0], "big: outside its domain (D = 64 is not 128)");
  EXPECT_EQ(d.trace[1], "wide: outside its domain (D = 64 is not 128)");
  EXPECT_EQ(d.trace[2], "ampere: in its domain (dtype = bf16, runs sm_80)");

  d = library::dispatch(m, problem({{"op", "assign"}, {"D", "128"}}));
  ASSERT_TRUE(d.chosen == nullptr);
  EXPECT_EQ(d.trace[0], "big: outside its domain (dtype = (none) is not bf16)");
  EXPECT_EQ(d.trace[3], "upd: outside its domain (op assign is not update)");
  EXPECT_EQ(d.why, "no rule takes D = 128, op = assign");
  EXPECT_EQ(d.trace.size(), m.rules.size()) << "one line per rule tried";

  d = library::dispatch(m, problem({{"op", "update"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->name, "upd");
  EXPECT_EQ(d.trace[0], "big: outside its domain (op update is not assign)");
  EXPECT_EQ(d.trace[3], "upd: in its domain (runs sm_100a)");
  d = library::dispatch(m, problem({}));
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.trace[0], "big: outside its domain (op ? is not assign)");
}

// An entry's `applies` (over the problem's values and the instantiation's
// parameters) narrows the domain, with its reason in the trace; its `sizes`
// evaluate in any order that resolves (one may use another), and a cycle or a
// missing value is an error that names the size.
TEST(Dispatch, AppliesAndSizesUseTheInstantiationsParameters) {
  library::Manifest m = demo();
  m.entries[0].applies = "D <= 64 * BN && K % S == 0";
  m.entries[0].sizes = {{"KS", "K / S"}, {"T", "KS * 2 + BN"}};
  library::Decision d = library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "128"},
                                                       {"B", "1"}, {"N", "64"}, {"K", "7"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->name, "wide"); // S = 1 divides 7, S = 2 does not
  EXPECT_EQ(d.trace[0], "big: outside its domain (D <= 64 * BN && K % S == 0 does not hold)");
  std::string error;
  auto sizes = library::sizesOf(m, *d.chosen, problem({{"K", "7"}}), &error);
  ASSERT_TRUE(sizes) << error;
  EXPECT_EQ(*sizes, (std::vector<std::pair<std::string, int64_t>>{{"KS", 7}, {"T", 142}}));
  // a value the problem lacks, named
  EXPECT_FALSE(library::sizesOf(m, *d.chosen, problem({}), &error));
  EXPECT_NE(error.find("size KS of entry 'assign'"), std::string::npos) << error;
  EXPECT_NE(error.find("no value for K"), std::string::npos) << error;
  // a cycle
  m.entries[0].sizes = {{"A", "B2 + 1"}, {"B2", "A + 1"}};
  EXPECT_FALSE(library::sizesOf(m, *d.chosen, problem({{"K", "7"}}), &error));
  EXPECT_NE(error.find("size A"), std::string::npos) << error;
  // an applies that names a value the problem lacks does not hold, and says why
  m.entries[0].applies = "Z > 0";
  d = library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "128"}}));
  EXPECT_NE(d.trace[0].find("no value for Z"), std::string::npos) << d.trace[0];
  // validate: an applies or a size that does not parse
  m.entries[0].applies = "D <=";
  m.entries[0].sizes = {{"S2", "(("}};
  auto invalid = library::validate(m);
  ASSERT_EQ(invalid.size(), 2u);
  EXPECT_EQ(invalid[0].pointer, "/entries/assign/applies");
  EXPECT_EQ(invalid[1].pointer, "/entries/assign/sizes/S2");
}

// The KNN manifest: the smallest tile width and list length that hold the
// problem, and the split's sizes (S work ranges: the SMs filled, ranges of at
// least 8 tiles, rows of 32 for knn_merge).
TEST(Dispatch, KnnManifestPicksTheSmallestFitAndItsSplit) {
  SourceManager sm;
  auto read = formats::readManifest(sm, std::string(CAKE_SOURCE_DIR) + "/kernels/knn/knn.manifest.json");
  ASSERT_TRUE(bool(read));
  const library::Manifest &m = *read;
  EXPECT_TRUE(library::validate(m).empty());
  auto at = [&](std::string dtype, int64_t Q, int64_t N, int64_t D, int64_t k) {
    library::Problem p = problem({{"op", "search"}, {"dtype", dtype}, {"Q", std::to_string(Q)},
                                  {"N", std::to_string(N)}, {"D", std::to_string(D)}, {"k", std::to_string(k)},
                                  {"SMS", "132"}});
    library::Decision d = library::dispatch(m, p);
    std::map<std::string, int64_t> sizes;
    if (d.chosen)
      if (auto s = library::sizesOf(m, *d.chosen, p))
        sizes.insert(s->begin(), s->end());
    return std::pair{d.chosen ? d.chosen->name : "", sizes};
  };
  auto [name, sizes] = at("fp16", 4096, 1 << 20, 128, 10);
  EXPECT_EQ(name, "search_fp16_d128_k16");
  EXPECT_EQ(sizes["S"], 4); // 32 query tiles x 4 = 128 work tiles on 132 SMs
  EXPECT_EQ(sizes["SK"], 64);
  EXPECT_EQ(sizes["NP"], 1 << 20);
  std::tie(name, sizes) = at("bf16", 1, 10000, 80, 1);
  EXPECT_EQ(name, "search_bf16_d128_k1_wg1"); // Q <= 64: one compute warpgroup (few_queries)
  EXPECT_EQ(sizes["S"], 32); // rows of 32 for the merge, though 157 tiles want ranges of 8 (S = 16)
  EXPECT_EQ(sizes["NP"] % (128 * 32), 0);
  EXPECT_GE(sizes["NP"], 10000);
  std::tie(name, sizes) = at("fp16", 65536, 262144, 48, 32);
  EXPECT_EQ(name, "search_fp16_d64_k32");
  EXPECT_EQ(sizes["S"], 1); // 512 query tiles fill the SMs
  std::tie(name, sizes) = at("fp16", 100, 1000, 200, 3);
  EXPECT_EQ(name, "search_fp16_d256_k8");
  EXPECT_EQ(sizes["S"], 4); // 1000 rows: 16 tiles, ranges of 4 would be under 8: 2, then 32 / KP = 4
  // k over 32: the KP = 32 instantiations with AFTER in passes of 32 (PASSES), up to k = 1024;
  // k = 32 keeps the one-pass kernel (no exclusion test in its fold)
  EXPECT_EQ(at("fp16", 32, 1 << 20, 128, 32).first, "search_fp16_d128_k32_wg1");
  std::tie(name, sizes) = at("fp16", 32, 1 << 20, 128, 33);
  EXPECT_EQ(name, "search_fp16_d128_kpass_wg1");
  EXPECT_EQ(sizes["PASSES"], 2);
  std::tie(name, sizes) = at("bf16", 4096, 1 << 20, 64, 1000);
  EXPECT_EQ(name, "search_bf16_d64_kpass");
  EXPECT_EQ(sizes["PASSES"], 32); // 31 passes of 32 and one of 8 (the merge clips to KOUT = k)
  EXPECT_EQ(sizes["KOUT"], 1000);
  EXPECT_EQ(at("fp16", 4096, 1 << 20, 128, 10).second["PASSES"], 1);
  // past D = 256: D split (knn_wide)
  EXPECT_EQ(at("fp16", 32, 1 << 20, 1024, 10).first, "search_fp16_d1024_k16_wg1");
  // what this build cannot take: D over 1024, k over 1024, D not a multiple of 8
  EXPECT_EQ(at("fp16", 32, 1 << 20, 1032, 10).first, "");
  EXPECT_EQ(at("fp16", 32, 1 << 20, 128, 1025).first, "");
  EXPECT_EQ(at("fp16", 32, 1 << 20, 100, 10).first, "");
  // k > N is an error: no instantiation takes it
  EXPECT_EQ(at("fp16", 32, 5, 64, 8).first, "");
  EXPECT_EQ(at("fp16", 32, 8, 64, 8).first, "search_fp16_d64_k8_wg1");
  EXPECT_EQ(at("fp16", 65, 8, 64, 8).first, "search_fp16_d64_k8");
}

TEST(Dispatch, ArchSpecificCodeMatchesItsMajorVersionPtxItsVersionUp) {
  library::Manifest m = demo();
  m.rules = {{"ampere", "", {}}};
  auto on = [&](std::optional<std::string> cc) {
    std::map<std::string, std::string> v{{"op", "assign"}, {"dtype", "bf16"}};
    if (cc)
      v["cc"] = *cc;
    return library::dispatch(m, problem(v));
  };
  // sm_80 code is PTX: the driver compiles it for any later GPU (a forced sm_80 variant runs on an H200)
  for (const char *cc : {"80", "86", "89", "90", "100"})
    EXPECT_TRUE(on(cc).chosen) << "sm_80 code on " << cc;
  EXPECT_TRUE(on(std::nullopt).chosen) << "an unknown capability matches any";
  EXPECT_TRUE(on("0").chosen);
  library::Decision d = on("75");
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.trace.at(0), "ampere: outside its domain (compute capability 7.5 does not run sm_80 code)");
  m.rules = {{"upd", "", {}}};
  EXPECT_TRUE(library::dispatch(m, problem({{"op", "update"}, {"cc", "100"}})).chosen);
  EXPECT_TRUE(library::dispatch(m, problem({{"op", "update"}, {"cc", "103"}})).chosen);
  d = library::dispatch(m, problem({{"op", "update"}, {"cc", "90"}}));
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.trace.at(0), "upd: outside its domain (compute capability 9.0 does not run sm_100a code)");

  EXPECT_EQ(library::targetComputeCapability("sm_80"), 80);
  EXPECT_EQ(library::targetComputeCapability("sm_90a"), 90);
  EXPECT_EQ(library::targetComputeCapability("sm_100a"), 100);
  EXPECT_EQ(library::targetComputeCapability("gfx90a"), 0);
  EXPECT_EQ(library::targetComputeCapability("sm_"), 0);
}

TEST(Dispatch, APredicateThatDoesNotEvaluateIsSkipped) {
  library::Manifest m = demo();
  m.rules = {{"big", "cores", {}}, {"big", "missing", {}}, {"nothing", "", {}}, {"wide", "", {}}};
  library::Decision d =
      library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "128"}, {"B", "4"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->name, "wide");
  ASSERT_EQ(d.trace.size(), 4u);
  EXPECT_EQ(d.trace[0], "big: predicate cores does not evaluate: 'SMS * 2 > B' cannot be evaluated: no value for SMS");
  EXPECT_EQ(d.trace[1], "big: predicate missing is not defined");
  EXPECT_EQ(d.trace[2], "nothing: not an instantiation of this library (skipped)");
  // with the value, it holds
  d = library::dispatch(m, problem({{"op", "assign"}, {"dtype", "bf16"}, {"D", "128"}, {"B", "4"}, {"SMS", "132"}}));
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.rule, &m.rules[0]);
  EXPECT_EQ(d.why, "big: in its domain and cores holds (SMS * 2 > B)");
}

TEST(Evaluate, IntegerExpressionsOverTheProblem) {
  library::Problem p = problem({{"B", "3"}, {"N", "1000"}, {"dtype", "bf16"}, {"SMS", "132"}});
  std::string error;
  EXPECT_EQ(library::evaluate("B * 2 + 1", p, &error), 7);
  EXPECT_EQ(library::evaluate("math.cdiv(N, 128)", p), 8);
  EXPECT_EQ(library::evaluate("math.cdiv(B * math.cdiv(N, 128), SMS) * 128", p), 128);
  EXPECT_EQ(library::evaluate("B < 4 && N >= 1000", p), 1);
  EXPECT_EQ(library::evaluate("B > 4 || N < 1000", p), 0);
  EXPECT_EQ(library::evaluate("(B + 1) % 3", p), 1);

  EXPECT_FALSE(library::evaluate("B * K", p, &error));
  EXPECT_EQ(error, "'B * K' cannot be evaluated: no value for K");
  EXPECT_FALSE(library::evaluate("dtype + 1", p, &error)) << "not an integer";
  EXPECT_EQ(error, "'dtype + 1' cannot be evaluated: no value for dtype");
  EXPECT_FALSE(library::evaluate("B *", p, &error));
  EXPECT_TRUE(error.starts_with("'B *' is not an expression: ")) << error;
  // one expression, not a file
  EXPECT_FALSE(library::evaluate("1\nconst y = 2", p, &error));
  EXPECT_FALSE(library::evaluate("1\n}\nkernel k() {", p, &error));
  EXPECT_FALSE(library::evaluate("", p, &error));
  EXPECT_FALSE(library::evaluate("B / 0", p, &error)) << "no value, not a crash";
}

TEST(KPad, TheEntrysExpressionOverTheParameters) {
  library::Manifest m = demo();
  EXPECT_EQ(library::kPadOf(m, m.instances[0]), 2 * 128 * 2);
  EXPECT_EQ(library::kPadOf(m, m.instances[1]), 2 * 128 * 1);
  EXPECT_EQ(library::kPadOf(m, m.instances[2]), 2 * 64 * 1);
  EXPECT_EQ(library::kPadOf(m, m.instances[3]), 1);
  library::Instance noEntry = m.instances[0];
  noEntry.entry = "none";
  EXPECT_FALSE(library::kPadOf(m, noEntry));
  library::Instance missing = m.instances[0];
  missing.params = {{"BN", "128", {}}};
  EXPECT_FALSE(library::kPadOf(m, missing)) << "no S";
  missing.params = {{"BN", "128", {}}, {"S", "bf16", {}}};
  EXPECT_FALSE(library::kPadOf(m, missing)) << "S is not an integer";

  SourceManager sm;
  auto kmeans = formats::readManifest(sm, std::string(CAKE_SOURCE_DIR) + "/kernels/kmeans/kmeans.manifest.json");
  ASSERT_TRUE(kmeans);
  const library::Instance *split = kmeans->instance("assign_d128_split4");
  ASSERT_TRUE(split);
  std::map<std::string, int64_t> v;
  for (const sema::Binding &b : split->params)
    if (b.name == "BN" || b.name == "S")
      v[b.name] = std::stoll(b.value);
  EXPECT_EQ(library::kPadOf(*kmeans, *split), 2 * v["BN"] * v["S"]);
}

TEST(Validate, WhatIsWrongWithAManifest) {
  library::Manifest m = demo();
  EXPECT_TRUE(library::validate(m).empty());
  m.entries.push_back(m.entries[0]);
  m.instances.push_back(m.instances[0]);
  m.instances[1].entry = "nope";
  m.instances[2].target = "sm80";
  m.instances[3].params.clear();
  m.entries[1].kPad = "X + 1";
  m.predicates.push_back({"broken", "B * (", ""});
  m.rules.push_back({"ghost", "", {}});
  m.rules.push_back({"wide", "never", {}});
  std::vector<std::string> problems;
  for (const library::Invalid &p : library::validate(m))
    problems.push_back(p.message);
  auto has = [&](const std::string &p) { return std::find(problems.begin(), problems.end(), p) != problems.end(); };
  EXPECT_TRUE(has("entry 'assign' is listed twice"));
  EXPECT_TRUE(has("instantiation 'big' is listed twice"));
  EXPECT_TRUE(has("instantiation 'wide' serves the unknown entry 'nope'"));
  EXPECT_TRUE(has("instantiation 'ampere' has the unknown target 'sm80'"));
  EXPECT_TRUE(has("instantiation 'upd': the kPad of entry 'update' does not evaluate with its parameters"));
  EXPECT_TRUE(has("a rule uses the unknown instantiation 'ghost'"));
  EXPECT_TRUE(has("a rule's predicate 'never' is not defined"));
  bool parse = false;
  for (const std::string &p : problems)
    parse |= p.starts_with("predicate 'broken' does not parse: ");
  EXPECT_TRUE(parse);
  EXPECT_EQ(problems.size(), 8u);
}

TEST(Validate, ARepeatNamesALaunchedKernelAndThePassCount) {
  library::Manifest m = demo();
  m.entries[0].repeat = "k";
  auto messages = [&] {
    std::vector<std::string> out;
    for (const library::Invalid &p : library::validate(m))
      out.push_back(p.message);
    return out;
  };
  EXPECT_EQ(messages(), std::vector<std::string>{
                            "entry 'assign' repeats kernels but defines no size PASSES (the number of passes)"});
  m.entries[0].sizes.push_back({"PASSES", "math.cdiv(k, 32)"});
  EXPECT_TRUE(messages().empty());
  m.entries[0].repeat = "u";
  EXPECT_EQ(messages(), std::vector<std::string>{"entry 'assign' repeats from 'u', which it does not launch"});
}

//===-- Instantiations of a manifest ---------------------------------------===//

TEST(ManifestInstantiation, ABindingOutsideItsDomainIsReportedInTheManifest) {
  TempDir dir;
  std::string source = dir.write("demo.cake", kSource);
  std::string text = edit("\"params\": {\"D\": 32}", "\"params\": {\"D\": 48}");
  SourceManager sm;
  Read r = read(dir, text, sm);
  ASSERT_TRUE(r.manifest) << r.error;
  const library::Instance *bad = r.manifest->instance("demo_d32");
  ASSERT_TRUE(bad);

  FileId file = sm.addBuffer(source, kSource);
  CheckOptions options;
  options.instantiations = {bad->instantiation()};
  CheckResult result = checkSource(sm, file, options);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  const Diagnostic &d = result.diagnostics[0];
  EXPECT_EQ(d.code, "param.value");
  EXPECT_EQ(d.message, "D = 48 is outside the domain of parameter 'D': {32, 64}");
  EXPECT_EQ(sm.name(d.range.file), r.path) << "in the manifest's buffer";
  LineColumn lc = sm.lineColumn(d.range.file, d.range.begin);
  EXPECT_EQ(std::to_string(lc.line) + ":" + std::to_string(lc.column), lineCol(text, "48"));
  EXPECT_EQ(sm.text(d.range.file).substr(d.range.begin, d.range.size()), "48");
  ASSERT_GE(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].message, "'D' is declared here");
  EXPECT_EQ(d.notes[0].range.file, file);
  EXPECT_EQ(d.notes.back().message, "in instantiation demo_d32: D = 48");

  // the good one checks clean
  options.instantiations = {r.manifest->instance("demo_d64")->instantiation()};
  EXPECT_TRUE(checkSource(sm, file, options).diagnostics.empty());
}

TEST(ManifestInstantiation, AParameterTheSourceLacksIsReportedAtItsBinding) {
  TempDir dir;
  std::string source = dir.write("demo.cake", kSource);
  std::string text = edit("\"params\": {\"D\": 32}", "\"params\": {\"D\": 32, \"WG\": 2}");
  SourceManager sm;
  Read r = read(dir, text, sm);
  ASSERT_TRUE(r.manifest) << r.error;
  FileId file = sm.addBuffer(source, kSource);
  CheckOptions options;
  options.instantiations = {r.manifest->instance("demo_d32")->instantiation()};
  CheckResult result = checkSource(sm, file, options);
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].message, "there is no parameter 'WG' in this file (its parameters: D, elem)");
  LineColumn lc = sm.lineColumn(result.diagnostics[0].range.file, result.diagnostics[0].range.begin);
  EXPECT_EQ(std::to_string(lc.line) + ":" + std::to_string(lc.column), lineCol(text, "2}"));
}

TEST(ManifestInstantiation, ManifestsBesideASourceAndTheirInstantiations) {
  TempDir dir;
  std::string source = dir.write("demo.cake", kSource);
  dir.write("other.cake", kSource);
  SourceManager sm;
  Read r = read(dir, kGood, sm);
  ASSERT_TRUE(r.manifest);
  std::vector<const library::Instance *> mine = formats::instancesOf(*r.manifest, source);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0]->name, "demo_d64");
  // the same file by another spelling
  EXPECT_EQ(formats::instancesOf(*r.manifest, (dir.path / "." / "demo.cake").string()).size(), 2u);
  EXPECT_TRUE(formats::instancesOf(*r.manifest, (dir.path / "other.cake").string()).empty());

  std::vector<std::string> errors;
  std::vector<library::Manifest> found = formats::manifestsFor(sm, source, errors);
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].library, "demo");
  EXPECT_TRUE(formats::manifestsFor(sm, (dir.path / "other.cake").string(), errors).empty());

  // a broken manifest beside it is reported, the good one still found
  dir.write("broken.manifest.json", "{\"manifest\": 1,\n  \"library\": 3}\n");
  errors.clear();
  found = formats::manifestsFor(sm, source, errors);
  EXPECT_EQ(found.size(), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], (dir.path / "broken.manifest.json").string() + ":2:14: \"library\" must be a string");
}

} // namespace
