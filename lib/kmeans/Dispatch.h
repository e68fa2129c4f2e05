//===- Dispatch.h - Which kernel variant runs a KMeans problem --*- C++ -*-===//
//
// Part of CAKE. A variant is a pipeline of kernels from one embedded kernel
// file (kernels/kmeans/*.cake) plus what the library must provide around
// them (scratch buffers, the padded centroid count KP). The dispatcher picks
// the variant for a problem (operation, B, N, K, D, dtype, the GPU's SM count
// and compute capability) with the rules of the library's manifest
// (kernels/kmeans/kmeans.manifest.json, embedded at build time): the first
// rule whose instantiation's domain holds the problem, and whose fitted
// predicate holds, wins. A problem that no rule covers is refused with the
// list of what the build supports.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/library/Manifest.h"
#include "lib/kmeans/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cake::kmeans {

/// The element type of x and c; the values are the C API's.
enum class DType { BF16 = CAKE_KMEANS_BF16, F16 = CAKE_KMEANS_F16, F32 = CAKE_KMEANS_F32 };

/// "bf16", "fp16", "fp32".
std::string_view dtypeName(DType t);
size_t dtypeBytes(DType t);

enum class Op { Assign, Update };

/// "assign", "update".
std::string_view opName(Op op);

struct Problem {
  Op op = Op::Assign;
  int64_t B = 1, N = 1, K = 1, D = 1;
  DType dtype = DType::BF16;
  /// The GPU's SM count; 0 = not known yet (rules on it then match).
  int smCount = 0;
  /// 10 * major + minor (90 for 9.0); 0 = not known yet (rules on it then match).
  int computeCapability = 0;
};

/// A kernel pipeline and what the library provides around it: one
/// instantiation of the manifest and its entry (compiler/library/Manifest.h);
/// the views point into the embedded manifest.
struct Variant {
  std::string_view name; ///< the instantiation: "assign_sm90"
  Op op = Op::Assign;
  std::string_view file; ///< the embedded kernel file (EmbeddedFile::name, the same)
  /// The kernels, in launch order.
  std::vector<std::string_view> kernels;
  /// Run last when the call asks for the distances (passes a "dist" tensor).
  std::string_view distanceKernel;
  /// Global parameters the library allocates (per call, stream ordered),
  /// shaped by the IR at the bound sizes.
  std::vector<std::string_view> scratch;
  /// When the file has this kernel it runs first; when it does not, the
  /// library zero-fills the scratch buffers instead ("" = neither).
  std::string_view zeroKernel;
  /// KP = K rounded up to a multiple of this (the kernels pad to it).
  int64_t kPad = 1;
  /// The target the file is built for, and the GPUs that run it.
  std::string_view target;
  int computeCapability = 0;
  /// What it covers, for messages: "bf16, D = 128".
  std::string_view covers;
};

/// The manifest's problem for \p p: op, dtype, B, N, K, D, SMS (the H200's
/// 132 when the GPU is not known yet: the rules were fitted there), cc.
library::Problem manifestProblem(const Problem &p);

/// The manifest's predicates on \p p (kernels/kmeans/kmeans.manifest.json):
/// whether three compute warpgroups (192-row x tiles) beat two (128), and
/// whether splitting the centroid range 4 ways pays, on its SM count.
bool threeWarpgroupsPay(const Problem &p);
bool splitPays(const Problem &p);

/// Every variant the library knows (whether or not its file is in this build),
/// in the manifest's order.
std::span<const Variant> variants();
const Variant *findVariant(std::string_view name);

/// The variant chosen, or Unsupported when no rule matches.
using Dispatched = Expected<const Variant *>;

/// The variant for \p problem: the forced one of its operation when there
/// is one (forceVariant), else the first matching rule's (library::dispatch
/// over the embedded manifest).
Dispatched dispatch(const Problem &problem);

/// Why dispatch() chose what it chose: one line per rule tried (the forcing,
/// when a variant is forced), the same text `cake dispatch explain` prints.
std::string explain(const Problem &problem);

/// Sends every problem of \p name's operation to that variant (for sweeps that
/// measure variants through the library), or, with an empty name, clears
/// both operations' forcing. Fails on an unknown name. A forced variant that
/// cannot take a problem fails that call with CAKE_KMEANS_UNSUPPORTED.
Status forceVariant(std::string_view name);
/// The variant forced for \p op (null when none): what a cache keyed by
/// dispatch keys on, so that forcing a variant and clearing it again finds
/// the pipelines prepared before (an A/B interleaving a forced variant with
/// the dispatched one times the calls, not their preparation).
const Variant *forcedVariant(Op op);

} // namespace cake::kmeans
