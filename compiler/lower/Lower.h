//===- Lower.h - CAKE IR to CUDA C++ ---------------------------*- C++ -*-===//
//
// Part of CAKE. The lowering turns a checked module into one CUDA C++
// translation unit (readable, with `#line` directives back to the IR) that
// includes the device runtime (runtime/cake_device.cuh), plus a launch plan
// per kernel: the kernel's parameter list, the TMA tensor maps the host must
// encode, the dynamic shared memory, how the grid follows from the sizes,
// the facts to check at launch, and the table of barrier-wait sites that the
// hang watchdog maps back to IR ranges.
//
// What it derives is what docs/language.md sections 5-8 promise: the shared
// memory layout, barrier initialization, role dispatch with setmaxnreg,
// ring barriers, phases, expect-tx byte counts and deferred releases, named
// barrier ids, tensor maps. A construct it cannot lower yet is reported as
// `lower.unsupported` at its range; it never emits code it is unsure of.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"
#include "diagnostics/Expected.h"
#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::lower {

struct LowerOptions {
  /// Bound every barrier wait: a wait that exceeds `hangTimeoutMs` records
  /// its site in the hang record (the kernel's last parameter) and traps.
  bool boundedWaits = false;
  uint32_t hangTimeoutMs = 2000;
  /// The file name written in `#line` directives ("" = the buffer's name).
  std::string lineFile;
  /// The instantiation lowered, for the header comment ("instantiation
  /// assign_d64_wg2: D = 64, ..."; "" for a file without parameters).
  std::string instantiation;
};

/// One TMA tensor map the host encodes for a kernel: a box over a global
/// parameter. Dimensions are written outermost first, as in the IR.
struct TensorMapPlan {
  std::string param;          ///< the global parameter it covers
  std::vector<uint32_t> box;  ///< box extent per parameter dimension (1 for dropped ones)
  uint32_t swizzle = 0;       ///< bytes: 0, 32, 64, 128
};

/// One parameter of the generated kernel, in order.
struct KernelArg {
  enum Kind { TensorMap, Pointer, Scalar, Size, HangRecord } kind;
  std::string name;    ///< the IR parameter or size symbol
  size_t map = 0;      ///< index into LoweredKernel::maps for TensorMap
};

/// A barrier wait that the hang watchdog can name.
struct WaitSite {
  SourceRange range;   ///< the IR operation that waits
  std::string role;    ///< the waiting role
  std::string what;    ///< "ring 'ab': full barrier (the consumer waits for data)"
};

struct LoweredKernel {
  std::string name; ///< the IR kernel name, also the extern "C" symbol
  const sema::Kernel *kernel = nullptr;
  std::vector<KernelArg> args;
  std::vector<TensorMapPlan> maps;
  uint32_t block = 0;
  uint32_t dynamicShared = 0; ///< bytes, including the alignment slack
  std::vector<WaitSite> waits;
};

struct LoweredModule {
  std::string source; ///< the CUDA translation unit
  std::vector<LoweredKernel> kernels;
  const LoweredKernel *kernel(std::string_view name) const;
};

/// Lowers every kernel of \p model (which must have checked without errors)
/// from \p file. Findings (lower.unsupported) go to \p diagnostics; the
/// result is meaningful only when none of them is an error.
LoweredModule lowerModule(const SourceManager &sm, FileId file, const sema::Module &model,
                          std::vector<Diagnostic> &diagnostics, const LowerOptions &options = {});

//===-- Launching ------------------------------------------------------------===//

/// Size symbols bound to values, e.g. {M: 8192, N: 8192, K: 8192}.
using Bindings = std::map<std::string, int64_t, std::less<>>;

struct LaunchDims {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t cluster[3] = {1, 1, 1};
};

/// The grid of \p kernel at \p sizes on a GPU with \p smCount SMs, after
/// checking that every size symbol is bound and positive, fits in a 32-bit
/// index, and satisfies the kernel's `assume` facts. Errors are one sentence.
[[nodiscard]] Expected<LaunchDims> planLaunch(const LoweredKernel &kernel, const Bindings &sizes, int smCount);

/// The shape of global parameter \p param at \p sizes (outermost first).
std::optional<std::vector<int64_t>> paramShape(const sema::Kernel &kernel, std::string_view param,
                                               const Bindings &sizes);

} // namespace cake::lower
