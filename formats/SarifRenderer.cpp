//===- SarifRenderer.cpp - Diagnostics as SARIF 2.1.0 ---------------------===//
//
// Part of CAKE. See SarifRenderer.h; field meanings follow the OASIS SARIF
// 2.1.0 specification.
//
//===----------------------------------------------------------------------===//
#include "formats/SarifRenderer.h"

#include "diagnostics/Catalog.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

namespace cake {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kSchemaUri = "https://json.schemastore.org/sarif-2.1.0.json";

const char *sarifLevel(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
  case Severity::Remark:
    return "note";
  }
  return "error";
}

/// "unexpected token" -> "UnexpectedToken": SARIF wants rule names that read
/// like identifiers.
std::string pascalCase(std::string_view title) {
  std::string out;
  bool upper = true;
  for (char c : title) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string withSlash(std::string_view uri) {
  std::string out(uri);
  if (!out.empty() && out.back() != '/')
    out += '/';
  return out;
}

ordered_json textMessage(std::string_view text) {
  ordered_json j;
  j["text"] = text;
  return j;
}

/// The 1-based column of \p lc (a byte column) in Unicode code points: UTF-8
/// continuation bytes do not start a code point.
uint32_t codePointColumn(const SourceManager &sm, FileId file, LineColumn lc) {
  std::string_view text = sm.text(file);
  uint32_t begin = sm.lineStart(file, lc.line);
  uint32_t end = begin + lc.column - 1;
  uint32_t column = 1;
  for (uint32_t i = begin; i < end; ++i)
    column += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  return column;
}

ordered_json region(const SourceManager &sm, SourceRange range) {
  uint32_t endOffset = std::max(range.begin, range.end);
  LineColumn start = sm.lineColumn(range.file, range.begin);
  LineColumn end = sm.lineColumn(range.file, endOffset);
  ordered_json j;
  j["startLine"] = start.line;
  j["startColumn"] = codePointColumn(sm, range.file, start);
  j["endLine"] = end.line;
  j["endColumn"] = codePointColumn(sm, range.file, end);
  return j;
}

ordered_json artifactLocation(const SourceManager &sm, FileId file) {
  ordered_json j;
  j["uri"] = sarifArtifactUri(sm.name(file));
  return j;
}

ordered_json physicalLocation(const SourceManager &sm, SourceRange range) {
  ordered_json j;
  j["artifactLocation"] = artifactLocation(sm, range.file);
  j["region"] = region(sm, range);
  return j;
}

/// The rules of the catalog that \p diags use, in catalog (code) order.
std::vector<const RuleInfo *> usedRules(const std::vector<Diagnostic> &diags) {
  std::set<std::string_view> codes;
  for (const Diagnostic &d : diags)
    codes.insert(d.code);
  std::vector<const RuleInfo *> rules;
  for (const RuleInfo &r : ruleCatalog())
    if (codes.count(r.code))
      rules.push_back(&r);
  return rules;
}

ordered_json ruleToJson(const RuleInfo &r, const std::string &home) {
  ordered_json config;
  config["level"] = sarifLevel(r.severity);
  ordered_json j;
  j["id"] = r.code;
  j["name"] = pascalCase(r.title);
  j["shortDescription"] = textMessage(r.title);
  j["fullDescription"] = textMessage(r.rationale);
  j["defaultConfiguration"] = std::move(config);
  if (!home.empty())
    j["helpUri"] = home + "docs/rules/" + std::string(r.code) + ".md";
  j["properties"]["tags"] = ordered_json::array({r.family});
  return j;
}

ordered_json relatedLocation(const SourceManager &sm, const Note &n, int id) {
  ordered_json j;
  j["id"] = id;
  if (n.range.valid())
    j["physicalLocation"] = physicalLocation(sm, n.range);
  j["message"] = textMessage(n.message);
  return j;
}

ordered_json replacement(const SourceManager &sm, const TextEdit &e) {
  ordered_json j;
  j["deletedRegion"] = region(sm, e.range);
  if (!e.newText.empty())
    j["insertedContent"] = textMessage(e.newText);
  return j;
}

/// A SARIF fix: the edits grouped by file (files in order of first use,
/// edits by position). Edits without a valid range cannot be expressed and
/// are left out; a fix left with no edit is null.
ordered_json fixToJson(const SourceManager &sm, const Fix &f) {
  // Valid edits as (range, original index): sorting the pairs orders by
  // position and keeps equal ranges in their given order.
  std::vector<std::pair<SourceRange, size_t>> edits;
  std::vector<FileId> files;
  for (size_t i = 0; i < f.edits.size(); ++i) {
    SourceRange r = f.edits[i].range;
    if (!r.valid())
      continue;
    edits.emplace_back(r, i);
    if (std::find(files.begin(), files.end(), r.file) == files.end())
      files.push_back(r.file);
  }
  if (edits.empty())
    return nullptr;
  std::sort(edits.begin(), edits.end());
  ordered_json changes = ordered_json::array();
  for (FileId file : files) {
    ordered_json change;
    change["artifactLocation"] = artifactLocation(sm, file);
    change["replacements"] = ordered_json::array();
    for (const auto &[range, index] : edits)
      if (range.file == file)
        change["replacements"].push_back(replacement(sm, f.edits[index]));
    changes.push_back(std::move(change));
  }
  ordered_json j;
  if (!f.title.empty())
    j["description"] = textMessage(f.title);
  j["artifactChanges"] = std::move(changes);
  return j;
}

ordered_json resultToJson(const SourceManager &sm, const Diagnostic &d,
                          const std::map<std::string_view, size_t> &ruleIndex) {
  ordered_json j;
  if (!d.code.empty())
    j["ruleId"] = d.code;
  if (auto it = ruleIndex.find(d.code); it != ruleIndex.end())
    j["ruleIndex"] = it->second;
  j["level"] = sarifLevel(d.severity);
  j["message"] = textMessage(d.message);
  if (d.range.valid())
    j["locations"] = ordered_json::array({{{"physicalLocation", physicalLocation(sm, d.range)}}});
  for (size_t i = 0; i < d.notes.size(); ++i)
    j["relatedLocations"].push_back(relatedLocation(sm, d.notes[i], static_cast<int>(i)));
  for (const Fix &f : d.fixes)
    if (ordered_json fix = fixToJson(sm, f); !fix.is_null())
      j["fixes"].push_back(std::move(fix));
  return j;
}

ordered_json driverToJson(const std::vector<const RuleInfo *> &rules, std::string_view toolVersion,
                          const std::string &home) {
  ordered_json j;
  j["name"] = "cake";
  if (!toolVersion.empty())
    j["version"] = toolVersion;
  if (!home.empty())
    j["informationUri"] = home;
  j["rules"] = ordered_json::array();
  for (const RuleInfo *r : rules)
    j["rules"].push_back(ruleToJson(*r, home));
  return j;
}

} // namespace

std::string sarifArtifactUri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = !path.empty() && path.front() == '/' ? "file://" : "";
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

std::string renderSarif(const SourceManager &sm, const std::vector<Diagnostic> &diags,
                        std::string_view toolVersion, std::string_view homeUri) {
  std::string home = withSlash(homeUri);
  std::vector<const RuleInfo *> rules = usedRules(diags);
  std::map<std::string_view, size_t> ruleIndex;
  for (size_t i = 0; i < rules.size(); ++i)
    ruleIndex[rules[i]->code] = i;

  ordered_json run;
  run["tool"]["driver"] = driverToJson(rules, toolVersion, home);
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = ordered_json::array();
  for (const Diagnostic &d : diags)
    run["results"].push_back(resultToJson(sm, d, ruleIndex));

  ordered_json log;
  log["$schema"] = kSchemaUri;
  log["version"] = "2.1.0";
  log["runs"] = ordered_json::array({std::move(run)});
  return log.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

} // namespace cake
