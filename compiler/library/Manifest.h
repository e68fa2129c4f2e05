//===- Manifest.h - A kernel library's manifest and its dispatcher -*- C++ -*-===//
//
// Part of CAKE. A kernel library (kernels/kmeans/, and KNN and KDA after it)
// is described by one manifest, `<dir>/<library>.manifest.json`
// (docs/libraries.md): its entries (a pipeline of kernels and what the
// library provides around them), its instantiations (a source file, the
// values of its parameters, the entry it serves and its domain of use) and
// its dispatch rules (which instantiation takes a problem, tried in order,
// each optionally under a predicate fitted on a committed sweep). This file
// is the manifest in plain C++ (formats/Manifest.h reads the JSON, the
// library's CMake writes the same structures as C++) and the one dispatcher
// over it, which `cake dispatch explain`, the library and its Python
// binding share, so they cannot disagree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Instantiate.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::library {

/// A pipeline of kernels of one schedule and what the library provides around it.
struct Entry {
  std::string name;                 ///< "assign"
  std::string op;                   ///< the operation it serves: "assign", "update"
  std::vector<std::string> kernels; ///< in launch order
  std::string distance;             ///< run last when the caller asks for distances ("" = none)
  std::string zero;                 ///< run first when the file has it, else scratch is zero-filled
  std::vector<std::string> scratch; ///< global parameters the library allocates
  /// The padded centroid count is a multiple of this: an integer expression
  /// over the instantiation's parameters ("2 * BN * S").
  std::string kPad = "1";
  /// Where its kernels can take a problem at all, beyond the instantiation's
  /// domain: an integer expression over the problem's values and the
  /// instantiation's parameters (a name both have is the problem's), true
  /// when nonzero ("D <= DP && k <= KP"; "" = always).
  std::string applies;
  /// Sizes the library derives for a call, each an integer expression over
  /// the problem's values, the instantiation's parameters and the other
  /// sizes (no cycles): {"S", "..."}, {"SK", "S * KP"}.
  std::vector<std::pair<std::string, std::string>> sizes;
  /// The kernels from this one on run once per pass, PASSES times (a size
  /// the entry defines), each launch binding the scalar parameter PASS to
  /// the pass, 0, 1, ... ("" = every kernel once): KNN's k > KP, a list of
  /// KP entries a pass.
  std::string repeat;
};

/// One instantiation the library builds and embeds.
struct Instance {
  std::string name;   ///< "assign_d64_wg2": the embedded file's and the variant's name
  std::string source; ///< relative to the manifest's folder: "assign_sm90.cake"
  std::string entry;  ///< Entry::name
  std::string target; ///< "sm_90a"
  std::vector<sema::Binding> params;
  /// Where it applies: problem keys and values it requires ("dtype" = "bf16", "D" = "128").
  std::vector<std::pair<std::string, std::string>> domain;
  std::string covers;   ///< for messages: "bf16, D = 128, three compute warpgroups"
  std::string workload; ///< a workload file for `cake run/bench/cost` ("" = none)
  /// A build failure leaves the variant reporting why (else it stops the build).
  bool optional = false;
  std::optional<SourceRange> at;

  sema::Instantiation instantiation() const { return {name, params, at}; }
};

/// A named condition fitted on a sweep: an integer expression of CAKE IR over
/// the problem's sizes (B, N, K, D, SMS, ...), true when nonzero.
struct Predicate {
  std::string name;
  std::string expr;
  std::string evidence; ///< the sweep it was fitted on and how well it fits
};

/// One dispatch rule: instantiation `use` takes a problem inside its domain
/// when `when` (a predicate's name, or "" for always) holds.
struct Rule {
  std::string use;
  std::string when;
  std::optional<SourceRange> at;
};

struct Manifest {
  std::string path; ///< the manifest's path, as given
  std::string dir;  ///< its folder ("" = the working directory)
  std::string library;
  std::vector<Entry> entries;
  std::vector<Instance> instances;
  std::vector<Predicate> predicates;
  std::vector<Rule> rules;

  const Entry *entry(std::string_view name) const;
  const Instance *instance(std::string_view name) const;
  const Predicate *predicate(std::string_view name) const;
  /// The folder-relative source path joined to dir.
  std::string sourcePath(const Instance &i) const;
};

/// What a problem is: named values ("op" = "assign", "dtype" = "bf16",
/// "B" = "32", ..., "SMS" = "132", "cc" = "90"). A size the problem lacks
/// makes a predicate on it fail to evaluate (reported, not matched).
struct Problem {
  std::map<std::string, std::string> values;
  std::string describe() const; ///< "op = assign, dtype = bf16, B = 32, ..."
};

/// The compute capability a target's code runs on (10 * major + minor):
/// sm_80 code on 8.x, sm_90a on 9.0, sm_100a on 10.0.
int targetComputeCapability(std::string_view target);

/// The dispatcher's answer with its reasons.
struct Decision {
  const Instance *chosen = nullptr;
  const Rule *rule = nullptr;
  /// One line per rule tried, in order: which condition failed, or why it won.
  std::vector<std::string> trace;
  std::string why; ///< the winning rule's reason, or why none matched
};

/// The first rule whose instantiation's domain holds the problem (and whose
/// predicate holds). Keys of a domain the problem lacks do not match;
/// "cc" matches by major version (sm_80 code runs on 8.6), and an unknown
/// capability ("cc" = "0" or absent) matches any.
Decision dispatch(const Manifest &m, const Problem &p);

/// Whether instantiation \p inst can take \p p: the entry's op, the
/// instantiation's domain, the compute capability and the entry's applies
/// condition (what dispatch() asks of each rule before its predicate);
/// \p failed says which did not hold. A library that forces an
/// instantiation still asks this: a kernel never runs a problem it cannot take.
bool domainHolds(const Manifest &m, const Instance &inst, const Problem &p, std::string &failed);

/// Evaluates predicate \p expr over \p p's integer values: nullopt (with
/// \p error set) when it does not parse or names a value the problem lacks.
std::optional<int64_t> evaluate(std::string_view expr, const Problem &p, std::string *error = nullptr);

/// The value of Entry::kPad for instantiation \p i (its parameters bound).
std::optional<int64_t> kPadOf(const Manifest &m, const Instance &i);
/// Entry::sizes of \p i's entry for problem \p p, in order; nullopt (with
/// \p error set) when one does not evaluate.
std::optional<std::vector<std::pair<std::string, int64_t>>> sizesOf(const Manifest &m, const Instance &i,
                                                                     const Problem &p, std::string *error = nullptr);

/// One problem of a manifest and where it is: a JSON pointer into the
/// manifest's text ("/instantiations/2/entry"), which a reader turns into
/// a line and column.
struct Invalid {
  std::string message;
  std::string pointer;
};

/// What is wrong with \p m as a whole: rules naming unknown instantiations
/// or predicates, instantiations naming unknown entries, duplicate names,
/// predicates that do not parse. Empty: nothing.
std::vector<Invalid> validate(const Manifest &m);

} // namespace cake::library
