//===- Workload.h - Workloads: sizes, tensors, inits, oracle ----*- C++ -*-===//
//
// Part of CAKE. What `cake run --workload` runs, as plain C++ (the JSON
// form is parsed in cli/, architecture invariant 2): a kernel, its oracle,
// named sizes, the tensors with symbolic shapes, how inputs are filled and
// how outputs are checked. makeTensors() resolves every shape, fills every
// input from its init (seed derived from the workload's seed and the
// tensor's name, so adding a tensor changes no other) and poisons every
// output.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/oracle/Expected.h"
#include "compiler/oracle/Oracles.h"
#include "compiler/oracle/Tensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cake::oracle {

struct TensorSpec {
  using Role = oracle::Role;
  std::string name;
  DType dtype = DType::F32;
  /// Each dimension a size symbol ("M") or an integer ("128").
  std::vector<std::string> shape;
  Role role = Role::Input;
  /// Inputs: "uniform(-1,1)", "normal(0,1)", "randint(0,K)" or a nonzero
  /// number; empty means uniform(-1,1) for floats (ints must say).
  std::string init;
};

struct Workload {
  std::string kernel, oracle;
  std::map<std::string, int64_t> sizes;
  std::vector<TensorSpec> tensors;
  /// Start from findOracle(oracle)->defaults and override.
  CheckOptions check;
  uint64_t seed = 0;
};

/// The shape of \p spec with every symbol looked up in \p sizes; an Error
/// names the tensor and the missing or negative size.
Expected<std::vector<int64_t>> resolveShape(const TensorSpec &spec, const std::map<std::string, int64_t> &sizes);

/// The seed of the tensor called \p name in a workload seeded \p seed.
uint64_t tensorSeed(uint64_t seed, std::string_view name);

/// The tensor of \p spec: an input filled from its init, an output poisoned.
Expected<HostTensor> makeTensor(const TensorSpec &spec, const Workload &workload);

/// Every tensor of \p workload, by name (duplicates are an Error).
Expected<TensorMap> makeTensors(const Workload &workload);

/// An Error unless the oracle exists and every tensor it requires is
/// declared with the same role.
Status validate(const Workload &workload);

} // namespace cake::oracle
