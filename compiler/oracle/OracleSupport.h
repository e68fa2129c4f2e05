//===- OracleSupport.h - What the oracles share -----------------*- C++ -*-===//
//
// Part of CAKE. Internal to compiler/oracle/: the per-oracle entry points,
// tensor look-up and shape checks, seeded sampling, and Tally, which
// accumulates one thread's comparisons into a CheckReport.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/oracle/Expected.h"
#include "compiler/oracle/Oracles.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cake::oracle {

// One per oracle file; the registry (Oracles.cpp) lists them.
CheckReport compareGemm(const TensorMap &tensors, const CheckOptions &options);
CheckReport compareKMeansAssign(const TensorMap &tensors, const CheckOptions &options);
CheckReport compareKMeansUpdate(const TensorMap &tensors, const CheckOptions &options);
CheckReport compareKnn(const TensorMap &tensors, const CheckOptions &options);
CheckReport compareKdaFwd(const TensorMap &tensors, const CheckOptions &options);

/// Multiply-adds a sampled check may spend (about a second on two cores).
constexpr int64_t kWorkBudget = int64_t(1) << 31;

/// The tensor \p name, or null.
const HostTensor *find(const TensorMap &tensors, const std::string &name);
/// An Error unless \p t has \p rank dimensions.
Status expectRank(const HostTensor &t, size_t rank, std::string_view what);
/// An Error unless \p t has exactly \p shape (named \p what, "[M, N]").
Status expectShape(const HostTensor &t, const std::vector<int64_t> &shape, std::string_view what);
/// An Error unless \p t is a float tensor.
Status expectFloat(const HostTensor &t);
/// An Error unless \p t is i32 or i64.
Status expectInt(const HostTensor &t);
/// A failed report that says \p message.
CheckReport failure(std::string message);

/// How many of \p total units to compare at \p costPerUnit multiply-adds
/// each: all when maxSamples is 0; else maxSamples, lowered to the work
/// budget but never below \p floor.
int64_t sampleCount(int64_t total, int64_t costPerUnit, const CheckOptions &options, int64_t floor);
/// \p count distinct indices of [0, total), sorted: \p always (those in
/// range) first, the rest drawn with \p seed. All of them when count >= total.
std::vector<int64_t> sampleIndices(int64_t total, int64_t count, uint64_t seed, std::vector<int64_t> always);

/// Whether element \p i of \p t holds the poison pattern (counted as
/// unwritten by Oracle::check, so skipped by the value comparisons).
bool isPoisonAt(const HostTensor &t, int64_t i);

/// "1.25", "3.1e-02": short, round-trippable enough for a message.
std::string num(double v);

/// One thread's comparisons. Merge in a fixed order for a deterministic
/// firstMismatch.
struct Tally {
  int64_t checked = 0, mismatches = 0;
  double maxAbsError = 0, maxRelError = 0;
  std::string firstMismatch;

  /// Compares \p got with \p expected: a mismatch when |got - expected| >
  /// \p tol or got is not finite; \p scale normalizes the relative error.
  /// The message names element \p flat of \p t ("C[17, 3]").
  bool compare(double got, double expected, double tol, double scale, const HostTensor &t, int64_t flat);
  /// Records one comparison that passed or not, with its absolute and
  /// relative errors; \p message says why not (called for the first failure only).
  bool record(bool ok, double absError, double relError, const std::function<std::string()> &message);
  /// Records a mismatch that is not a numeric comparison (an id out of range).
  void fail(std::string message);
  void merge(const Tally &other);
  void into(CheckReport &report) const;
};

} // namespace cake::oracle
