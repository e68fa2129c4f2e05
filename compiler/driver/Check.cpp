//===- Check.cpp - The one path from source to diagnostics ----------------===//
#include "compiler/driver/Check.h"

#include "compiler/sema/Sema.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Walk.h"
#include "compiler/verify/Verifier.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace cake {

namespace {

/// Whether the comment block right above \p d's line holds
/// `// cake: accept CODE -- reason` naming d's code: a performance warning
/// the author measured and accepts (language.md 2.1). Only `perf.*` warnings
/// can be accepted, and only with a reason.
bool accepted(const SourceManager &sm, FileId file, const Diagnostic &d) {
  if (d.severity != Severity::Warning || !d.code.starts_with("perf.") || !(d.range.file == file))
    return false;
  const std::string directive = "// cake: accept " + d.code + " -- ";
  for (uint32_t line = sm.lineColumn(file, d.range.begin).line; line-- > 1;) {
    std::string_view text = sm.lineText(file, line);
    size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos || !text.substr(first).starts_with("//"))
      return false; // the comment block ended
    if (size_t at = text.find(directive); at != std::string_view::npos)
      return text.substr(at + directive.size()).find_first_not_of(" \t\r") != std::string_view::npos;
  }
  return false;
}

/// Sema and the verifier over one tree.
std::optional<sema::Module> analyze(const SourceManager &sm, const syntax::Module &m, const CheckOptions &options,
                                    std::vector<Diagnostic> &out) {
  DiagnosticSink sink(out);
  std::optional<sema::Module> model = sema::analyze(m, sink, {options.target});
  if (options.verify && !countErrors(out))
    verify::verify(*model, sm, sink);
  return model;
}

bool whenClauses(const std::vector<syntax::Field> &fields) {
  for (const syntax::Field &f : fields)
    for (const syntax::Clause &c : f.type.clauses)
      if (c.name.name == "when")
        return true;
  return false;
}

/// "D = 32, elem = fp16" when the instantiations \p in are exactly those of
/// \p all with these values (what they share explains the finding), else "".
std::string commonValues(const std::vector<std::vector<std::pair<std::string, std::string>>> &all,
                         const std::vector<size_t> &in) {
  if (in.empty() || all[in.front()].empty())
    return "";
  std::vector<std::pair<std::string, std::string>> common;
  for (const auto &binding : all[in.front()]) {
    bool shared = true;
    for (size_t i : in)
      shared = shared && std::find(all[i].begin(), all[i].end(), binding) != all[i].end();
    if (shared)
      common.push_back(binding);
  }
  if (common.empty())
    return "";
  size_t matching = 0;
  for (const auto &values : all) {
    bool has = true;
    for (const auto &b : common)
      has = has && std::find(values.begin(), values.end(), b) != values.end();
    matching += has;
  }
  if (matching != in.size())
    return "";
  std::string out;
  for (const auto &[name, value] : common)
    out += (out.empty() ? "" : ", ") + name + " = " + value;
  return out;
}

/// The source range (begin, end) of the innermost statement of \p m that
/// holds \p r, or nullopt when none does (a top-level item's header).
using Span = std::pair<uint32_t, uint32_t>;
std::optional<Span> innermostStmt(const syntax::Module &m, const SourceRange &r) {
  std::optional<Span> best;
  syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
    if (s.range.file == r.file && s.range.begin <= r.begin && r.end <= s.range.end &&
        (!best || s.range.end - s.range.begin <= best->second - best->first))
      best = Span{s.range.begin, s.range.end};
  });
  return best;
}

