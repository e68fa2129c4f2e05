//===- Task.h - A kernel task an agent is scored on -------------*- C++ -*-===//
//
// Part of CAKE. `cake task` (issue #22, docs/tasks.md): a task is a workload
// (its oracle, its tensors with symbolic shapes, their inits and the check's
// tolerances), the shapes a candidate is scored at (public ones listed,
// held-out ones drawn from the task's domain at score time with a seed the
// scorer picks), a baseline timed in the same process, adversarial input sets,
// the arms allowed (`.cake`, `.cu`) and the limits. Plain C++: the JSON form
// is read in cli/ (architecture invariant 2).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/oracle/Workload.h"
#include "diagnostics/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::task {

using Sizes = std::map<std::string, int64_t>;

/// The values a size takes in held-out shapes: one of `values`, else
/// log-uniform in [min, max] rounded to a multiple of `multiple`.
struct SizeDomain {
  std::vector<int64_t> values;
  int64_t min = 1, max = 1, multiple = 1;
};

/// An input set whose values a precision cut or a near tie gets wrong:
/// tensor name -> init ("uniform(-3000,3000)", "normal(0,1e-3)").
struct AdversarialSet {
  std::string name;
  std::map<std::string, std::string> inits;
};

struct Timing {
  int rounds = 5;   ///< batches of each contender, interleaved (ABBA)
  int warmup = 3;   ///< untimed launches per batch
  int reps = 20;    ///< timed launches per batch, on fresh inputs at fresh addresses
  bool coldL2 = false;
};

struct Task {
  std::string name, summary;
  /// The oracle, the tensors (dtype, symbolic shape, role, init) and the
  /// check's tolerances; `sizes` and `seed` are set per shape and round.
  oracle::Workload workload;
  /// A `.cu` candidate's kernel parameters, in order: a tensor's name is a
  /// pointer to it, a size's name an int32 value (docs/tasks.md).
  std::vector<std::string> params;
  std::string flops; ///< "2*M*N*K", an expression over the sizes (Expr.h)
  std::vector<Sizes> publicShapes;
  std::map<std::string, SizeDomain> domain; ///< every size of the workload
  int heldoutCount = 0;
  /// An upper bound on the bytes of all tensors of a drawn shape (a draw over
  /// it is drawn again).
  double maxBytes = 4e9;
  std::vector<AdversarialSet> adversarial;
  /// The baseline: a `.cake` or `.cu` file (relative to the task's folder),
  /// timed in the same process as the candidate, interleaved. Empty: none.
  std::string baseline;
  /// The baseline's `// cake-task:` fields (CudaCandidate.h) when its file
  /// has no such line (a library kernel: kernels=..., derive.KP=...).
  std::string baselineLine;
  /// The `.cake` start `cake task init --arm cake` writes (relative to the
  /// task's folder), with its `// cake-task:` fields put first.
  std::string start, startLine;
  /// A peers file (cli/BenchPeers.h form) with the peers' times measured
  /// elsewhere: reported beside the score as a reference, never as the
  /// baseline (not the same process).
  std::string peers;
  std::vector<std::string> arms = {"cake", "cu"};
  double launchTimeoutSeconds = 10;
  /// The agent's time budget for the task, reported with the score.
  double budgetSeconds = 3600;
  Timing timing;
  std::string dir; ///< the folder the task file is in
};

/// The task's errors a reader cannot see from the JSON alone: an unknown
/// oracle, a tensor the oracle needs missing, a param that is neither a
/// tensor nor a size, a shape or domain missing a size, an adversarial set
/// naming no input. The sentence names the field.
Status validate(const Task &task);

/// The sizes the workload's tensors and the params name, sorted.
std::vector<std::string> sizeNames(const Task &task);

/// \p count held-out shapes drawn from the task's domain with \p seed (each
/// size within its domain, the tensors' bytes under maxBytes, none equal to a
/// public shape). The same seed draws the same shapes.
Expected<std::vector<Sizes>> drawHeldout(const Task &task, int count, uint64_t seed);

/// The bytes of every tensor of the workload at \p sizes.
double tensorBytes(const Task &task, const Sizes &sizes);

/// "M=4096, N=4096, K=4096".
std::string sizesText(const Sizes &sizes);

} // namespace cake::task
