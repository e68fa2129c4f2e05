//===- RenderersTest.cpp - Text, JSON and SARIF diagnostic renderers ------===//
//
// Part of CAKE. Each renderer is checked against one small buffer with an
// error (carrying a note and a fix) and a warning whose range holds a tab.
//
//===----------------------------------------------------------------------===//
#include "formats/JsonRenderer.h"
#include "formats/SarifRenderer.h"
#include "diagnostics/Catalog.h"
#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"
#include "diagnostics/TextRenderer.h"
#include "compiler/driver/Fixes.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fcntl.h>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace cake {
namespace {

using nlohmann::json;

// Line 1 "fn main() {", line 2 "\tlet x = bar(1,\t2);", line 3 "  y = 3", line 4 "}".
constexpr std::string_view kSource = "fn main() {\n\tlet x = bar(1,\t2);\n  y = 3\n}\n";

class RenderersTest : public ::testing::Test {
protected:
  void SetUp() override {
    file = sm.addBuffer("k.cake", std::string(kSource));
    uint32_t semi = at("  y = 3\n") + 7; // the '\n' ending line 3
    uint32_t y = at("y = 3");
    error = {"syntax.unexpected",
             Severity::Error,
             {file, semi, semi},
             "expected ';' after expression",
             {{{file, y, y + 1}, "statement starts here"}},
             {{"insert ';'", {{{file, semi, semi}, ";"}}}}};
    uint32_t call = at("bar(");
    warning = {"syntax.number", Severity::Warning, {file, call, call + 9}, "call result is unused", {}, {}};
  }

  uint32_t at(std::string_view needle) const { return static_cast<uint32_t>(kSource.find(needle)); }

  std::string text(const std::vector<Diagnostic> &diags, bool color = false) const {
    std::ostringstream os;
    renderText(os, sm, diags, TextStyle{color});
    return os.str();
  }

  std::string summary(const std::vector<Diagnostic> &diags) const {
    std::ostringstream os;
    renderSummary(os, diags);
    return os.str();
  }

