//===- Dispatch.h - Which instantiation runs a KNN search -------*- C++ -*-===//
//
// Part of CAKE. The problem of a search (Q, N, D, k, dtype, the GPU's SM
// count and compute capability) goes to the first rule of the library's
// manifest (kernels/knn/knn.manifest.json, embedded at build time) whose
// instantiation's domain and entry condition hold it (library::dispatch, the
// code `cake dispatch explain` runs), at the sizes its entry derives
// (library::sizesOf: the split S of the database, the padded NP, ...). A
// problem no rule covers is refused with what the build supports.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/library/Manifest.h"
#include "lib/core/Errors.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cake::knn {

using cake::Error;
using cake::Ok;
using cake::Status;
using libcore::internal;
using libcore::invalid;
using libcore::notAvailable;
using libcore::unsupported;

/// The element type of q and db; the values are the C API's (cake_knn.h).
enum class DType { BF16 = 0, F16 = 1 };

/// "bf16", "fp16".
std::string_view dtypeName(DType t);

struct Problem {
  int64_t Q = 1, N = 1, D = 8, k = 1;
  DType dtype = DType::F16;
  /// The GPU's SM count; 0 = not known yet (the H200's 132 is assumed).
  int smCount = 0;
  /// 10 * major + minor; 0 = not known yet (rules on it then match).
  int computeCapability = 0;
};

/// The manifest's problem for \p p: op = search, dtype, Q, N, D, k, SMS, cc.
library::Problem manifestProblem(const Problem &p);

/// An instantiation chosen for a problem, with the sizes it runs at (Q, N,
/// D, k and its entry's sizes).
struct Choice {
  const library::Instance *instance = nullptr;
  const library::Entry *entry = nullptr;
  std::vector<std::pair<std::string, int64_t>> sizes;
};

/// The instantiation for \p p: the forced one when there is one
/// (forceVariant), else the first matching rule's. Unsupported when none
/// matches (the message says what the build takes).
Expected<Choice> dispatch(const Problem &p);

/// Why dispatch() chooses what it does: one line per rule tried, then the
/// sizes; the text of `cake dispatch explain kernels/knn/knn.manifest.json`.
std::string explain(const Problem &p);

/// Sends every search to the instantiation \p name (empty: clears it).
/// InvalidArgument for an unknown name.
Status forceVariant(std::string_view name);
/// The instantiation forced (null when none): what a cache keyed by dispatch
/// keys on, so that forcing one and clearing it again finds the pipelines
/// prepared before.
const library::Instance *forcedInstance();

} // namespace cake::knn
