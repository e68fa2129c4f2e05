//===- JsonRenderer.cpp - Diagnostics as JSON -----------------------------===//
//
// Part of CAKE. See JsonRenderer.h for the document layout.
//
//===----------------------------------------------------------------------===//
#include "formats/JsonRenderer.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace cake {
namespace {

using nlohmann::ordered_json;

ordered_json position(const SourceManager &sm, FileId file, uint32_t offset) {
  LineColumn lc = sm.lineColumn(file, offset);
  // lineColumn clamps past-the-end offsets; keep the offset consistent with it.
  uint32_t clamped = sm.lineStart(file, lc.line) + lc.column - 1;
  ordered_json j;
  j["line"] = lc.line;
  j["column"] = lc.column;
  j["offset"] = clamped;
  return j;
}

/// Adds "file" and "range" to \p j (both null for an invalid range).
void addLocation(ordered_json &j, const SourceManager &sm, SourceRange range) {
  if (!range.valid()) {
    j["file"] = nullptr;
    j["range"] = nullptr;
    return;
  }
  j["file"] = sm.name(range.file);
  ordered_json r;
  r["start"] = position(sm, range.file, range.begin);
  r["end"] = position(sm, range.file, std::max(range.begin, range.end));
  j["range"] = std::move(r);
}

ordered_json noteToJson(const SourceManager &sm, const Note &n) {
  ordered_json j;
  j["message"] = n.message;
  addLocation(j, sm, n.range);
  return j;
}

ordered_json fixToJson(const SourceManager &sm, const Fix &f) {
  ordered_json edits = ordered_json::array();
  for (const TextEdit &e : f.edits) {
    ordered_json edit;
    addLocation(edit, sm, e.range);
    edit["newText"] = e.newText;
    edits.push_back(std::move(edit));
  }
  ordered_json j;
  j["title"] = f.title;
  j["preferred"] = f.preferred;
  j["edits"] = std::move(edits);
  return j;
}

ordered_json diagnosticToJson(const SourceManager &sm, const Diagnostic &d) {
  ordered_json j;
  j["code"] = d.code;
  j["severity"] = severityName(d.severity);
  j["message"] = d.message;
  addLocation(j, sm, d.range);
  j["notes"] = ordered_json::array();
  for (const Note &n : d.notes)
    j["notes"].push_back(noteToJson(sm, n));
  j["fixes"] = ordered_json::array();
  for (const Fix &f : d.fixes)
    j["fixes"].push_back(fixToJson(sm, f));
  return j;
}

} // namespace

ordered_json diagnosticsToJson(const SourceManager &sm, const std::vector<Diagnostic> &diags) {
  ordered_json list = ordered_json::array();
  size_t warnings = 0;
  for (const Diagnostic &d : diags) {
    list.push_back(diagnosticToJson(sm, d));
    warnings += d.severity == Severity::Warning;
  }
  ordered_json summary;
  summary["errors"] = countErrors(diags);
  summary["warnings"] = warnings;

  ordered_json doc;
  doc["version"] = kJsonFormatVersion;
  doc["diagnostics"] = std::move(list);
  doc["summary"] = std::move(summary);
  return doc;
}

std::string renderJson(const SourceManager &sm, const std::vector<Diagnostic> &diags) {
  return diagnosticsToJson(sm, diags).dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

} // namespace cake
