//===- Instantiate.h - Compile-time parameters of a module -----*- C++ -*-===//
//
// Part of CAKE. A module may declare compile-time parameters (`param D: int
// in {32, 64, 128} = 128`), relations between them (`require ...`), items
// under a top-level `if` on them, fields under `when(...)` and statements
// under an `if` whose condition depends on one (language.md 3.1). An
// instantiation binds every parameter; instantiate() checks the bindings
// against the declarations and returns the module as that instantiation sees
// it: int and bool parameters become constants, elem and swizzle parameters
// are replaced at their uses, and every branch that does not apply is gone
// (so nothing downstream checks or lowers it). The new tree keeps the source
// ranges of the original, so every later diagnostic lands in the file the
// author wrote. A module without parameters instantiates to a copy of
// itself.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/syntax/AST.h"
#include "diagnostics/Sink.h"

#include <optional>
#include <string>
#include <vector>

namespace cake::sema {

/// One parameter's value as a manifest or `--param NAME=VALUE` wrote it.
struct Binding {
  std::string name;
  std::string value;
  /// Where the binding was written (a manifest's value); empty for the command line.
  std::optional<SourceRange> at;
};

/// What to instantiate: explicit bindings, the rest from the defaults.
struct Instantiation {
  std::string name; ///< the manifest's name ("assign_d64_wg2"), or ""
  std::vector<Binding> bindings;
  std::optional<SourceRange> at; ///< the manifest entry, when there is one
};

/// An instantiated module and the value of every parameter.
struct Instance {
  syntax::Module module;
  /// (name, value) of every parameter, in declaration order.
  std::vector<std::pair<std::string, std::string>> values;
  std::string name; ///< Instantiation::name

  /// "D = 48, WG = 2, elem = fp16" (or "" without parameters).
  std::string label() const;
};

/// The parameters \p m declares (top level, in order).
std::vector<const syntax::ParamDecl *> parameters(const syntax::Module &m);

/// Instantiates \p m. Reports param.value (an unknown parameter, a value of
/// the wrong kind or outside its domain, a parameter without a value),
/// param.require (a `require` the bindings violate) and param.static (a
/// condition on a parameter that is not a compile-time value) to \p sink;
/// nullopt when the instantiation is invalid.
std::optional<Instance> instantiate(const syntax::Module &m, const Instantiation &inst, DiagnosticSink &sink);

/// The values \p p's domain allows, as bindings spell them: its set (an
/// int's evaluated, `{2 * 16, 64}` gives 32 and 64; any other kind's as
/// written), its range `lo .. hi` (at most \p limit + 1 values), a bool's
/// false and true; empty when the domain is not finite (a default only).
std::vector<std::string> domainValues(const syntax::ParamDecl &p, size_t limit);

/// Every instantiation the declarations allow: the product of the parameters'
/// domains (a parameter without a finite domain keeps its default), less
/// those a `require` rules out, at most \p limit of them (\p truncated says
/// when more exist). A module without parameters has one: its own. \p fixed
/// holds parameters at one value each (the problem's D and elem, for `cake
/// tune`); a binding that names no parameter is instantiate's error, as any.
std::vector<Instantiation> allInstantiations(const syntax::Module &m, size_t limit, bool *truncated = nullptr,
                                             const std::vector<Binding> &fixed = {});

} // namespace cake::sema
