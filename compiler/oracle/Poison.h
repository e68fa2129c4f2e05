//===- Poison.h - Poisoned outputs and unwritten elements -------*- C++ -*-===//
//
// Part of CAKE. Before a launch every output is filled with 0xFF bytes: a
// NaN for floats (0xFFFF for bf16 and fp16, 0xFFFFFFFF for fp32) and -1 for
// integers. An element that still holds exactly that pattern afterwards was
// not written by the kernel. (An int output whose correct value is -1 would
// read as unwritten; no oracle of CAKE has one.)
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/oracle/Tensor.h"

#include <cstdint>

namespace cake::oracle {

/// Fills every byte of \p t with 0xFF.
void poison(HostTensor &t);

struct Unwritten {
  int64_t count = 0;  ///< elements still equal to the poison pattern
  int64_t first = -1; ///< flat index of the first one; -1 when count is 0
};

/// Scans every element of \p t (multi-threaded) for the exact poison pattern.
Unwritten countUnwritten(const HostTensor &t);

} // namespace cake::oracle
