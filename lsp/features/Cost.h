//===- Cost.h - The cost model in the editor -------------------*- C++ -*-===//
//
// Part of CAKE. The estimate hover and inlay hints show: the cost model at
// the sizes of a workload file next to the document (`*.workload.json`
// naming the kernel, or naming none with every size symbol bound), else at
// representative sizes (every size symbol = 4096), which the hover says.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cost/Cost.h"
#include "lsp/Documents.h"

namespace cake::lsp {

struct KernelCost {
  cost::Estimate estimate;
  cost::Sizes sizes;
  std::string sizesNote;       ///< "sizes of gemm.workload.json" or "representative sizes: ..."
  std::string calibrationNote; ///< which calibration
};

KernelCost kernelCost(const Analysis &a, const sema::Kernel &k);

/// "1.234 ms", "5.20 us", "41 ns".
std::string formatSeconds(double seconds);

/// "M=8192 N=8192 K=8192".
std::string formatSizes(const cost::Sizes &sizes);

} // namespace cake::lsp
