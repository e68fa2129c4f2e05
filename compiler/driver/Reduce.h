//===- Reduce.h - Shrinking a program that keeps a failure ------*- C++ -*-===//
//
// Part of CAKE (issue #21). `cake reduce` in the spirit of llvm-reduce and
// creduce: deletes statements (outermost first, so a whole kernel or role goes
// in one test), names with their uses, branches of ifs, constants written in
// place and comment lines while a predicate, the failure signature, still
// holds, until no single such edit keeps it. The core knows nothing of
// the CLI or of GPUs: a signature is any predicate on the text (a rule code
// here; a run.hang or run.mismatch on a GPU can be another).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cake {

/// What a reduction did: the reduced text, how many candidate texts the
/// signature was tested on, and how many deletions it kept.
struct Reduction {
  std::string text;
  size_t tests = 0;
  size_t deletions = 0;
};

/// Whether a candidate text still shows the failure.
using Signature = std::function<bool(const std::string &text)>;

/// The names a message quotes ('xs', 'load', 'compute'): what identifies a
/// finding across reductions, where its counts, sizes and places change.
std::vector<std::string> quotedNames(const std::string &message);

/// What identifies a finding's message across reductions: the names it quotes,
/// then the tool's codes it cites in parentheses ("(C7518)": ptxas's reason
/// for serializing a wgmma pipeline, which another edit may change to C7514).
std::vector<std::string> findingIdentity(const std::string &message);

/// The signature "checkSource reports a diagnostic with code \p code, and no
/// more errors of any code than \p original has" (a deletion must not keep the
/// code through a new failure: a ring left unbalanced by deleting its producer,
/// or a second token left unreleased, is not the ring.linear being reduced),
/// and the finding kept is one of the original's: the same names quoted in its
/// message and its notes (a ring.balance of another ring, whose consumer the
/// reduction deleted, or of the same ring with its producer deleted, is not the
/// odd trip count being reduced).
Signature keepsDiagnostic(std::string code, const std::string &original);

/// One candidate change of a text: byte ranges [begin, end) replaced, sorted
/// and disjoint (a deletion replaces with nothing).
struct Edit {
  struct Part {
    size_t begin, end;
    std::string with;
  };
  std::vector<Part> parts;
  std::string apply(const std::string &text) const;
};

/// The edits one reduction step may make to \p text, largest kinds first:
/// every statement deleted (outermost first); every declared name (const,
/// param, let, var, ring) deleted with every statement and kernel parameter
/// that uses it, and with the uses of the names those declare; every if
/// replaced by the statements of one of its branches; every const, parameter
/// default and single let written where its name is used and its declaration
/// deleted; every kernel parameter and ring slot deleted (each with the rest of
/// its lines, and its comma, when they hold nothing else); every line that
/// holds only a comment and every blank line deleted. Empty when the text does
/// not parse.
std::vector<Edit> reductionCandidates(const std::string &text);

/// Applies candidates of \p text that make it shorter while \p keeps holds,
/// until none can (1-minimal for the edits reductionCandidates offers).
/// \p keeps must hold for \p text itself (the caller checks). At most
/// \p maxTests tests. \p onKept, when given, sees the text after each kept
/// edit (a long reduction, one GPU run per test, saves its progress there).
Reduction reduce(std::string text, const Signature &keeps, size_t maxTests = 100000,
                 const std::function<void(const Reduction &)> &onKept = {});

} // namespace cake