/// Checks every instantiation and merges what they found: a finding several
/// instantiations share appears once, with a note naming them. A fix is
/// preferred only where every instantiation that keeps the code it edits
/// proposed it (the same rule, the same edits; invariant 18): one that leaves
/// that code out (a branch of an `if` on a parameter) cannot be changed by
/// it, but one that keeps it and found nothing, or another fix, would be. So
/// a fix that every instantiation proposes stays preferred even where their
/// messages differ (each names its own witness: "when Q = 100, SK = 112") or
/// the findings lie at different places (a missing wgmma.wait found at each
/// branch's read of the accumulator), and so does one inside a branch that
/// only some instantiations keep, when all of those proposed it.
void checkInstantiations(const SourceManager &sm, CheckResult &result, const CheckOptions &options) {
  std::vector<sema::Instantiation> insts = options.instantiations;
  if (insts.empty())
    insts.emplace_back();
  struct Seen {
    size_t index;
    std::vector<std::string> where, brief;
    std::vector<size_t> in; ///< indexes into `values`
    std::optional<SourceRange> at; ///< where the first instantiation is declared (a manifest entry)
  };
  std::vector<std::vector<std::pair<std::string, std::string>>> values; // each instantiation's parameters
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t, std::string>, Seen> seen;
  std::vector<Diagnostic> merged;
  // per (rule, fixes): the instantiations that proposed those fixes, wherever the finding was
  struct FixSeen {
    std::string code;
    std::vector<Fix> fixes;
    std::set<size_t> in;
  };
  std::vector<FixSeen> fixSeen;
  // per instantiation: the statements it keeps (nullopt: it did not instantiate, so it keeps everything)
  std::vector<std::optional<std::set<Span>>> kept;
  size_t checked = 0;
  SourceRange noteAt{result.module.file, 0, 0};
  if (auto params = sema::parameters(result.module); !params.empty())
    noteAt = params.front()->name.range;
  for (const sema::Instantiation &inst : insts) {
    std::vector<Diagnostic> found;
    DiagnosticSink sink(found);
    std::optional<sema::Instance> instance = sema::instantiate(result.module, inst, sink);
    // how a note names it: alone, "instantiation NAME: D = 64, ..."; in a list, NAME (or the values)
    std::string where, brief = inst.name;
    std::optional<sema::Module> model;
    if (instance) {
      where = instantiationNote(*instance);
      if (brief.empty())
        brief = instance->label();
      model = analyze(sm, instance->module, options, found);
    } else {
      std::string values;
      for (const sema::Binding &b : inst.bindings)
        values += (values.empty() ? "" : ", ") + b.name + " = " + b.value;
      where = inst.name.empty() && values.empty()
                  ? "the default instantiation"
                  : "instantiation " + (inst.name.empty() ? values : inst.name + (values.empty() ? "" : ": " + values));
      if (brief.empty())
        brief = values.empty() ? "the defaults" : values;
    }
    if (!hasParameters(result.module) && inst.name.empty())
      where.clear(), brief.clear();
    ++checked;
    values.push_back(instance ? instance->values : std::vector<std::pair<std::string, std::string>>{});
    kept.emplace_back();
    if (instance) {
      kept.back().emplace();
      syntax::forEachStmt(instance->module.items,
                          [&](const syntax::Stmt &s) { kept.back()->insert({s.range.begin, s.range.end}); });
    }
    for (Diagnostic &d : found) {
      if (!d.fixes.empty()) {
        auto f = std::find_if(fixSeen.begin(), fixSeen.end(),
                              [&](const FixSeen &x) { return x.code == d.code && x.fixes == d.fixes; });
        if (f == fixSeen.end())
          f = fixSeen.insert(fixSeen.end(), FixSeen{d.code, d.fixes, {}});
        f->in.insert(checked);
      }
      auto key = std::make_tuple(d.code, d.range.file.value, d.range.begin, d.range.end, d.message);
      auto [it, fresh] = seen.try_emplace(key, Seen{merged.size(), {}, {}, {}, std::nullopt});
      it->second.where.push_back(where);
      it->second.brief.push_back(brief);
      it->second.in.push_back(values.size() - 1);
      if (fresh) {
        it->second.at = inst.at;
        merged.push_back(std::move(d));
      }
    }
    if (instance && !result.instance) {
      result.instance = std::move(instance);
      result.model = std::move(model);
    }
  }
  // whether instantiation i (1-based) keeps the statement around one of the edits of \p fixes
  auto keepsAnEdit = [&](size_t i, const std::vector<Fix> &fixes) {
    if (!kept[i - 1])
      return true;
    for (const Fix &f : fixes)
      for (const TextEdit &e : f.edits) {
        std::optional<Span> at = innermostStmt(result.module, e.range);
        if (!at || kept[i - 1]->count(*at))
          return true;
      }
    return false;
  };
  for (auto &[key, s] : seen) {
    Diagnostic &d = merged[s.index];
    bool proposedWhereKept = std::any_of(fixSeen.begin(), fixSeen.end(), [&](const FixSeen &x) {
      if (x.code != d.code || x.fixes != d.fixes)
        return false;
      for (size_t i = 1; i <= checked; ++i)
        if (!x.in.count(i) && keepsAnEdit(i, x.fixes))
          return false;
      return true;
    });
    if (!proposedWhereKept)
      for (Fix &f : d.fixes)
        f.preferred = false;
    if (checked == 1 && s.where.front().empty())
      continue; // nothing to name: a file without parameters
    std::string text;
    if (s.where.size() == 1)
      text = "in " + s.where.front();
    else if (s.where.size() == checked)
      text = "in every instantiation checked (" + std::to_string(checked) + ")";
    else if (std::string common = commonValues(values, s.in); !common.empty()) {
      text = "in every instantiation checked with " + common + " (" + std::to_string(s.where.size()) + " of " +
             std::to_string(checked) + ")";
    } else {
      text = "in " + std::to_string(s.where.size()) + " of " + std::to_string(checked) + " instantiations: ";
      for (size_t i = 0; i < s.brief.size() && i < 4; ++i)
        text += (i ? "; " : "") + s.brief[i];
      if (s.where.size() > 4)
        text += "; and " + std::to_string(s.where.size() - 4) + " more";
    }
    // one instantiation of a manifest: the note points at its entry there
    d.notes.push_back({s.where.size() == 1 && s.at ? *s.at : noteAt, std::move(text)});
  }
  for (Diagnostic &d : merged)
    result.diagnostics.push_back(std::move(d));
}

} // namespace

