//===- LspCoreTest.cpp - The language server's core, without JSON ---------===//
//
// Part of CAKE. The engine of lsp/core/ driven directly, the way the
// protocol layer drives it: documents opened and edited with plain
// ContentChanges, features called with a URI and a Position, results read as
// structs, diagnostics received through the Callbacks. No JSON anywhere in
// this file (a manifest is written as text): what the core offers is usable
// without the protocol.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/CakeServer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <variant>

namespace cake::lsp {
namespace {

constexpr const char *kUri = "file:///work/test/tiny.cake";

constexpr std::string_view kTiny = R"(const BK = 64

kernel tiny(A: global bf16[M, 8] align(16)) target(sm_90a) grid(1) block(256) {
  ring ab stages(2) producer(load) consumer(use) {
    a: shared bf16[64, BK] swizzle(128B)
  }

  role load warpgroups(0) regs(40) issue(elect) {
    let s = ab.produce()
    tma.load(A[0, 0], s.a)
    ab.commit(s)
  }

  role use warpgroups(1) issue(warpgroup) {
    let s = ab.consume()
    ab.release(s)
  }
}
)";

class Recorder : public CakeServer::Callbacks {
public:
  void publishDiagnostics(const std::string &uri, std::optional<int64_t> version,
                          const std::vector<LspDiagnostic> &diagnostics) override {
    std::lock_guard lock(mutex);
    published[uri] = {version, diagnostics};
  }
  void logError(const std::string &message) override { errors.push_back(message); }
  void applyEdit(const std::string &label, const WorkspaceEdit &edit) override { edits.push_back(edit); }

  std::mutex mutex;
  std::map<std::string, std::pair<std::optional<int64_t>, std::vector<LspDiagnostic>>> published;
  std::vector<std::string> errors;
  std::vector<WorkspaceEdit> edits;
};

// Regression (issue #16, found by tests/fuzz/FuzzLsp): completion after a
// ')' with no '(' before it walked its token index below zero and read past
// the tokens (UBSan: "addition of unsigned offset overflowed").
TEST(LspCore, CompletionAfterAnUnbalancedParenthesis) {
  Recorder client;
  CakeServer core(client);
  for (const char *text : {")", "x: bf16)", ")]", "]", "a ) ) "}) {
    core.didOpen(kUri, 1, text);
    CompletionList items = completion(core.state(), kUri, {0, uint32_t(std::string_view(text).size())});
    EXPECT_LE(items.items.size(), kMaxCompletionItems) << text;
    core.didClose(kUri);
  }
}

TEST(LspCore, FeaturesReturnPlainResults) {
  Recorder client;
  CakeServer core(client);
  core.didOpen(kUri, 1, std::string(kTiny));
  State &state = core.state();

  std::optional<Hover> h = hover(state, kUri, {3, 8}); // on `ab`
  ASSERT_TRUE(h);
  EXPECT_NE(h->contents.value.find("stages"), std::string::npos) << h->contents.value;
  EXPECT_EQ(h->range, (Range{{3, 7}, {3, 9}}));

  std::optional<Location> def = definition(state, kUri, {9, 22}); // `s` in `s.a`
  ASSERT_TRUE(def);
  EXPECT_EQ(def->range.start, (Position{8, 8}));
  EXPECT_EQ(references(state, kUri, {8, 8}, true).size(), 3u);

  CompletionList items = completion(state, kUri, {9, 8}); // after `tma.`
  bool load = false;
  for (const CompletionItem &c : items.items)
    load |= c.label == "load";
  EXPECT_TRUE(load);

  DocumentSymbols symbols = documentSymbols(state, kUri);
  ASSERT_TRUE(std::holds_alternative<std::vector<SymbolInformation>>(symbols)) << "flat without the capability";
  EXPECT_EQ(std::get<std::vector<SymbolInformation>>(symbols)[0].name, "BK");

  SemanticTokens tokens = semanticTokens(state, kUri);
  EXPECT_EQ(tokens.data.size() % 5, 0u);
  EXPECT_GT(tokens.data.size(), 20u);
  EXPECT_FALSE(semanticTokensLegend().tokenTypes.empty());
  EXPECT_THROW(hover(state, "file:///not-open.cake", {0, 0}), LspError);
}

TEST(LspCore, EditsPublishDiagnosticsWithTheirVersion) {
  Recorder client;
  CakeServer core(client);
  core.didOpen(kUri, 1, std::string(kTiny));
  core.publishPending();
  ASSERT_TRUE(client.published.count(kUri));
  EXPECT_EQ(client.published[kUri].first, 1);
  EXPECT_TRUE(client.published[kUri].second.empty());
  // tma.load -> tma.lod: op.unknown, with its fix-it in the client's positions
  core.didChange(kUri, 2, {{Range{{9, 10}, {9, 12}}, "d"}});
  core.publishPending();
  auto &[version, diags] = client.published[kUri];
  EXPECT_EQ(version, 2);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "op.unknown");
  ASSERT_EQ(diags[0].fixes.size(), 1u);
  EXPECT_NE(diags[0].fixes[0].edits[0].newText.find("load"), std::string::npos);
  ApplyFixReport fixed = applyFixCommand(core.state(), kUri);
  EXPECT_EQ(fixed.applied, 1u);
  ASSERT_EQ(client.edits.size(), 1u) << "sent to the client";
  core.didClose(kUri);
  EXPECT_FALSE(client.published[kUri].first) << "closing clears, without a version";
}

