//===- Contender.h - One side of a score: a candidate or a baseline -*- C++ -*-===//
//
// Part of CAKE. What the scorer (Score.h) needs of a kernel, whatever its
// arm: the image to load and, for buffers bound to the task's tensors at
// some sizes, the launches. A `.cake` contender binds the tensors by its
// kernels' parameter names through the lowering's launch plans
// (runner/LaunchLowered.h, the path `cake run` takes); a `.cu` contender
// takes the task's params in order and its launch line
// (`// cake-task: kernel=... grid=... block=...`, CudaCandidate.h).
// Both are only device code: the harness owns the stream, the launches and
// the timer.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/lower/Lower.h"
#include "compiler/oracle/Workload.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/runner/Build.h"
#include "compiler/runner/LaunchLowered.h"
#include "compiler/task/CudaCandidate.h"
#include "compiler/task/Task.h"

#include <memory>
#include <string>
#include <vector>

namespace cake::task {

class Contender {
public:
  virtual ~Contender() = default;
  /// "cake" or "cu".
  virtual std::string arm() const = 0;
  /// The image for \p device (a cubin on its own architecture, else PTX).
  virtual Expected<std::string> image(const runner::DeviceInfo &device) = 0;
  /// Tensors the contender needs beyond the task's (a `.cake` pipeline's
  /// intermediates), shaped at \p sizes; the scorer poisons them before
  /// every batch. An Error when a parameter does not fit the task (its
  /// dtype or shape differs from the task's tensor of that name).
  virtual Expected<std::vector<oracle::TensorSpec>> scratch(const Sizes &sizes) = 0;
  /// The launches over \p buffers (every tensor and scratch by name) at
  /// \p sizes, in order; the last one writes the outputs.
  virtual Expected<std::vector<pipeline::GpuLaunch>> launches(runner::Runner &gpu, const runner::Buffers &buffers,
                                                              const Sizes &sizes) = 0;
};

/// A lowered `.cake` file: \p kernels run in order (the last one writes the
/// outputs), built into \p build for \p target; its parameters named as
/// \p task's tensors must have their dtypes and shapes.
std::unique_ptr<Contender> cakeContender(std::vector<const lower::LoweredKernel *> kernels, LaunchLine line,
                                         runner::BuildResult build, Target target, const Task &task);

/// A `.cu` candidate: \p build of its source, its \p launch line, the task's
/// params in order.
std::unique_ptr<Contender> cudaContender(const Task &task, LaunchLine launch, runner::BuildResult build, Target target);

} // namespace cake::task