bool hasParameters(const syntax::Module &m) {
  for (const syntax::StmtPtr &s : m.items.stmts) {
    if (s->kind == syntax::StmtKind::Param || s->kind == syntax::StmtKind::Require || s->kind == syntax::StmtKind::If)
      return true;
    if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get())) {
      if (whenClauses(k->params))
        return true;
      bool ringWhen = false;
      syntax::forEachStmt(k->body, [&](const syntax::Stmt &st) {
        if (auto *r = syntax::dyn_cast<syntax::RingStmt>(&st))
          ringWhen |= whenClauses(r->slots);
      });
      if (ringWhen)
        return true;
    }
  }
  return false;
}

std::string instantiationNote(const sema::Instance &instance) {
  std::string label = instance.label();
  if (instance.name.empty())
    return label.empty() ? "" : "instantiation " + label;
  return "instantiation " + instance.name + (label.empty() ? "" : ": " + label);
}

CheckResult checkSource(const SourceManager &sm, FileId file, const CheckOptions &options) {
  CheckResult result;
  result.module = syntax::parse(sm, file, result.diagnostics);
  // Semantic checks run on files without syntax errors: a statement the
  // parser dropped would otherwise show up as a cascade of unknown names.
  if (!countErrors(result.diagnostics)) {
    if (hasParameters(result.module) || !options.instantiations.empty())
      checkInstantiations(sm, result, options);
    else
      result.model = analyze(sm, result.module, options, result.diagnostics);
  }
  std::erase_if(result.diagnostics, [&](const Diagnostic &d) { return accepted(sm, file, d); });
  sortDiagnostics(result.diagnostics);
  return result;
}

} // namespace cake