  SourceManager sm;
  FileId file;
  Diagnostic error;
  Diagnostic warning;
};

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

TEST_F(RenderersTest, TextErrorWithNoteAndFixThenWarning) {
  EXPECT_EQ(text({error, warning}), "k.cake:3:8: error: expected ';' after expression [syntax.unexpected]\n"
                                    "  y = 3\n"
                                    "       ^\n"
                                    "k.cake:3:3: note: statement starts here\n"
                                    "  y = 3\n"
                                    "  ^\n"
                                    "fix-it: insert ';'\n"
                                    "  k.cake:3:8: insert \";\"\n"
                                    "k.cake:2:10: warning: call result is unused [syntax.number]\n"
                                    "\tlet x = bar(1,\t2);\n"
                                    // The leading tab is kept so the caret sits under 'b';
                                    // the underline covers the 9 bytes "bar(1,\t2)".
                                    "\t        ^~~~~~~~~\n");
}

// A fix that is not preferred is one reading of an ambiguous intent: shown,
// never applied by --fix; the first preferred one is applied.
TEST_F(RenderersTest, OnlyPreferredFixesAreApplied) {
  Diagnostic d = error;
  d.fixes = {{"alternative", {{{file, at("y"), at("y") + 1}, "z"}}, false},
             {"intended", {{d.range, ";"}}, true}};
  std::string fixed(kSource);
  EXPECT_EQ(applyFixes(fixed, file, {d}), 1u);
  EXPECT_EQ(fixed, "fn main() {\n\tlet x = bar(1,\t2);\n  y = 3;\n}\n");
  d.fixes.pop_back();
  fixed = kSource;
  EXPECT_EQ(applyFixes(fixed, file, {d}), 0u);
  EXPECT_EQ(fixed, kSource);
  EXPECT_NE(text({d}).find("alternative fix-it (not applied by --fix): alternative"), std::string::npos);
  json j = json::parse(renderJson(sm, {d}));
  EXPECT_EQ(j["diagnostics"][0]["fixes"][0]["preferred"], false);
}

TEST_F(RenderersTest, TextSummaryCountsErrorsAndWarnings) {
  EXPECT_EQ(summary({error, warning}), "1 error, 1 warning generated.\n");
  EXPECT_EQ(summary({error, error}), "2 errors generated.\n");
  EXPECT_EQ(summary({warning, warning, warning}), "3 warnings generated.\n");
  EXPECT_EQ(summary({error, error, warning, warning}), "2 errors, 2 warnings generated.\n");
  EXPECT_EQ(summary({}), "");
  Diagnostic remark = warning;
  remark.severity = Severity::Remark;
  EXPECT_EQ(summary({remark}), "");
  // renderText never prints the summary itself.
  EXPECT_EQ(text({}), "");
  EXPECT_EQ(text({error}).find("generated"), std::string::npos);
}

TEST_F(RenderersTest, TextMultiLineRangeUnderlinesToEndOfFirstLine) {
  Diagnostic d{"syntax.unclosed", Severity::Error, {file, at("main"), at("y = 3")}, "unclosed block", {}, {}};
  EXPECT_EQ(text({d}), "k.cake:1:4: error: unclosed block [syntax.unclosed]\n"
                       "fn main() {\n"
                       "   ^~~~~~~~\n");
}

TEST_F(RenderersTest, TextWithoutRangeOmitsLocationAndSnippet) {
  Diagnostic d{"syntax.error-limit", Severity::Error, {}, "too many errors", {{{}, "later errors skipped"}}, {}};
  EXPECT_EQ(text({d}), "error: too many errors [syntax.error-limit]\n"
                       "note: later errors skipped\n");
  d.code.clear();
  EXPECT_EQ(text({d}).substr(0, 22), "error: too many errors");
  EXPECT_EQ(text({d}).find('['), std::string::npos);
}

TEST_F(RenderersTest, TextEditKindsAreDistinguishedAndEscaped) {
  Diagnostic d = warning;
  d.fixes = {
      {"tidy", {{{file, at("let "), at("let ") + 4}, ""}, {{file, at("bar"), at("bar") + 3}, "b\"z\n"}}}};
  EXPECT_NE(text({d}).find("fix-it: tidy\n"
                           "  k.cake:2:2-2:6: remove\n"
                           "  k.cake:2:10-2:13: replace with \"b\\\"z\\n\"\n"),
            std::string::npos)
      << text({d});
  d.fixes = {{"", {{{file, 0, 0}, "// "}}}};
  EXPECT_NE(text({d}).find("fix-it:\n  k.cake:1:1: insert \"// \"\n"), std::string::npos) << text({d});
}

TEST_F(RenderersTest, TextCaretCountsCodePointsAndHandlesEndOfFile) {
  SourceManager sm2;
  FileId f = sm2.addBuffer("u.cake", "a = \"\xC3\xA9\" @"); // no trailing newline
  std::vector<Diagnostic> diags = {{"syntax.character", Severity::Error, {f, 9, 10}, "invalid character", {}, {}},
                                   {"syntax.unexpected", Severity::Error, {f, 10, 10}, "expected expression", {}, {}}};
  std::ostringstream os;
  renderText(os, sm2, diags, TextStyle{});
  // 'é' is two bytes but one column on a terminal: 8 spaces, not 9.
  EXPECT_EQ(os.str(), "u.cake:1:10: error: invalid character [syntax.character]\n"
                      "a = \"\xC3\xA9\" @\n"
                      "        ^\n"
                      "u.cake:1:11: error: expected expression [syntax.unexpected]\n"
                      "a = \"\xC3\xA9\" @\n"
                      "         ^\n");
}

TEST_F(RenderersTest, TextColorOnlyWhenAsked) {
  std::string plain = text({error, warning});
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  std::string colored = text({error, warning}, /*color=*/true);
  EXPECT_NE(colored.find("\x1b[1mk.cake:3:8: \x1b[0m\x1b[1;31merror:\x1b[0m \x1b[1m"), std::string::npos);
  EXPECT_NE(colored.find("\x1b[1;35mwarning:\x1b[0m"), std::string::npos);
  EXPECT_NE(colored.find("\x1b[1;36mnote:\x1b[0m statement starts here\n"), std::string::npos);
  EXPECT_NE(colored.find("\x1b[1;32m       ^\x1b[0m\n"), std::string::npos);
  EXPECT_NE(colored.find("\x1b[1;32mfix-it:\x1b[0m"), std::string::npos);
}

/// Sets or unsets one environment variable for a test's lifetime.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name_;
  std::optional<std::string> old_;
};

