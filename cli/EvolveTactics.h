//===- EvolveTactics.h - cake evolve's tactic proposals ---------*- C++ -*-===//
//
// Part of CAKE (issue #21): `cake evolve`'s (c), edits that repeatedly improved
// measured time, read from the tuning database (formats/TuneDb.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace cake::cli {

/// Writes a proposal under \p out (tactic_P_A_to_B/README.md) for each edit of one schedule axis (a
/// searched parameter, or a ring's depth) from A to B that the database \p db measured at \p minProblems
/// problems or more, with the rest of the schedule held, and that made every one of them 3% or more faster:
/// the evidence per problem, the cost model's view of the same pairs, and the edit as a tactic applied to
/// the file and checked (the gate). Returns how many it wrote; says each on stdout.
size_t tacticProposals(const std::string &db, const std::filesystem::path &out, size_t minProblems);

} // namespace cake::cli
