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
#include "lsp/core/Documents.h"

namespace cake::lsp {

struct KernelCost {
  cost::Estimate estimate;
  cost::Sizes sizes;
  std::string sizesNote;       ///< "sizes of gemm.workload.json" or "representative sizes: ..."
  std::string calibrationNote; ///< which calibration
};

KernelCost kernelCost(const Analysis &a, const sema::Kernel &k);

/// The sizes kernelCost uses for \p k of the file \p path, and the note that
/// says where they come from.
std::pair<cost::Sizes, std::string> estimateSizes(const std::string &path, const sema::Kernel &k);

/// What a `*.workload.json` says: the kernel it names (empty when the name
/// is not a string, which matches no kernel), and its integer sizes.
struct WorkloadFile {
  std::optional<std::string> kernel;
  cost::Sizes sizes;
};
/// Reads the text of a workload file; nullopt when it is not one (not JSON,
/// no "sizes" object). Workload files are JSON, which the core does not
/// read: the protocol layer installs its reader (lsp/Protocol.cpp) when the
/// server starts. Without one, estimates use representative sizes.
using WorkloadReader = std::optional<WorkloadFile> (*)(const std::string &text);
void setWorkloadReader(WorkloadReader reader);

/// "1.234 ms", "5.20 us", "41 ns".
std::string formatSeconds(double seconds);

/// "M=8192 N=8192 K=8192".
std::string formatSizes(const cost::Sizes &sizes);

} // namespace cake::lsp