// A file with parameters and a manifest beside it listing two instantiations.
constexpr std::string_view kParametric = R"(param D: int in {32, 64} = 64

kernel tiny(A: global bf16[M, D] align(16)) target(sm_90a) grid(1) block(256) {
  ring ab stages(2) producer(load) consumer(use) {
    a: shared bf16[64, D] swizzle(64B)
  }

  role load warpgroups(0) regs(40) issue(elect) {
    let s = ab.produce()
    tma.load(A[0, 0], s.a)
    ab.commit(s)
  }

  role use warpgroups(1) issue(warpgroup) {
    let s = ab.consume()
    ab.release(s)
  }
}
)";

constexpr std::string_view kManifest = R"({"manifest": 1, "library": "tiny",
 "entries": {"tiny": {"op": "assign", "kernels": ["tiny"]}},
 "instantiations": [{"name": "wide", "source": "tiny.cake", "entry": "tiny", "params": {"D": 64}},
                    {"name": "narrow", "source": "tiny.cake", "entry": "tiny", "params": {"D": 32}}]}
)";

/// A folder holding tiny.cake and tiny.manifest.json, removed at the end.
struct ManifestFolder {
  std::filesystem::path dir;
  explicit ManifestFolder(std::string_view manifest = kManifest) {
    std::string templ = (std::filesystem::temp_directory_path() / "cake-lsp-core-XXXXXX").string();
    dir = mkdtemp(templ.data());
    std::ofstream(dir / "tiny.cake") << kParametric;
    std::ofstream(dir / "tiny.manifest.json") << manifest;
  }
  ~ManifestFolder() { std::filesystem::remove_all(dir); }
  std::string uri() const { return pathToUri((dir / "tiny.cake").string()); }
};

/// The bytes per stage of ring `ab` as the model has them.
int64_t stageBytes(const Analysis &a) { return a.model()->kernels.at(0).ring("ab")->stageBytes().value_or(-1); }

