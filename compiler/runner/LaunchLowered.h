//===- LaunchLowered.h - Launching a lowered kernel ------------*- C++ -*-===//
//
// Part of CAKE. The one path from a lowered kernel (lower::LoweredKernel:
// its parameter order, tensor-map boxes and swizzles, dynamic shared memory,
// grid rule, block and cluster), device buffers and bound sizes to a launch.
// `cake run FILE.cake` and libcake_kmeans.so both go through it.
//
// Two steps, so that the first can be checked without a GPU:
//   planLowered: GPU-free. Binds the sizes (lower::planLaunch: every size
//     bound and in range, the kernel's facts true, the grid), lays out one
//     argument per kernel parameter, and describes each tensor map (dtype and
//     shape from the IR at the bound sizes, packed strides, the plan's box
//     and swizzle). Errors are the caller's: sizes, a missing buffer.
//   packLowered: encodes the tensor maps on the runner and packs the
//     parameters in the kernel's order. Errors are the driver's (or a tensor
//     map the driver refuses).
// The result launches with Runner::launch or Runner::launchOn.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/lower/Lower.h"
#include "compiler/runner/Runner.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::runner {

/// Device buffers by IR parameter name.
using Buffers = std::map<std::string, DevicePtr, std::less<>>;

/// One kernel parameter of a planned launch.
struct PlannedArg {
  lower::KernelArg::Kind kind = lower::KernelArg::Pointer;
  std::string name;     ///< the IR parameter or size symbol
  DevicePtr pointer = 0; ///< Pointer
  int32_t size = 0;      ///< Size, or a Scalar's four bytes
  TensorMapDesc map;     ///< TensorMap: everything but the encoding
};

/// A lowered kernel's launch at given sizes and buffers, before any GPU work.
struct LaunchPlan {
  const lower::LoweredKernel *kernel = nullptr;
  std::vector<PlannedArg> args; ///< in the kernel's parameter order
  LaunchConfig config;
  bool needsHangRecord = false; ///< lowered with bounded waits (--watch-hangs)
};

/// The tensor-map element type of an IR element type: bf16, fp16 and fp32.
std::optional<TensorDType> tensorMapDType(sema::Elem elem);

/// Plans a launch of \p kernel with \p buffers (every global parameter that
/// it passes as a pointer or a tensor map) at \p sizes on a GPU with
/// \p smCount SMs. An error (InvalidArgument) is one sentence that names
/// the kernel.
[[nodiscard]] Expected<LaunchPlan> planLowered(const lower::LoweredKernel &kernel, const Buffers &buffers,
                                               const lower::Bindings &sizes, int smCount);

/// A planned launch with its tensor maps encoded and its parameters packed.
struct LoweredLaunch {
  const lower::LoweredKernel *kernel = nullptr;
  KernelParams params;
  LaunchConfig config;
};

/// Encodes the tensor maps of \p plan on \p runner and packs the parameters;
/// \p hangRecord is the device address of the hang record when
/// plan.needsHangRecord.
Expected<LoweredLaunch> packLowered(Runner &runner, const LaunchPlan &plan, DevicePtr hangRecord = 0);

} // namespace cake::runner
