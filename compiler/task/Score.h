//===- Score.h - Scoring a candidate of a task on a GPU ---------*- C++ -*-===//
//
// Part of CAKE. The scorer of `cake task check|score` (docs/tasks.md). At
// each shape it checks the candidate, with a defence against each way a
// score is known to go wrong, then times it against the baseline:
//
//   mismatch, unwritten   the oracle on fresh seeded inputs; outputs
//                         poisoned (0xFF) before every launch, so a kernel
//                         that leaves them alone (or a stale buffer) fails
//   inputs-modified       the inputs read back unchanged after the launch
//   out-of-bounds         guard bands around every tensor keep their pattern
//   seed-independent      two seeds must give different outputs
//   constant-output       an output must not be one value repeated
//   cached-by-address     new inputs at the same addresses must give their
//                         own outputs (no cache keyed by a pointer)
//   adversarial           the task's adversarial input sets (large
//                         magnitudes, near ties, tiny values) pass the oracle
//   stale-after-timing    every timed batch runs on fresh inputs at fresh
//                         addresses, the outputs poisoned before every
//                         launch (a number of launches drawn from the
//                         seed), and is checked again after its timing
//   repeat-faster         a repeated launch more than 3x faster than one on
//                         new inputs (results kept by content)
//   launch-failed, timeout, unsupported-shape
//
// Timing: `rounds` batches of the candidate and of the baseline, interleaved
// (ABBA), each `warmup` + `reps` launches between events on the harness's
// stream with the whole context synchronized around them; the shape's time
// is the median of its batches. The scorer owns the runner, which a caller
// makes in a child process under the watchdog (cli/TaskCommand.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/runner/Runner.h"
#include "compiler/task/Contender.h"
#include "compiler/task/Task.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cake::task {

/// A shape to score at and the set it belongs to ("public", "heldout").
struct ShapeToScore {
  Sizes sizes;
  std::string set;
};

struct Rejection {
  std::string reason; ///< "mismatch", "cached-by-address", ... (the list above)
  std::string message;
  Sizes sizes;
  std::string set;
};

struct ShapeResult {
  Sizes sizes;
  std::string set;
  bool correct = false;
  std::string check;    ///< the oracle's summary of the first check
  double candidateMs = 0, baselineMs = 0; ///< medians of the batches; 0 when not timed
  double speedup = 0;   ///< baselineMs / candidateMs
  double floorMs = 0;   ///< max(flops / tensor rate, bytes / DRAM rate) of the device's target
  double fractionOfFloor = 0;
  double wallPerLaunchMs = 0; ///< the candidate's wall clock per timed launch, context synchronized around
  /// The candidate's median over its batches of one launch on the batch's new inputs (the GPU warmed on the
  /// batch before); 0 with fewer than two rounds.
  double freshMs = 0;
  std::vector<double> batchMs;  ///< the candidate's batch medians, in order
};

struct Score {
  std::string device, target;
  uint64_t seed = 0;
  bool accepted = false; ///< correct at every shape and no defence tripped
  std::vector<ShapeResult> shapes;
  std::vector<Rejection> rejections;
  double geomeanSpeedup = 0;  ///< over the shapes timed against a baseline
  double geomeanFraction = 0; ///< of the floor, over the shapes timed
  /// The baseline failed its own check or launch: the candidate is judged
  /// on its own checks, no speedup is given, and the score says why.
  std::string baselineError;
};

struct ScoreOptions {
  uint64_t seed = 1;
  bool time = true; ///< false: the checks only (`cake task check --no-time`)
  /// Announces a phase and its time budget to the watchdog; may be empty.
  std::function<void(double budgetSeconds, const std::string &what)> phase;
};

/// Scores \p candidate at \p shapes against \p baseline (may be null) on
/// \p gpu. An Error only for what is not the candidate's (no GPU, a module
/// of the baseline that does not load, memory for the tensors); everything
/// the candidate does wrong is a Rejection. After a launch that failed or
/// timed out the runner is wedged and the scoring stops there.
[[nodiscard]] Expected<Score> scoreOnGpu(runner::Runner &gpu, const Task &task, const std::vector<ShapeToScore> &shapes,
                                         Contender &candidate, Contender *baseline, const ScoreOptions &options);

//===-- The detectors, on host tensors (unit-tested on their own) ----------===//

/// True when \p t has more than one element and every element has the same bytes.
bool isConstant(const oracle::HostTensor &t);
/// True when \p a and \p b have more than one element and the same bytes.
bool sameBytes(const oracle::HostTensor &a, const oracle::HostTensor &b);

} // namespace cake::task
