//===- Pipeline.h - A KMeans variant's kernels, checked and launched -*- C++ -*-===//
//
// Part of CAKE. A variant (Dispatch.h) as the libraries' shared pipeline
// (lib/core/Launch.h): its kernels in launch order (the zero kernel first,
// the distance kernel last when the call passes a "dist" tensor) at the
// sizes B, N, K, D and KP.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Launch.h"
#include "lib/kmeans/Dispatch.h"
#include "lib/kmeans/Status.h"

#include <vector>

namespace cake::kmeans {

using libcore::Device;
using libcore::enqueue;
using libcore::fromRunner;
using libcore::KernelFile;
using libcore::Located;
using libcore::Pipeline;
using libcore::ScratchBuffer;
using libcore::StreamBuffer;
using libcore::TensorSpec;

/// How long fit waits for the stream (lib/core/Device.h).
inline constexpr const char *kTimeoutVariable = "CAKE_KMEANS_TIMEOUT_S";

/// The element type of a dtype.
sema::Elem elemOf(DType t);

/// See the file comment. Fails with CAKE_KMEANS_NOT_AVAILABLE when the build
/// lacks the variant's file or it did not build.
Status preparePipeline(const Variant &variant, const Problem &problem, std::vector<TensorSpec> tensors,
                       Pipeline &out);

/// The GPU of \p tensors (lib/core/Device.h), its runner waiting at most
/// CAKE_KMEANS_TIMEOUT_S.
Status openDevice(std::initializer_list<Located> tensors, runner::Stream stream, Device *&out);

} // namespace cake::kmeans