TEST(ShouldUseColor, FalseForPipes) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ScopedEnv term("TERM", "xterm-256color");
  ScopedEnv noColor("NO_COLOR", nullptr);
  EXPECT_FALSE(shouldUseColor(fds[1]));
  close(fds[0]);
  close(fds[1]);
}

TEST(ShouldUseColor, TerminalHonoursTermAndNoColor) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
    GTEST_SKIP() << "no pseudo-terminal available";
  int tty = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(tty, 0);
  {
    ScopedEnv term("TERM", "xterm-256color");
    ScopedEnv noColor("NO_COLOR", nullptr);
    EXPECT_TRUE(shouldUseColor(tty));
    {
      ScopedEnv set("NO_COLOR", "1");
      EXPECT_FALSE(shouldUseColor(tty));
    }
    {
      ScopedEnv empty("NO_COLOR", ""); // no-color.org: an empty value does not count
      EXPECT_TRUE(shouldUseColor(tty));
    }
    {
      ScopedEnv dumb("TERM", "dumb");
      EXPECT_FALSE(shouldUseColor(tty));
    }
    {
      ScopedEnv unset("TERM", nullptr);
      EXPECT_FALSE(shouldUseColor(tty));
    }
  }
  close(tty);
  close(master);
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

json position(uint32_t line, uint32_t column, uint32_t offset) {
  return {{"line", line}, {"column", column}, {"offset", offset}};
}

TEST_F(RenderersTest, JsonFields) {
  std::string out = renderJson(sm, {error, warning});
  json doc = json::parse(out);
  EXPECT_EQ(doc["version"], 1);
  ASSERT_EQ(doc["diagnostics"].size(), 2u);

  const json &e = doc["diagnostics"][0];
  EXPECT_EQ(e["code"], "syntax.unexpected");
  EXPECT_EQ(e["severity"], "error");
  EXPECT_EQ(e["message"], "expected ';' after expression");
  EXPECT_EQ(e["file"], "k.cake");
  EXPECT_EQ(e["range"]["start"], position(3, 8, 39));
  EXPECT_EQ(e["range"]["end"], position(3, 8, 39));
  ASSERT_EQ(e["notes"].size(), 1u);
  EXPECT_EQ(e["notes"][0]["message"], "statement starts here");
  EXPECT_EQ(e["notes"][0]["file"], "k.cake");
  EXPECT_EQ(e["notes"][0]["range"]["start"], position(3, 3, 34));
  EXPECT_EQ(e["notes"][0]["range"]["end"], position(3, 4, 35));
  ASSERT_EQ(e["fixes"].size(), 1u);
  EXPECT_EQ(e["fixes"][0]["title"], "insert ';'");
  ASSERT_EQ(e["fixes"][0]["edits"].size(), 1u);
  EXPECT_EQ(e["fixes"][0]["edits"][0]["file"], "k.cake");
  EXPECT_EQ(e["fixes"][0]["edits"][0]["range"]["start"], position(3, 8, 39));
  EXPECT_EQ(e["fixes"][0]["edits"][0]["newText"], ";");

  const json &w = doc["diagnostics"][1];
  EXPECT_EQ(w["severity"], "warning");
  EXPECT_EQ(w["range"]["start"], position(2, 10, 21));
  EXPECT_EQ(w["range"]["end"], position(2, 19, 30)); // exclusive; columns are bytes
  EXPECT_EQ(w["notes"], json::array());
  EXPECT_EQ(w["fixes"], json::array());

  EXPECT_EQ(doc["summary"], json({{"errors", 1}, {"warnings", 1}}));
}