TEST(LspCore, TheSelectedInstantiationIsTheOneHoverDescribes) {
  ManifestFolder folder;
  const std::string uri = folder.uri();
  Recorder client;
  CakeServer core(client);
  State &state = core.state();
  state.caps.markdownHover = true;
  core.didOpen(uri, 1, std::string(kParametric));
  auto analysis = state.docs.analyze(uri, state.check);
  EXPECT_EQ(analysis->instantiations, (std::vector<std::string>{"wide", "narrow"})) << "the manifest's, in its order";
  ASSERT_TRUE(analysis->result.instance);
  EXPECT_EQ(analysis->result.instance->name, "wide") << "none selected: the first";
  EXPECT_EQ(stageBytes(*analysis), 64 * 64 * 2);
  std::optional<Hover> ring = hover(state, uri, {3, 8}); // on `ab`
  ASSERT_TRUE(ring);
  EXPECT_NE(ring->contents.value.find("8 KiB per stage"), std::string::npos) << ring->contents.value;
  EXPECT_NE(ring->contents.value.find("_instantiation wide: D = 64_"), std::string::npos) << ring->contents.value;

  SelectReport selected = selectInstantiationCommand(state, uri, "narrow");
  EXPECT_EQ(selected.note, "instantiation narrow: D = 32");
  analysis = state.docs.analyze(uri, state.check);
  ASSERT_TRUE(analysis->result.instance);
  EXPECT_EQ(analysis->result.instance->name, "narrow");
  EXPECT_EQ(stageBytes(*analysis), 64 * 32 * 2) << "the model is the selected instantiation's";
  ring = hover(state, uri, {3, 8});
  ASSERT_TRUE(ring);
  EXPECT_NE(ring->contents.value.find("4 KiB per stage"), std::string::npos) << ring->contents.value;
  EXPECT_NE(ring->contents.value.find("_instantiation narrow: D = 32_"), std::string::npos);
  std::optional<Hover> param = hover(state, uri, {0, 6}); // `D` on its param line
  ASSERT_TRUE(param);
  EXPECT_NE(param->contents.value.find("`D = 32` in this instantiation"), std::string::npos) << param->contents.value;
  EXPECT_NE(param->contents.value.find("domain `{32, 64}`"), std::string::npos);
  std::optional<Hover> use = hover(state, uri, {2, 30}); // `D` in `bf16[M, D]`
  ASSERT_TRUE(use);
  EXPECT_EQ(use->contents.value, param->contents.value);
  bool narrowHint = false;
  for (const InlayHint &h : inlayHints(state, uri, {{0, 0}, {30, 0}}))
    narrowHint |= h.label == ": 2 x 4 KiB = 8 KiB";
  EXPECT_TRUE(narrowHint) << "inlay hints describe the selected instantiation";

  try {
    selectInstantiationCommand(state, uri, "medium");
    ADD_FAILURE() << "an unknown name is refused";
  } catch (const LspError &e) {
    EXPECT_EQ(e.code, ErrorCode::InvalidParams);
    EXPECT_NE(std::string(e.what()).find("(its instantiations: wide, narrow)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(state.docs.analyze(uri, state.check)->result.instance->name, "narrow") << "a refused name changes nothing";
  selectInstantiationCommand(state, uri, "");
  EXPECT_EQ(state.docs.analyze(uri, state.check)->result.instance->name, "wide") << "\"\": back to the first";

  // The server's default applies to every document that has it, until one selects its own.
  state.docs.setDefaultInstantiation("narrow");
  core.didOpen(uri, 2, std::string(kParametric));
  EXPECT_EQ(state.docs.analyze(uri, state.check)->result.instance->name, "narrow");
  EXPECT_EQ(state.docs.snapshot(uri).instantiation, "narrow") << "what the lowering of a snapshot selects";

  // Being typed: the recovered tree is instantiated too, so the parameters keep their values.
  std::string broken(kParametric);
  broken.replace(broken.find("ab.commit(s)"), 12, "let = 5");
  core.didChange(uri, 3, {{std::nullopt, broken}});
  analysis = state.docs.analyze(uri, state.check);
  EXPECT_FALSE(analysis->result.model) << "a syntax error";
  ASSERT_TRUE(analysis->recovered);
  EXPECT_EQ(stageBytes(*analysis), 64 * 32 * 2);
  ring = hover(state, uri, {3, 8});
  ASSERT_TRUE(ring);
  EXPECT_NE(ring->contents.value.find("_instantiation narrow: D = 32_"), std::string::npos) << ring->contents.value;
}

// A value outside its parameter's domain is the manifest's finding: shown on
// the document at the parameter, linking to the manifest's value.
TEST(LspCore, AManifestsFindingIsShownAtTheParameter) {
  std::string manifest(kManifest);
  manifest.replace(manifest.find("\"D\": 32"), 7, "\"D\": 48");
  ManifestFolder folder(manifest);
  const std::string uri = folder.uri();
  Recorder client;
  CakeServer core(client);
  core.state().caps.relatedInformation = true;
  core.didOpen(uri, 1, std::string(kParametric));
  std::vector<LspDiagnostic> diags = lspDiagnostics(core.state(), uri);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "param.value");
  EXPECT_NE(diags[0].message.find("D = 48 is outside the domain"), std::string::npos) << diags[0].message;
  EXPECT_EQ(diags[0].range, (Range{{0, 0}, {0, 29}})) << "the parameter's declaration";
  ASSERT_FALSE(diags[0].related.empty());
  EXPECT_EQ(diags[0].related[0].location.uri, pathToUri((folder.dir / "tiny.manifest.json").string()));
  EXPECT_EQ(diags[0].related[0].location.range.start.line, 3u) << "the manifest's line of the value";
  EXPECT_EQ(diags[0].related[0].message, "the manifest's value");
  EXPECT_EQ(core.state().docs.analyze(uri, core.state().check)->result.instance->name, "wide")
      << "the model is of the instantiation that instantiates";
}

// Regression (issue #16): a document with lone CR line ends was one line to
// the server; the client counts a lone CR as a line terminator (LSP 3.17), so
// positions disagreed. Now the finding is on the line the client shows.
TEST(LspCore, ALoneCarriageReturnIsALineEnd) {
  Recorder client;
  CakeServer core(client);
  const std::string uri = "file:///tmp/cr-only.cake";
  core.didOpen(uri, 1, "const X = 1\rconst Y = 2 3\r");
  std::vector<LspDiagnostic> diags = lspDiagnostics(core.state(), uri);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "syntax.unexpected");
  EXPECT_EQ(diags[0].range, (Range{{1, 12}, {1, 13}}));
  core.didChange(uri, 2, {{Range{{1, 11}, {1, 13}}, ""}}); // the client's position of ` 3`
  EXPECT_TRUE(lspDiagnostics(core.state(), uri).empty());
}

// An unreadable manifest beside a parametric file: the editor checked the
// defaults only and says so (manifest.invalid), instead of looking clean.
TEST(LspCore, AnUnreadableManifestIsReported) {
  std::string manifest(kManifest);
  manifest.replace(manifest.find("\"instantiations\""), 16, "\"instantiationz\"");
  ManifestFolder folder(manifest);
  const std::string uri = folder.uri();
  Recorder client;
  CakeServer core(client);
  core.didOpen(uri, 1, std::string(kParametric));
  std::vector<LspDiagnostic> diags = lspDiagnostics(core.state(), uri);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].code, "manifest.invalid");
  EXPECT_NE(diags[0].message.find("tiny.manifest.json:"), std::string::npos) << diags[0].message;
  EXPECT_NE(diags[0].message.find("\"instantiations\" (an array) is required"), std::string::npos) << diags[0].message;
  EXPECT_EQ(diags[0].range, (Range{{0, 0}, {0, 0}}));
}

