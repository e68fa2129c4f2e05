//===- CudaCandidate.h - What a `.cu` task candidate must say ---*- C++ -*-===//
//
// Part of CAKE. A `.cu` candidate is device code only: the harness loads its
// kernels and launches them itself, on its stream, between its events, in a
// child process (docs/tasks.md). Two things are read from the source:
//
// - the launch line, a comment the author writes once:
//     // cake-task: kernel=gemm_tiled grid=cdiv(N,64),cdiv(M,64) block=256 smem=0
//   grid, block and cluster take one to three expressions over the task's
//   sizes (Expr.h), smem one; the kernel takes the task's params in order
//   (task.launch when it is missing or wrong);
// - host code, which would never run and is refused so that the author learns
//   it at once: runtime and driver API calls (cudaStreamCreate,
//   cudaEventElapsedTime, cuLaunchKernel, device-side cudaLaunchDevice...),
//   kernel launches (`<<<`) and `main` (task.host-code).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/task/Task.h"
#include "diagnostics/Diagnostic.h"
#include "diagnostics/Expected.h"
#include "diagnostics/Source.h"

#include <array>
#include <string>
#include <vector>

namespace cake::task {

struct LaunchLine {
  std::string kernel;               ///< .cu: the kernel launched
  std::vector<std::string> kernels; ///< .cake: the kernels run in order (default: every kernel, in file order)
  /// Sizes the candidate derives from the task's (`derive.KP=cdiv(K,256)*256`), in order: each expression may
  /// read the task's sizes and the ones derived before it.
  std::vector<std::pair<std::string, std::string>> derived;
  std::array<std::string, 3> grid = {"1", "1", "1"}, block = {"1", "1", "1"}, cluster = {"1", "1", "1"};
  std::string smem = "0";
  SourceRange range; ///< the comment
};

/// The launch line of buffer \p file, its expressions checked against the
/// task's sizes; an Error whose diagnostics (task.launch) say where. For
/// \p arm "cake" the line is optional and takes `kernels=` and `derive.*`
/// only; for "cu" it is required, with kernel, grid and block.
Expected<LaunchLine> readLaunchLine(const SourceManager &sm, FileId file, const Task &task,
                                    const std::string &arm = "cu");

/// The task's sizes and the line's derived ones, evaluated in order.
Expected<Sizes> deriveSizes(const LaunchLine &launch, const Sizes &sizes);

/// task.host-code at every host-side construct of buffer \p file (comments,
/// strings and preprocessor lines skipped), at most 20.
std::vector<Diagnostic> hostCodeFindings(const SourceManager &sm, FileId file);

/// The launch's dimensions at \p sizes: grid, block, cluster (x, y, z) and the
/// dynamic shared memory; an Error naming the field for a value out of range.
struct LaunchDimsAt {
  std::array<uint32_t, 3> grid, block, cluster;
  uint32_t smem = 0;
};
Expected<LaunchDimsAt> evalLaunch(const LaunchLine &launch, const Sizes &sizes);

} // namespace cake::task
