//===- Documents.cpp - Open documents and their analyses ------------------===//
#include "lsp/core/Documents.h"

#include "compiler/pipeline/Pipeline.h"
#include "compiler/sema/Sema.h"
#include "compiler/syntax/Parser.h"
#include "formats/Manifest.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace cake::lsp {

void DocumentStore::open(const std::string &uri, int64_t version, std::string text) {
  normalizeLoneCarriageReturns(text); // positions count a lone CR as a line end, as the client does
  docs_[uri] = Document{uri, version, std::move(text), nullptr, nullptr, std::nullopt};
}

void DocumentStore::change(const std::string &uri, int64_t version, const std::vector<ContentChange> &changes,
                           Encoding enc) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "didChange for a document that is not open: " + uri);
  std::string text = it->second.text;
  for (size_t i = 0; i < changes.size(); ++i) {
    const ContentChange &c = changes[i];
    if (!c.range) {
      text = c.text;
      continue;
    }
    uint32_t begin = offsetAt(text, c.range->start, enc), end = offsetAt(text, c.range->end, enc);
    if (end < begin)
      throw LspError(ErrorCode::InvalidParams,
                     "params.contentChanges[" + std::to_string(i) + "].range ends before it starts");
    text.replace(begin, end - begin, c.text);
  }
  normalizeLoneCarriageReturns(text);
  it->second.text = std::move(text);
  it->second.version = version;
  if (it->second.analysis)
    it->second.previous = std::move(it->second.analysis);
  it->second.analysis.reset();
}

void DocumentStore::close(const std::string &uri) { docs_.erase(uri); }

void DocumentStore::select(const std::string &uri, std::string name) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  it->second.instantiation = std::move(name);
  it->second.analysis.reset();
  it->second.previous.reset();
}

namespace {

/// The kernels of a module, in order.
std::vector<const syntax::KernelDecl *> kernelsOf(const syntax::Module &m) {
  std::vector<const syntax::KernelDecl *> out;
  for (const syntax::StmtPtr &s : m.items.stmts)
    if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get()))
      out.push_back(k);
  return out;
}

bool contains(SourceRange r, uint32_t at) { return r.begin <= at && at <= r.end; }

/// The kernels of a tree as the next edit compares them.
std::vector<KernelSpan> spansOf(const syntax::Module &m) {
  std::vector<KernelSpan> out;
  for (const syntax::KernelDecl *k : kernelsOf(m))
    out.push_back({k->name.name, k->range});
  return out;
}