TEST_F(RenderersTest, JsonLayoutIsFixed) {
  std::string out = renderJson(sm, {warning});
  EXPECT_TRUE(
      out.starts_with("{\n  \"version\": 1,\n  \"diagnostics\": [\n    {\n      \"code\": \"syntax.number\",\n"));
  EXPECT_EQ(out.substr(out.size() - 2), "}\n");
  // Key order is the documented one, not alphabetical.
  EXPECT_LT(out.find("\"code\""), out.find("\"severity\""));
  EXPECT_LT(out.find("\"severity\""), out.find("\"message\""));
  EXPECT_LT(out.find("\"message\""), out.find("\"file\""));
  EXPECT_LT(out.find("\"line\""), out.find("\"column\""));
  EXPECT_LT(out.find("\"column\""), out.find("\"offset\""));
  EXPECT_LT(out.find("\"diagnostics\""), out.find("\"summary\""));
  EXPECT_EQ(renderJson(sm, {}), "{\n  \"version\": 1,\n  \"diagnostics\": [],\n"
                                "  \"summary\": {\n    \"errors\": 0,\n    \"warnings\": 0\n  }\n}\n");
  EXPECT_EQ(diagnosticsToJson(sm, {warning}).dump(2) + "\n", out);
}

TEST_F(RenderersTest, JsonIsByteIdenticalAndOrderedOnlyBySorting) {
  std::vector<Diagnostic> forward = {error, warning};
  std::vector<Diagnostic> backward = {warning, error};
  EXPECT_EQ(renderJson(sm, forward), renderJson(sm, forward));
  // The renderer keeps the caller's order...
  EXPECT_NE(renderJson(sm, forward), renderJson(sm, backward));
  // ...so callers sort first; then any input order gives the same bytes.
  sortDiagnostics(forward);
  sortDiagnostics(backward);
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(renderJson(sm, forward), renderJson(sm, backward));
  EXPECT_EQ(forward[0].code, "syntax.number"); // line 2 comes before line 3
}

TEST_F(RenderersTest, JsonInvalidRangesAreNullAndBadUtf8IsReplaced) {
  Diagnostic d{"syntax.error-limit", Severity::Error, {}, "bad \xFF byte", {{{}, "no place"}}, {}};
  json doc = json::parse(renderJson(sm, {d}));
  const json &j = doc["diagnostics"][0];
  EXPECT_TRUE(j["file"].is_null());
  EXPECT_TRUE(j["range"].is_null());
  EXPECT_TRUE(j["notes"][0]["range"].is_null());
  EXPECT_EQ(j["message"], "bad \xEF\xBF\xBD byte"); // U+FFFD
}

//===----------------------------------------------------------------------===//
// SARIF
//===----------------------------------------------------------------------===//

json region(uint32_t startLine, uint32_t startColumn, uint32_t endLine, uint32_t endColumn) {
  return {
      {"startLine", startLine}, {"startColumn", startColumn}, {"endLine", endLine}, {"endColumn", endColumn}};
}

