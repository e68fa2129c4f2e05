//===- Diagnostics.cpp - Pushed and pulled diagnostics --------------------===//
//
// CAKE diagnostics become LSP diagnostics with their code, a link to the
// rule's page, related information for notes (or, for clients without
// relatedInformation such as eglot 1.9, one hint per note), and their fixes
// in `data` so that code actions can be answered without re-checking. The
// links are `<rulesBaseUri><code>.md`: initializationOptions.rulesBaseUri,
// else the pages installed beside the binary, found when the server starts.
// A finding in the manifest of a file with parameters (a value outside its
// parameter's domain) is shown on the document, at its first note there (the
// parameter's declaration), with the manifest's place as related
// information.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"

#include <filesystem>

namespace cake::lsp {
namespace {

int lspSeverity(Severity s) {
  switch (s) {
  case Severity::Error:
    return 1;
  case Severity::Warning:
    return 2;
  case Severity::Remark:
    return 3;
  case Severity::Note:
    return 4;
  }
  return 1;
}


std::vector<DiagnosticFix> lspFixes(std::string_view text, const std::vector<Fix> &fixes, Encoding enc) {
  std::vector<DiagnosticFix> out;
  for (const Fix &f : fixes) {
    DiagnosticFix fix{f.title, {}, f.preferred};
    for (const TextEdit &e : f.edits)
      fix.edits.push_back({rangeOf(text, e.range, enc), e.newText});
    out.push_back(std::move(fix));
  }
  return out;
}

/// \p r as a location: in the document, or in another buffer of the
/// analysis (a manifest), by its path.
Location locationOf(const Analysis &a, const std::string &uri, SourceRange r, Encoding enc) {
  if (r.file == a.file)
    return {uri, rangeOf(a.text(), r, enc)};
  return {pathToUri(a.sm.name(r.file)), rangeOf(a.sm.text(r.file), r, enc)};
}

/// "kmeans.manifest.json:12": a place in another file, for a message.
std::string placeOf(const Analysis &a, SourceRange r) {
  std::string name = a.sm.name(r.file);
  return name.substr(name.rfind('/') + 1) + ":" + std::to_string(a.sm.lineColumn(r.file, r.begin).line);
}

} // namespace

std::string defaultRulesBaseUri() {
  // Resolved where the binary runs, not where it was built (issue #16: the
  // links pointed at the build machine's source tree): an installed
  // `PREFIX/bin/cake` has its pages in PREFIX/share/doc/cake/rules
  // (cli/CMakeLists.txt installs them there), a build folder inside the
  // source tree has them in ../docs/rules.
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    return "";
  std::filesystem::path bin = self.parent_path();
  for (const std::filesystem::path &dir :
       {bin / ".." / "share" / "doc" / "cake" / "rules", bin / ".." / "docs" / "rules"})
    if (std::filesystem::is_directory(dir, ec))
      return pathToUri(std::filesystem::weakly_canonical(dir, ec).string()) + "/";
  return "";
}

std::string rulePageUri(const State &state, const std::string &code) {
  return state.rulesBaseUri.empty() ? "" : state.rulesBaseUri + code + ".md";
}

std::vector<LspDiagnostic> lspDiagnostics(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check, /*tree=*/false); // diagnostics alone need no tree
  std::string_view text = analysis->sm.text(analysis->file);
  Encoding enc = state.caps.encoding;
  std::vector<LspDiagnostic> out;
  for (const Diagnostic &d : analysis->result.diagnostics) {
    LspDiagnostic diag;
    std::vector<Note> notes = d.notes;
    SourceRange at = d.range;
    if (at.file != analysis->file) { // in the manifest
      at = {analysis->file, 0, 0};
      for (const Note &n : d.notes)
        if (n.range.file == analysis->file) {
          at = n.range;
          break;
        }
      notes.insert(notes.begin(), {d.range, "the manifest's value"});
    }
    diag.range = rangeOf(text, at, enc);
    diag.severity = lspSeverity(d.severity);
    diag.code = d.code;
    diag.message = d.message;
    if (state.caps.codeDescription)
      diag.codeDescription = rulePageUri(state, d.code);
    if (d.range.file == analysis->file) // a finding in the manifest is not this document's to fix
      diag.fixes = lspFixes(text, d.fixes, enc);
    std::vector<LspDiagnostic> hints;
    for (const Note &n : notes) {
      if (!n.range.valid())
        continue;
      bool here = n.range.file == analysis->file;
      if (state.caps.relatedInformation)
        diag.related.push_back({locationOf(*analysis, uri, n.range, enc), n.message});
      else {
        LspDiagnostic hint;
        hint.range = here ? rangeOf(text, n.range, enc) : diag.range;
        hint.severity = 4;
        hint.code = d.code;
        hint.message = "note: " + n.message + (here ? "" : " (" + placeOf(*analysis, n.range) + ")") + " (" +
                       d.message + ")";
        hints.push_back(std::move(hint));
      }
    }
    out.push_back(std::move(diag));
    for (LspDiagnostic &h : hints)
      out.push_back(std::move(h));
  }
  return out;
}

} // namespace cake::lsp