/// checkSource's findings for the new text of a document, from its previous
/// analysis \p prev and a check of the one kernel the change is in, or
/// nullopt (then the whole file is checked). A change inside one kernel
/// leaves the findings of the others as they were, moved by the change's
/// length: rules are functions of one kernel (docs/architecture.md,
/// invariant 12), and a kernel's checks see the others only through their
/// names. So the new findings are the previous ones of the other kernels
/// plus those of checkSource on a copy of the text in which every other
/// kernel is blanked out (spaces, its newlines kept, so every offset and
/// line is the same), for that kernel and for the module's other items.
/// This holds, and is used, only when: the previous analysis found no
/// error (with one, sema's errors would hold back every kernel's verifier)
/// and neither does the new check; the changed bytes lie inside one kernel,
/// its first and last bytes unchanged; the check parses that kernel, alone
/// and ending where the old one ended (moved by the change), so the whole
/// text parses as the old tree with that kernel replaced (the text before
/// it is the same, and after its closing brace the lexer and the parser
/// are in the state they were in); the kernel names are distinct and the
/// kernel spells no other kernel's name; the file has no parameters or
/// instantiations and findings of the lowering are not asked for. The whole
/// text is not parsed here (that parse was most of a 50,000-line edit): the
/// tree is made when a feature asks (Analysis::completeTree). \p spans
/// receives the new text's kernels. Issue #16: a 50,000-line file cost
/// 1.15 s per edit, the check of all of its 800 kernels.
std::optional<CheckResult> checkIncrementally(const Analysis &next, const Analysis &prev, const CheckOptions &check,
                                              size_t &reused, std::vector<KernelSpan> &spans) {
  if (!check.instantiations.empty() || !prev.instantiations.empty() || prev.target != check.target ||
      prev.verify != check.verify || countErrors(prev.result.diagnostics) || prev.parameters)
    return std::nullopt;
  std::string_view now = next.text(), before = prev.text();
  const std::vector<KernelSpan> &old = prev.kernels;
  if (old.empty())
    return std::nullopt;
  // The changed bytes: [p, oldEnd) of the old text became [p, oldEnd + delta).
  size_t p = 0, limit = std::min(now.size(), before.size());
  while (p < limit && now[p] == before[p])
    ++p;
  size_t suffix = 0;
  while (suffix < limit - p && now[now.size() - 1 - suffix] == before[before.size() - 1 - suffix])
    ++suffix;
  auto oldEnd = static_cast<uint32_t>(before.size() - suffix);
  auto delta = static_cast<int64_t>(now.size()) - static_cast<int64_t>(before.size());
  const bool unchanged = p == now.size() && p == before.size();
  std::optional<size_t> changed;
  std::set<std::string_view> names;
  for (size_t i = 0; i < old.size(); ++i) {
    if (!names.insert(old[i].name).second)
      return std::nullopt;
    if (!unchanged && old[i].range.begin < p && oldEnd < old[i].range.end)
      changed = i;
  }
  if (!unchanged && !changed)
    return std::nullopt; // a change outside every kernel (a constant, a comment between kernels), or across two
  spans = old;
  for (KernelSpan &k : spans)
    if (changed && k.range.begin > oldEnd)
      k.range.begin = uint32_t(k.range.begin + delta), k.range.end = uint32_t(k.range.end + delta);
  if (changed)
    spans[*changed].range.end = uint32_t(spans[*changed].range.end + delta);
  reused = old.size() - (changed ? 1 : 0);
  SourceRange mine = changed ? spans[*changed].range : SourceRange{};
  if (changed) {
    // a kernel that spells another's name (a let that hides it, a use) sees it: checked whole
    std::string_view body = now.substr(mine.begin, mine.size());
    for (size_t i = 0; i < body.size();) {
      auto word = [&](size_t k) { return k < body.size() && (std::isalnum(static_cast<unsigned char>(body[k])) || body[k] == '_'); };
      if (!word(i)) {
        ++i;
        continue;
      }
      size_t j = i;
      while (word(j))
        ++j;
      if (std::string_view w = body.substr(i, j - i); w != old[*changed].name && names.count(w))
        return std::nullopt;
      i = j;
    }
  }
  std::string blanked(now);
  for (size_t i = 0; i < spans.size(); ++i)
    if (!changed || i != *changed)
      for (uint32_t at = spans[i].range.begin; at < spans[i].range.end; ++at)
        if (blanked[at] != '\n')
          blanked[at] = ' ';
  SourceManager alone;
  FileId aloneFile = alone.addBuffer(next.sm.name(next.file), std::move(blanked));
  if (!(aloneFile == next.file))
    return std::nullopt; // its findings must name the document's buffer
  CheckResult part = pipeline::checkFile(alone, aloneFile, check, /*withLowering=*/false);
  // parameters could only have come with the changed kernel (a `when` clause), which `part` holds
  if (countErrors(part.diagnostics) || hasParameters(part.module))
    return std::nullopt;
  std::vector<KernelSpan> parsed = spansOf(part.module);
  if (changed ? parsed.size() != 1 || !(parsed[0] == spans[*changed]) : !parsed.empty())
    return std::nullopt; // the kernel did not parse alone, or not to where it ended before
  CheckResult r;
  // the previous findings of the other kernels, moved past the change
  bool moved = true;
  auto move = [&](SourceRange &r) {
    if (!(r.file == prev.file))
      return;
    if (r.begin >= oldEnd && r.end >= oldEnd)
      r.begin += delta, r.end += delta;
    else if (!(r.end <= p))
      moved = false; // points into the change
  };
  auto owner = [&](const std::vector<KernelSpan> &in, uint32_t at) -> std::optional<size_t> {
    for (size_t i = 0; i < in.size(); ++i)
      if (contains(in[i].range, at))
        return i;
    return std::nullopt;
  };
  std::vector<Diagnostic> moduleBefore, moduleNow; // the findings outside every kernel, before and now
  for (const Diagnostic &d : prev.result.diagnostics) {
    std::optional<size_t> k = d.range.file == prev.file ? owner(old, d.range.begin) : std::nullopt;
    if (k == changed && k)
      continue; // the changed kernel's: from the new check
    Diagnostic m = d;
    move(m.range);
    for (Note &n : m.notes)
      move(n.range);
    for (Fix &f : m.fixes)
      for (TextEdit &e : f.edits)
        move(e.range);
    (k ? r.diagnostics : moduleBefore).push_back(std::move(m));
  }
  if (!moved)
    return std::nullopt;
  for (Diagnostic &d : part.diagnostics) {
    std::optional<size_t> k = d.range.file == next.file ? owner(spans, d.range.begin) : std::nullopt;
    if (k == changed && k)
      r.diagnostics.push_back(std::move(d));
    else if (!k)
      moduleNow.push_back(std::move(d));
  }
  // The module's findings depend on the text outside the kernels, which did not change: the same ones
  // again, or a finding that depends on the kernels after all, and the file is checked whole.
  sortDiagnostics(moduleBefore);
  sortDiagnostics(moduleNow);
  if (moduleBefore != moduleNow)
    return std::nullopt;
  for (Diagnostic &d : moduleNow)
    r.diagnostics.push_back(std::move(d));
  sortDiagnostics(r.diagnostics);
  return r;
}

} // namespace

