//===- Manifest.cpp - A kernel library's manifest and its dispatcher ------===//
#include "compiler/library/Manifest.h"

#include "compiler/sema/Model.h"
#include "compiler/syntax/Parser.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace cake::library {

const Entry *Manifest::entry(std::string_view name) const {
  for (const Entry &e : entries)
    if (e.name == name)
      return &e;
  return nullptr;
}

const Instance *Manifest::instance(std::string_view name) const {
  for (const Instance &i : instances)
    if (i.name == name)
      return &i;
  return nullptr;
}

const Predicate *Manifest::predicate(std::string_view name) const {
  for (const Predicate &p : predicates)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::string Manifest::sourcePath(const Instance &i) const { return dir.empty() ? i.source : dir + "/" + i.source; }

std::string Problem::describe() const {
  std::string out;
  for (const auto &[k, v] : values)
    out += (out.empty() ? "" : ", ") + k + " = " + v;
  return out;
}

int targetComputeCapability(std::string_view target) {
  if (!target.starts_with("sm_"))
    return 0;
  int cc = 0;
  std::from_chars(target.data() + 3, target.data() + target.size(), cc);
  return cc;
}

namespace {

/// A value as an integer; a bool parameter's true/false read as 1/0 (the
/// predicate language's `||` and `!` take them, kernels/knn's AFTER).
std::optional<int64_t> integer(std::string_view text) {
  if (text == "true" || text == "false")
    return text == "true";
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size())
    return std::nullopt;
  return v;
}

/// \p expr parsed as the value of a constant (the one parser; no second
/// grammar for predicates). The module owns the tree; \p value points into it,
/// or is null with \p why set when \p expr is not one expression.
syntax::Module parseExpression(std::string_view expr, const syntax::Expr *&value, std::string &why) {
  SourceManager sm;
  FileId file = sm.addBuffer("<predicate>", "const value = " + std::string(expr) + "\n");
  std::vector<Diagnostic> diags;
  syntax::Module m = syntax::parse(sm, file, diags);
  const syntax::ConstDecl *c = m.items.stmts.size() == 1 ? syntax::dyn_cast<syntax::ConstDecl>(m.items.stmts[0].get())
                                                         : nullptr;
  value = countErrors(diags) || !c ? nullptr : c->value.get();
  if (!value)
    why = diags.empty() ? std::string("not one expression") : diags.front().message;
  return m;
}

/// Evaluates \p expr with \p lookup.
std::optional<int64_t> evaluateWith(std::string_view expr, const sema::NameLookup &lookup, std::string *error) {
  const syntax::Expr *value = nullptr;
  std::string why;
  syntax::Module owner = parseExpression(expr, value, why);
  if (!value) {
    if (error)
      *error = "'" + std::string(expr) + "' is not an expression: " + why;
    return std::nullopt;
  }
  std::set<std::string> missing;
  auto v = sema::evalWith(*value, [&](const std::string &name) {
    auto r = lookup(name);
    if (!r)
      missing.insert(name);
    return r;
  });
  if (!v && error) {
    std::string names;
    for (const std::string &n : missing)
      names += (names.empty() ? "" : ", ") + n;
    *error = "'" + std::string(expr) + "' cannot be evaluated" +
             (names.empty() ? std::string(" (not an integer expression)") : ": no value for " + names);
  }
  return v;
}

/// A name's value: the problem's, else the instantiation's parameter's, else
/// one of \p derived (sizes evaluated before).
std::optional<int64_t> lookupValue(const std::string &name, const Instance &inst, const Problem &p,
                                   const std::vector<std::pair<std::string, int64_t>> &derived = {}) {
  if (auto it = p.values.find(name); it != p.values.end())
    return integer(it->second);
  for (const sema::Binding &b : inst.params)
    if (b.name == name)
      return integer(b.value);
  for (const auto &[n, v] : derived)
    if (n == name)
      return v;
  return std::nullopt;
}

} // namespace

