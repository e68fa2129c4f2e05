//===- EvolveProposals.h - cake evolve's tactics and primitives -*- C++ -*-===//
//
// Part of CAKE (issue #21): `cake evolve`'s (c), edits that repeatedly improved
// measured time, read from the tuning database (formats/TuneDb.h;
// EvolveTactics.cpp), and (d), escape-hatch patterns that recur across
// kernels (EvolvePrimitives.cpp). The rule and calibration proposals are
// EvolveCommand.cpp's.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace cake::cli {

/// Writes a proposal under \p out (tactic_P_A_to_B/README.md) for each edit of one schedule axis (a
/// searched parameter, or a ring's depth) from A to B that the database \p db measured at \p minProblems
/// problems or more, with the rest of the schedule held, and that made every one of them 3% or more faster:
/// the evidence per problem, the cost model's view of the same pairs, and the edit as a tactic applied to
/// the file and checked (the gate). Returns how many it wrote; says each on stdout.
size_t tacticProposals(const std::string &db, const std::filesystem::path &out, size_t minProblems);

/// Writes a proposal under \p out (primitive_OPS/README.md) for each set of escape hatches (sema::isEscapeHatch:
/// raw mbarriers, barrier ids, raw cp.async groups, tcgen05.commit) that \p minKernels kernels or more of
/// \p files, in files that check clean, use alike (a pattern only failing programs share is a rule's case, not
/// a primitive's): where each use is, whether its file checks, and the nearest primitive, or none. Returns
/// how many it wrote.
size_t primitiveProposals(const std::vector<std::string> &files, const std::filesystem::path &out, size_t minKernels);

} // namespace cake::cli
