//===- Padding.h - Problems of a D that is not a multiple of 8 -*- C++ -*-===//
//
// Part of CAKE. The kernels take any D that is a multiple of 8 (rows of whole
// 16-byte vectors, as TMA and the vector loads read them) on the caller's
// tensors: they read rows DP columns at a time, zero past D. A problem of
// another D, the slower path, runs at D rounded up to a multiple of 8: the
// library copies x and the centroids into zero-padded scratch rows
// (cuMemcpy2DAsync) and the results back. Zero columns change no distance,
// norm or mean, so the answer is the unpadded problem's; the cost is the
// copies.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/runner/Runner.h"
#include "lib/kmeans/Status.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace cake::kmeans {

/// The D the kernels run a problem of \p D at: \p D rounded up to a multiple
/// of 8 (a D no kernel takes, past 512, is dispatch's to refuse).
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
