//===- Oracles.h - CPU reference oracles for workloads ----------*- C++ -*-===//
//
// Part of CAKE. An oracle knows what a correct output of one workload is
// (docs/oracles.md, /work/shared/workloads/README.md): it recomputes a
// reference on the CPU, in fp64 (fp32 for KDA's recurrence, as the README
// defines it) from the same low-precision inputs the kernel read, and
// compares within a tolerance chosen so that a correct kernel always passes
// and a kernel with a real bug (a lost k-tile, a swapped id, a wrong gate)
// fails.
//
// Every check first scans every element of every output for the poison
// pattern (Poison.h); the value comparison then may sample, so that a check
// of the largest shapes takes seconds on two cores. Sampling is seeded
// (CheckOptions::seed) and always includes the boundaries where ragged-tile
// bugs live.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/oracle/Tensor.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::oracle {

/// The tensors of one run, by name.
using TensorMap = std::map<std::string, HostTensor>;

struct CheckOptions {
  double rtol = 1e-3; ///< the oracle's relative tolerance (see each oracle)
  double atol = 0;    ///< the oracle's absolute or cancellation slack (see each oracle)
  /// Most units to compare (GEMM: elements of C; kmeans.assign: rows; knn:
  /// queries; kda.fwd: (sequence, head) pairs); 0 = every unit. A work budget
  /// of about 2^31 multiply-adds lowers it further for huge problems.
  int64_t maxSamples = 0;
  uint64_t seed = 0; ///< picks the sample
  /// kda.fwd: the attention scale; 0 = 1/sqrt(head dim). A tensor "scale"
  /// (one f32 element) takes precedence.
  double scale = 0;
};

struct CheckReport {
  bool ok = false;
  int64_t checked = 0;    ///< values compared
  int64_t mismatches = 0; ///< compared values outside the tolerance
  int64_t unwritten = 0;  ///< output elements still poisoned (all are scanned)
  double maxAbsError = 0;
  double maxRelError = 0; ///< relative to the oracle's scale (see docs/oracles.md)
  /// "C[17, 3] = 1.25, expected 1.5 (error 2.5e-01 > tolerance 3.1e-02)".
  std::string firstMismatch;
  /// One line: the verdict, what was checked, the errors.
  std::string summary;
};

/// One tensor an oracle reads.
struct OracleTensor {
  std::string_view name;
  Role role = Role::Input;
  std::string_view shape;  ///< "[M, K]", for messages and docs
  std::string_view dtypes; ///< "bf16|f16"
  bool optional = false;
};

struct Oracle {
  std::string_view name;    ///< "gemm", "kmeans.assign", ...
  std::string_view summary; ///< one line
  std::vector<OracleTensor> tensors;
  CheckOptions defaults; ///< tolerances and sample size from the workloads README

  /// Checks the outputs in \p tensors: shapes and dtypes, then unwritten
  /// elements (every one), then values (sampled per \p options).
  CheckReport check(const TensorMap &tensors, const CheckOptions &options) const;

  CheckReport (*compare)(const TensorMap &, const CheckOptions &) = nullptr;
};

/// The oracle called \p name, or null.
const Oracle *findOracle(std::string_view name);
/// Every oracle, in a fixed order.
std::span<const Oracle> allOracles();

} // namespace cake::oracle