TEST_F(RenderersTest, SarifLogAndDriver) {
  json log = json::parse(renderSarif(sm, {error, warning}, "0.3.1"));
  EXPECT_EQ(log["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
  EXPECT_EQ(log["version"], "2.1.0");
  ASSERT_EQ(log["runs"].size(), 1u);
  const json &run = log["runs"][0];
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  const json &driver = run["tool"]["driver"];
  EXPECT_EQ(driver["name"], "cake");
  EXPECT_EQ(driver["version"], "0.3.1");
  EXPECT_FALSE(driver.contains("informationUri")) << "no public home page: left out, not invented";

  // Only the rules in use, in code order.
  ASSERT_EQ(driver["rules"].size(), 2u);
  const json &rule = driver["rules"][1];
  const RuleInfo *info = findRule("syntax.unexpected");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(rule["id"], "syntax.unexpected");
  EXPECT_EQ(rule["name"], "UnexpectedToken");
  EXPECT_EQ(rule["shortDescription"]["text"], std::string(info->title));
  EXPECT_EQ(rule["fullDescription"]["text"], std::string(info->rationale));
  EXPECT_EQ(rule["defaultConfiguration"]["level"], "error");
  EXPECT_FALSE(rule.contains("helpUri"));
  EXPECT_EQ(driver["rules"][0]["id"], "syntax.number");

  json other = json::parse(renderSarif(sm, {}, "", "https://example.org/cake"));
  EXPECT_FALSE(other["runs"][0]["tool"]["driver"].contains("version"));
  EXPECT_EQ(other["runs"][0]["tool"]["driver"]["informationUri"], "https://example.org/cake/");
  EXPECT_EQ(other["runs"][0]["tool"]["driver"]["rules"], json::array());
  json linked = json::parse(renderSarif(sm, {error}, "", "https://example.org/cake"));
  EXPECT_EQ(linked["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"], "https://example.org/cake/docs/rules/syntax.unexpected.md");
  EXPECT_EQ(other["runs"][0]["results"], json::array());
}

TEST_F(RenderersTest, SarifResults) {
  // The error comes last: ruleIndex follows the rules array (in code order), not the input.
  json run = json::parse(renderSarif(sm, {warning, error}, "1"))["runs"][0];
  ASSERT_EQ(run["results"].size(), 2u);

  const json &w = run["results"][0];
  EXPECT_EQ(w["ruleId"], "syntax.number");
  EXPECT_EQ(w["ruleIndex"], 0);
  EXPECT_EQ(w["level"], "warning");
  EXPECT_EQ(w["message"]["text"], "call result is unused");
  ASSERT_EQ(w["locations"].size(), 1u);
  EXPECT_EQ(w["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "k.cake");
  EXPECT_EQ(w["locations"][0]["physicalLocation"]["region"], region(2, 10, 2, 19));
  EXPECT_FALSE(w.contains("relatedLocations"));
  EXPECT_FALSE(w.contains("fixes"));

  const json &e = run["results"][1];
  EXPECT_EQ(e["ruleId"], "syntax.unexpected");
  EXPECT_EQ(e["ruleIndex"], 1);
  EXPECT_EQ(e["level"], "error");
  EXPECT_EQ(e["locations"][0]["physicalLocation"]["region"], region(3, 8, 3, 8));
  ASSERT_EQ(e["relatedLocations"].size(), 1u);
  EXPECT_EQ(e["relatedLocations"][0]["id"], 0);
  EXPECT_EQ(e["relatedLocations"][0]["message"]["text"], "statement starts here");
  EXPECT_EQ(e["relatedLocations"][0]["physicalLocation"]["region"], region(3, 3, 3, 4));

  ASSERT_EQ(e["fixes"].size(), 1u);
  const json &fix = e["fixes"][0];
  EXPECT_EQ(fix["description"]["text"], "insert ';'");
  ASSERT_EQ(fix["artifactChanges"].size(), 1u);
  EXPECT_EQ(fix["artifactChanges"][0]["artifactLocation"]["uri"], "k.cake");
  const json &rep = fix["artifactChanges"][0]["replacements"];
  ASSERT_EQ(rep.size(), 1u);
  EXPECT_EQ(rep[0]["deletedRegion"], region(3, 8, 3, 8));
  EXPECT_EQ(rep[0]["insertedContent"]["text"], ";");
}

TEST_F(RenderersTest, SarifEdgeCases) {
  FileId other = sm.addBuffer("/src/my dir/b.cake", "x\xC3\xA9z\n");
  Diagnostic d{"Z999", Severity::Remark, {other, 3, 4}, "unknown rule", {{{}, "nowhere"}}, {}};
  d.fixes = {{"two files", {{{other, 0, 1}, ""}, {{file, 5, 5}, "A"}, {{file, 0, 2}, "B"}, {{}, "dropped"}}},
             {"nothing valid", {{{}, "x"}}}};
  json r = json::parse(renderSarif(sm, {d}, "1"))["runs"][0]["results"][0];
  EXPECT_EQ(r["ruleId"], "Z999");
  EXPECT_FALSE(r.contains("ruleIndex")); // not in the catalog, so no rule to index
  EXPECT_EQ(r["level"], "note");
  const json &loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "file:///src/my%20dir/b.cake");
  EXPECT_EQ(loc["region"], region(1, 3, 1, 4)); // 'z' is byte 3 but code point 2
  EXPECT_EQ(r["relatedLocations"][0], json({{"id", 0}, {"message", {{"text", "nowhere"}}}}));

  ASSERT_EQ(r["fixes"].size(), 1u);
  const json &changes = r["fixes"][0]["artifactChanges"];
  ASSERT_EQ(changes.size(), 2u); // files in order of first use
  EXPECT_EQ(changes[0]["artifactLocation"]["uri"], "file:///src/my%20dir/b.cake");
  EXPECT_FALSE(changes[0]["replacements"][0].contains("insertedContent")); // a deletion
  EXPECT_EQ(changes[1]["artifactLocation"]["uri"], "k.cake");
  ASSERT_EQ(changes[1]["replacements"].size(), 2u); // sorted by position
  EXPECT_EQ(changes[1]["replacements"][0]["insertedContent"]["text"], "B");
  EXPECT_EQ(changes[1]["replacements"][1]["deletedRegion"], region(1, 6, 1, 6));
}

TEST_F(RenderersTest, SarifIsByteIdentical) {
  std::vector<Diagnostic> diags = {error, warning};
  EXPECT_EQ(renderSarif(sm, diags, "1"), renderSarif(sm, diags, "1"));
  std::string out = renderSarif(sm, diags, "1");
  EXPECT_TRUE(out.starts_with("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"));
  EXPECT_EQ(out.back(), '\n');
}

TEST(SarifArtifactUri, EncodesPaths) {
  EXPECT_EQ(sarifArtifactUri("kernels/gemm.cake"), "kernels/gemm.cake");
  EXPECT_EQ(sarifArtifactUri("/a b/k.cake"), "file:///a%20b/k.cake");
  EXPECT_EQ(sarifArtifactUri("<stdin>"), "%3Cstdin%3E");
  EXPECT_EQ(sarifArtifactUri("c:d#e"), "c%3Ad%23e"); // not a scheme, not a fragment
}

//===----------------------------------------------------------------------===//
// applyEdits
//===----------------------------------------------------------------------===//

TEST(ApplyEdits, AppliesNonOverlappingEditsInAnyOrder) {
  std::string s = "abcdef";
  FileId f{1};
  EXPECT_TRUE(applyEdits(s, {{{f, 4, 6}, "XY"}, {{f, 0, 1}, ""}, {{f, 1, 1}, "+"}, {{f, 2, 3}, "C"}}));
  EXPECT_EQ(s, "+bCdXY");
}

TEST(ApplyEdits, RejectsOverlapsAndOutOfRange) {
  FileId f{1};
  std::string s = "abcdef";
  EXPECT_FALSE(applyEdits(s, {{{f, 1, 3}, "X"}, {{f, 2, 4}, "Y"}}));
  EXPECT_EQ(s, "aXdef"); // the first edit applies, the overlapping one is skipped
  s = "abc";
  EXPECT_FALSE(applyEdits(s, {{{f, 2, 9}, "X"}}));
  EXPECT_EQ(s, "abc");
}

TEST_F(RenderersTest, ApplyingTheFixRepairsTheLine) {
  std::string s(kSource);
  EXPECT_TRUE(applyEdits(s, error.fixes[0].edits));
  EXPECT_EQ(s, "fn main() {\n\tlet x = bar(1,\t2);\n  y = 3;\n}\n");
}

} // namespace
} // namespace cake