/// LineMap continues a UTF-16 count from its previous query on the same
/// line (issue #16: semantic tokens on one 100,000-token line were
/// quadratic); whatever the order of the queries, it agrees with
/// positionAt, also on bytes that are not UTF-8 (one unit each) and on a
/// lone surrogate kept as ED A0 80 (one unit, as the client has it).
TEST(LspCore, LineMapAgreesWithPositionAtInAnyQueryOrder) {
  std::string text = "ab\xC3\xA9" "c\xF0\x9F\x98\x80" "d\xFF" "e\xED\xA0\x80" "f\nx\xC3\xA9y\n";
  for (Encoding enc : {Encoding::UTF16, Encoding::UTF8}) {
    LineMap lines(text, enc);
    std::vector<uint32_t> offsets;
    for (uint32_t o = 0; o <= text.size(); ++o)
      offsets.push_back(o);
    for (int pass = 0; pass < 3; ++pass) {
      if (pass == 1)
        std::reverse(offsets.begin(), offsets.end());
      if (pass == 2)
        std::rotate(offsets.begin(), offsets.begin() + 7, offsets.end());
      for (uint32_t o : offsets)
        EXPECT_EQ(lines.position(o), positionAt(text, o, enc)) << "offset " << o << " pass " << pass;
    }
  }
  // one unit per byte that is not UTF-8, one for the surrogate
  EXPECT_EQ(positionAt(text, 15, Encoding::UTF16), (Position{0, 10})); // a b é c 😀(2) d \xFF e \xED\xA0\x80 f
}

/// Regression (issue #16): a document with bytes that are not UTF-8 opens;
/// those the lexer does not report (in comments and strings) are reported
/// as syntax.character at their place, those it reports once.
TEST(LspCore, BytesThatAreNotUtf8AreReportedWhereTheyAre) {
  State state;
  state.docs.open("file:///t/u.cake", 1, "// caf\xE9\nconst A = 1 \xED\xA0\x80\n");
  std::vector<LspDiagnostic> diags = lspDiagnostics(state, "file:///t/u.cake");
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].code, "syntax.character");
  EXPECT_EQ(diags[0].range, (Range{{0, 6}, {0, 7}}));
  EXPECT_EQ(diags[1].code, "syntax.character");
  EXPECT_EQ(diags[1].range, (Range{{1, 12}, {1, 13}}));
}

} // namespace
} // namespace cake::lsp
