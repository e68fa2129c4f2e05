//===- Padding.h - Problems of a D the kernels are not built for -*- C++ -*-===//
//
// Part of CAKE. The kernels are built for D = 32, 64, 128, 256 and 512. A
// problem of another D (up to 512) runs on the next of these: the library
// copies x and the centroids into zero-padded scratch rows (cuMemcpy2DAsync)
// and the results back. Zero columns change no distance, norm or mean, so the
// answer is the unpadded problem's; the cost is the copies.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/runner/Runner.h"
#include "lib/kmeans/Status.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace cake::kmeans {

/// The D the kernels run a problem of \p D at: the smallest built width that
/// holds it, or \p D itself past 512 (which no kernel takes: dispatch says so).
int64_t kernelD(int64_t D);

/// A tensor of rows D wide that the kernels read (in) or write (out) at kernel D.
struct WideTensor {
  std::string_view name;
  runner::DevicePtr address = 0; ///< the caller's, rows D wide
  int64_t rows = 0;
  bool in = true, out = false;
  runner::DevicePtr padded = 0; ///< its copy, rows kernel D wide (set by padIn)
};

/// Scratch bytes for the padded copies of \p tensors.
uint64_t paddedBytes(const std::vector<WideTensor> &tensors, int64_t kernelD, size_t elemBytes);

/// Places each tensor's padded copy in \p scratch (paddedBytes of it) and
/// enqueues, for the inputs, zero fill then the rows' copy.
Status padIn(runner::Runner &gpu, runner::Stream stream, std::vector<WideTensor> &tensors, runner::DevicePtr scratch,
             int64_t D, int64_t kernelD, size_t elemBytes);

/// Enqueues the copy of each output's padded rows back to the caller's.
Status padOut(runner::Runner &gpu, runner::Stream stream, const std::vector<WideTensor> &tensors, int64_t D,
              int64_t kernelD, size_t elemBytes);

} // namespace cake::kmeans