std::vector<sema::Instantiation> documentInstantiations(SourceManager &sm, const std::string &path,
                                                        const std::string &selected, std::vector<std::string> *names,
                                                        std::vector<std::string> *unreadOut) {
  std::vector<sema::Instantiation> out;
  if (path.empty())
    return out;
  std::vector<std::string> unread;
  std::vector<library::Manifest> manifests = formats::manifestsFor(sm, path, unread);
  if (unreadOut)
    *unreadOut = unread;
  if (manifests.empty())
    return out;
  for (const library::Instance *i : formats::instancesOf(manifests.front(), path)) {
    out.push_back(i->instantiation());
    if (names)
      names->push_back(i->name);
  }
  auto chosen = std::find_if(out.begin(), out.end(), [&](const sema::Instantiation &i) { return i.name == selected; });
  if (!selected.empty() && chosen != out.end())
    std::rotate(out.begin(), chosen, chosen + 1);
  return out;
}

const Document *DocumentStore::find(const std::string &uri) const {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

Snapshot DocumentStore::snapshot(const std::string &uri) const {
  const Document *doc = find(uri);
  if (!doc)
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  if (doc->analysis)
    doc->analysis->completeTree();
  return {doc->uri, doc->version, doc->text, doc->analysis, selected(*doc)};
}

std::shared_ptr<const Analysis> DocumentStore::analyze(const std::string &uri, const CheckOptions &options,
                                                       bool tree) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  Document &doc = it->second;
  if (!doc.analysis) {
    auto a = std::make_shared<Analysis>();
    std::string path = uriToPath(uri);
    a->file = a->sm.addBuffer(path.empty() ? uri : path, doc.text);
    CheckOptions check = options;
    std::vector<std::string> unread;
    check.instantiations = documentInstantiations(a->sm, path, selected(doc), &a->instantiations, &unread);
    a->target = check.target;
    a->verify = check.verify;
    std::optional<CheckResult> reused;
    a->reusedKernels = 0;
    if (doc.previous && !lowering_ && unread.empty())
      reused = checkIncrementally(*a, *doc.previous, check, a->reusedKernels, a->kernels);
    if (reused) {
      a->result = std::move(*reused);
      a->setTreePending();
      // the model hover and the others read, made when one of them asks (sema of the whole file)
      a->setLazyModel([target = options.target](const Analysis &self) {
        std::vector<Diagnostic> discarded;
        DiagnosticSink sink(discarded);
        self.recovered = sema::analyze(self.result.module, sink, {target});
      });
    } else {
      a->reusedKernels = 0;
      a->result = pipeline::checkFile(a->sm, a->file, check, lowering_);
      a->parameters = hasParameters(a->result.module);
      a->kernels = spansOf(a->result.module);
    }
    if (retire_ && doc.previous)
      retire_(std::move(doc.previous));
    doc.previous.reset();
    // a manifest beside the file that does not read: the file was checked without it (its
    // defaults), which the editor must say rather than look clean (`cake check` refuses it)
    for (const std::string &why : unread) {
      DiagnosticSink sink(a->result.diagnostics);
      sink.report("manifest.invalid", SourceRange{a->file, 0, 0},
                  "a kernel manifest beside this file does not read, so its instantiations are not checked: " + why);
    }
    // bytes that are not UTF-8 (a client's lone surrogate, a Latin-1 buffer): the lexer reports
    // those outside comments and strings (syntax.character, as `cake check` does); the rest are
    // reported here, since a client cannot mean to send them (issue #16)
    if (auto bad = invalidUtf8(a->text()); !bad.empty()) {
      std::vector<SourceRange> reported;
      for (const Diagnostic &d : a->result.diagnostics)
        if (d.code == "syntax.character" && d.range.file == a->file)
          reported.push_back(d.range);
      DiagnosticSink sink(a->result.diagnostics);
      size_t left = 100; // bounded as the front end's errors are (a whole Latin-1 file)
      for (auto [begin, end] : bad)
        if (left && std::none_of(reported.begin(), reported.end(),
                                 [&](SourceRange r) { return r.begin < end && begin < r.end; }) &&
            left--)
          sink.report("syntax.character", SourceRange{a->file, begin, end},
                      "bytes that are not UTF-8 (the editor sent text that is not valid UTF-8, or a lone "
                      "UTF-16 surrogate)");
    }
    sortDiagnostics(a->result.diagnostics);
    if (!a->result.model && !reused) {
      std::vector<Diagnostic> discarded;
      DiagnosticSink sink(discarded);
      CheckResult &r = a->result;
      if (!r.instance && hasParameters(r.module)) // a file being typed: its parameters' values, when it instantiates
        r.instance = sema::instantiate(r.module, check.instantiations.empty() ? sema::Instantiation{}
                                                                              : check.instantiations.front(), sink);
      a->recovered = sema::analyze(r.analyzed(), sink, {options.target});
    }
    doc.analysis = std::move(a);
  }
  if (tree)
    doc.analysis->completeTree();
  return doc.analysis;
}

void Analysis::parseTree() {
  std::vector<Diagnostic> discarded; // the file's findings are result.diagnostics already
  result.module = syntax::parse(sm, file, discarded);
}

} // namespace cake::lsp