bool domainHolds(const Manifest &m, const Instance &inst, const Problem &p, std::string &failed) {
  const Entry *e = m.entry(inst.entry);
  auto value = [&](const std::string &key) -> std::optional<std::string> {
    auto it = p.values.find(key);
    return it == p.values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  if (e && value("op") != e->op) {
    failed = "op " + value("op").value_or("?") + " is not " + e->op;
    return false;
  }
  for (const auto &[key, want] : inst.domain) {
    auto have = value(key);
    if (have != want) {
      failed = key + " = " + have.value_or("(none)") + " is not " + want;
      return false;
    }
  }
  // arch-specific code (sm_90a, sm_100a: a cubin) runs on its major version only; sm_80 code is
  // shipped as PTX (lib/core/CakeLibrary.cmake), which the driver compiles for 8.0 and every GPU after
  int cc = targetComputeCapability(inst.target);
  auto have = integer(value("cc").value_or("0")).value_or(0);
  bool archSpecific = !inst.target.empty() && inst.target.back() == 'a';
  if (cc && have && (archSpecific ? cc / 10 != have / 10 : have < cc)) {
    failed = "compute capability " + std::to_string(have / 10) + "." + std::to_string(have % 10) + " does not run " +
             inst.target + " code";
    return false;
  }
  if (e && !e->applies.empty()) {
    std::string error;
    auto v = evaluateWith(e->applies, [&](const std::string &name) { return lookupValue(name, inst, p); }, &error);
    if (!v || !*v) {
      failed = v ? e->applies + " does not hold" : error;
      return false;
    }
  }
  return true;
}


std::optional<int64_t> evaluate(std::string_view expr, const Problem &p, std::string *error) {
  return evaluateWith(expr, [&](const std::string &name) -> std::optional<int64_t> {
    auto it = p.values.find(name);
    return it == p.values.end() ? std::nullopt : integer(it->second);
  }, error);
}

std::optional<int64_t> kPadOf(const Manifest &m, const Instance &i) {
  const Entry *e = m.entry(i.entry);
  if (!e)
    return std::nullopt;
  return evaluateWith(e->kPad, [&](const std::string &name) -> std::optional<int64_t> {
    for (const sema::Binding &b : i.params)
      if (b.name == name)
        return integer(b.value);
    return std::nullopt;
  }, nullptr);
}

std::optional<std::vector<std::pair<std::string, int64_t>>> sizesOf(const Manifest &m, const Instance &i,
                                                                     const Problem &p, std::string *error) {
  const Entry *e = m.entry(i.entry);
  if (!e) {
    if (error)
      *error = "instantiation '" + i.name + "' serves the unknown entry '" + i.entry + "'";
    return std::nullopt;
  }
  // a size may use others: evaluate what can be, until all are (or none more can)
  std::vector<std::pair<std::string, int64_t>> out;
  std::vector<bool> done(e->sizes.size(), false);
  for (bool progress = true; progress && out.size() < e->sizes.size();) {
    progress = false;
    for (size_t n = 0; n < e->sizes.size(); ++n)
      if (!done[n])
        if (auto v = evaluateWith(e->sizes[n].second, [&](const std::string &name) { return lookupValue(name, i, p, out); },
                                  nullptr)) {
          out.emplace_back(e->sizes[n].first, *v);
          done[n] = progress = true;
        }
  }
  for (size_t n = 0; n < e->sizes.size(); ++n)
    if (!done[n]) {
      std::string why;
      evaluateWith(e->sizes[n].second, [&](const std::string &name) { return lookupValue(name, i, p, out); }, &why);
      if (error)
        *error = "size " + e->sizes[n].first + " of entry '" + e->name + "': " + why;
      return std::nullopt;
    }
  return out;
}

Decision dispatch(const Manifest &m, const Problem &p) {
  Decision d;
  for (const Rule &r : m.rules) {
    const Instance *inst = m.instance(r.use);
    if (!inst) {
      d.trace.push_back(r.use + ": not an instantiation of this library (skipped)");
      continue;
    }
    std::string failed;
    if (!domainHolds(m, *inst, p, failed)) {
      d.trace.push_back(r.use + ": outside its domain (" + failed + ")");
      continue;
    }
    if (!r.when.empty()) {
      const Predicate *pred = m.predicate(r.when);
      std::string error;
      std::optional<int64_t> v = pred ? evaluate(pred->expr, p, &error) : std::nullopt;
      if (!v) {
        d.trace.push_back(r.use + ": predicate " + r.when + " " +
                          (pred ? "does not evaluate: " + error : "is not defined"));
        continue;
      }
      if (!*v) {
        d.trace.push_back(r.use + ": " + r.when + " does not hold (" + pred->expr + " is 0)");
        continue;
      }
      d.why = r.use + ": in its domain and " + r.when + " holds (" + pred->expr + ")" +
              (pred->evidence.empty() ? "" : "; fitted: " + pred->evidence);
    } else {
      d.why = r.use + ": in its domain (";
      bool first = true;
      for (const auto &[key, want] : inst->domain) {
        d.why += (first ? "" : ", ") + key + " = " + want;
        first = false;
      }
      d.why += std::string(first ? "" : ", ") + "runs " + inst->target + ")";
    }
    d.trace.push_back(d.why);
    d.chosen = inst;
    d.rule = &r;
    return d;
  }
  d.why = "no rule takes " + p.describe();
  return d;
}

std::vector<Invalid> validate(const Manifest &m) {
  std::vector<Invalid> out;
  std::set<std::string> names;
  for (const Entry &e : m.entries) {
    if (!names.insert("entry " + e.name).second)
      out.push_back({"entry '" + e.name + "' is listed twice", "/entries/" + e.name});
    if (e.repeat.empty())
      continue;
    if (std::find(e.kernels.begin(), e.kernels.end(), e.repeat) == e.kernels.end())
      out.push_back({"entry '" + e.name + "' repeats from '" + e.repeat + "', which it does not launch",
                     "/entries/" + e.name + "/repeat"});
    if (std::none_of(e.sizes.begin(), e.sizes.end(), [](const auto &s) { return s.first == "PASSES"; }))
      out.push_back({"entry '" + e.name + "' repeats kernels but defines no size PASSES (the number of passes)",
                     "/entries/" + e.name + "/sizes"});
  }
  for (size_t n = 0; n < m.instances.size(); ++n) {
    const Instance &i = m.instances[n];
    std::string at = "/instantiations/" + std::to_string(n);
    if (!names.insert("instance " + i.name).second)
      out.push_back({"instantiation '" + i.name + "' is listed twice", at + "/name"});
    if (!m.entry(i.entry))
      out.push_back({"instantiation '" + i.name + "' serves the unknown entry '" + i.entry + "'", at + "/entry"});
    else if (!kPadOf(m, i))
      out.push_back({"instantiation '" + i.name + "': the kPad of entry '" + i.entry +
                         "' does not evaluate with its parameters",
                     "/entries/" + i.entry + "/kPad"});
    if (!targetComputeCapability(i.target))
      out.push_back({"instantiation '" + i.name + "' has the unknown target '" + i.target + "'", at + "/target"});
  }
  auto parses = [&](const std::string &expr, const std::string &what, const std::string &pointer) {
    const syntax::Expr *value = nullptr;
    std::string why;
    syntax::Module owner = parseExpression(expr, value, why);
    if (!value)
      out.push_back({what + " does not parse: " + why, pointer});
  };
  for (const Entry &e : m.entries) {
    if (!e.applies.empty())
      parses(e.applies, "entry '" + e.name + "': applies", "/entries/" + e.name + "/applies");
    for (const auto &[size, expr] : e.sizes)
      parses(expr, "entry '" + e.name + "': size " + size, "/entries/" + e.name + "/sizes/" + size);
  }
  for (const Predicate &p : m.predicates) {
    const syntax::Expr *value = nullptr;
    std::string why;
    syntax::Module owner = parseExpression(p.expr, value, why);
    if (!value)
      out.push_back({"predicate '" + p.name + "' does not parse: " + why, "/predicates/" + p.name + "/expr"});
  }
  for (size_t n = 0; n < m.rules.size(); ++n) {
    const Rule &r = m.rules[n];
    std::string at = "/rules/" + std::to_string(n);
    if (!m.instance(r.use))
      out.push_back({"a rule uses the unknown instantiation '" + r.use + "'", at + "/use"});
    if (!r.when.empty() && !m.predicate(r.when))
      out.push_back({"a rule's predicate '" + r.when + "' is not defined", at + "/when"});
  }
  return out;
}

} // namespace cake::library
