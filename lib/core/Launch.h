//===- Launch.h - A library call's kernels, checked and launched -*- C++ -*-===//
//
// Part of CAKE. preparePipeline (no GPU): an embedded file lowered
// (KernelFiles.h), the kernels a call launches found in it, every global
// parameter of theirs either a tensor of the call (its element type and
// shape in the IR, at the bound sizes, must be the call's: a dispatch rule
// that sends a problem to an instantiation that cannot take it fails here)
// or one of the call's scratch buffers (sized from the IR, laid out in one
// block). enqueue: the kernels launched on the caller's stream through the
// runner's lowered-kernel path (compiler/runner/LaunchLowered.h, the one
// `cake run` uses), their packed launches kept for repeated calls.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/runner/LaunchLowered.h"
#include "lib/core/Device.h"
#include "lib/core/KernelFiles.h"

#include <string>
#include <vector>

namespace cake::libcore {

/// A tensor of the call as the kernels must see it.
struct TensorSpec {
  std::string name; ///< the IR parameter name
  sema::Elem elem = sema::Elem::BF16;
  std::vector<int64_t> shape;
};

/// A scratch buffer inside the pipeline's scratch block.
struct ScratchBuffer {
  std::string name;
  sema::Elem elem = sema::Elem::FP32;
  std::vector<int64_t> shape;
  uint64_t bytes = 0, offset = 0;
};

/// What a call launches: kernels of one embedded instantiation.
struct PipelineSpec {
  std::string_view name; ///< the instantiation ("variant" in messages)
  const EmbeddedFile *embedded = nullptr;
  const library::Manifest *manifest = nullptr;
  /// Run first when the file has it; when it does not, the scratch is
  /// zero-filled instead ("" = neither).
  std::string_view zeroKernel;
  /// The kernels, in launch order.
  std::vector<std::string_view> kernels;
  /// The kernels from this one on run \p passes times, the scalar PASS bound
  /// to 0, 1, ... (library::Entry::repeat; "" = once).
  std::string_view repeat;
  int64_t passes = 1;
  /// Global parameters the library allocates (per call, stream ordered).
  std::vector<std::string_view> scratch;
  lower::Bindings sizes;
};

struct Pipeline {
  std::string_view name; ///< the instantiation
  const KernelFile *file = nullptr;
  std::vector<const lower::LoweredKernel *> kernels; ///< in launch order (the zero kernel first)
  size_t repeatFrom = 0;                              ///< kernels[repeatFrom ..] run once per pass
  int64_t passes = 1;
  bool zeroFill = false;                              ///< no zero kernel: fill the scratch with zeros
  lower::Bindings sizes;
  std::vector<TensorSpec> tensors;
  std::vector<ScratchBuffer> scratch;
  uint64_t scratchBytes = 0;

  const ScratchBuffer *findScratch(std::string_view name) const;
};

/// See the file comment. Fails with NotAvailable when the embedded file did
/// not build, Unsupported when a tensor does not match the IR's.
Status preparePipeline(const PipelineSpec &spec, std::vector<TensorSpec> tensors, Pipeline &out);

/// Enqueues \p pipeline on \p stream: \p addresses gives every tensor's
/// device address, \p scratch the start of a block of scratchBytes (256-byte
/// aligned). Call with the device locked.
Status enqueue(Device &device, runner::Stream stream, const Pipeline &pipeline, const runner::Buffers &addresses,
               runner::DevicePtr scratch);

/// Stream-ordered device memory that goes back to the runner's pool when
/// the object dies (freeOn on the same stream: after the work that uses it).
class StreamBuffer {
public:
  StreamBuffer(runner::Runner &runner, runner::Stream stream) : runner_(runner), stream_(stream) {}
  ~StreamBuffer();
  StreamBuffer(const StreamBuffer &) = delete;
  StreamBuffer &operator=(const StreamBuffer &) = delete;
  /// Allocates \p bytes (nothing for 0).
  Status allocate(uint64_t bytes, const std::string &what);
  runner::DevicePtr address() const { return ptr_; }

private:
  runner::Runner &runner_;
  runner::Stream stream_;
  runner::DevicePtr ptr_ = 0;
};

} // namespace cake::libcore
