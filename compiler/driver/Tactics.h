//===- Tactics.h - Named, parameterized schedule rewrites -------*- C++ -*-===//
//
// Part of CAKE (issue #21). A tactic is a named rewrite of a CAKE IR file with
// parameters, in one table (tactics()): applied to the text, the result is
// checked again (checkSource, the same rules as `cake check`) and refused
// with the located reason when the rewrite does not apply or leaves errors;
// the cost model's prediction before and after is the caller's (it needs
// sizes). Rewrites work on the source's ranges, so everything the rewrite
// does not touch (comments, layout) stays as written.
//
//   stages   ring=NAME to=N   the ring's pipeline depth (`stages(N)`)
//   param    name=P to=V      a parameter's default, the schedule a file
//                             without a manifest builds (WG, BN, XS, ...)
//   unroll   loop=VAR to=full|N|none [line=L]
//                             a loop's unroll clause (line=L when several
//                             loops run over VAR)
//   tile     name=C to=N      a tile size written as a const, and the MMA
//                             shapes whose N was its value
//   epilogue acc=ACC to=W     a warpgroup accumulator's st.global made a
//                             TMA-store epilogue (W-column chunks, two
//                             staging buffers per warpgroup)
//   persistent kernel=K to=G  an explicit grid made persistent (every role
//                             loops over sched.tiles of its extents in
//                             groups of G), or a persistent kernel's group
//   warp-specialize ring=R to=ROLE [regs=P]
//                             a ring one role produces and consumes: its
//                             produces (and the loops around them) moved
//                             to a new producer warpgroup ROLE
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/syntax/AST.h"
#include "diagnostics/Diagnostic.h"
#include "diagnostics/Expected.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

struct TacticInfo {
  std::string_view name;
  std::string_view args;    ///< "ring=NAME to=N"
  std::string_view summary; ///< one line
};

/// Every tactic, in the order `cake tactic list` prints them.
std::span<const TacticInfo> tactics();

struct TacticResult {
  std::string text;        ///< the rewritten file
  std::string description; ///< "ring 'ab': stages(4) -> stages(5)"
  std::vector<Diagnostic> diagnostics; ///< the rewritten file's (warnings only: errors refuse it)
};

/// Applies tactic \p name with \p args to \p text (the file \p path, for
/// messages). InvalidArgument for an unknown tactic or a missing argument;
/// Source (with the located diagnostics, in the rewritten text) when the
/// rewrite does not apply or the result has errors.
Expected<TacticResult> applyTactic(const std::string &path, const std::string &text, std::string_view name,
                                   const std::map<std::string, std::string> &args);

/// The raster group written in \p kernel's schedule (the first sched.tiles(..., group = G) that names one),
/// the persistent tactic's subject; nullptr when none names one. \p schedules, when given, gets how many
/// sched.tiles calls the kernel makes.
const syntax::Expr *rasterGroup(const syntax::KernelDecl &kernel, size_t *schedules = nullptr);

/// What tactic \p tactic (stages, param, tile or persistent) would rewrite of \p subject in \p text, as
/// written: a ring's depth, a parameter's default, a tile const's value, a kernel's raster group; nullopt
/// when the file has none.
std::optional<std::string> writtenValue(const std::string &text, std::string_view tactic, const std::string &subject);

/// \p text with the value of each binding of \p bindings made its parameter's default (the param tactic's
/// edit, unchecked; ` = V` added to a parameter without a default): the file that checks as that
/// instantiation does without naming it. What the failure log keeps of a check of one instantiation, so
/// that cake evolve reduces the program that failed (`cake check F -p S=4` found fold.offset only at S = 4).
/// A binding of no parameter, or a text that does not parse, leaves the text as it is.
std::string pinParameters(const std::string &text, const std::vector<std::pair<std::string, std::string>> &bindings);

} // namespace cake
