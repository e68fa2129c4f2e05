//===- Expected.h - The oracle library's results ----------------*- C++ -*-===//
//
// Part of CAKE. The oracles return the project's one result type
// (diagnostics/Expected.h); their errors are bad workloads: InvalidArgument.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Expected.h"

namespace cake::oracle {

using cake::Error;
using cake::Expected;
using cake::Ok;
using cake::Status;

/// A workload the oracles cannot use: one sentence, no trailing period.
inline Error invalid(std::string message) { return Error(Error::InvalidArgument, std::move(message)); }

} // namespace cake::oracle
