//===- LspCoreTest.cpp - The language server's core, without JSON ---------===//
//
// Part of CAKE. The engine of lsp/core/ driven directly, the way the
// protocol layer drives it: documents opened and edited with plain
// ContentChanges, features called with a URI and a Position, results read as
// structs, diagnostics received through the Callbacks. No JSON anywhere in
// this file: what the core offers is usable without the protocol.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/CakeServer.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace cake::lsp
