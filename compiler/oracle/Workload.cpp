//===- Workload.cpp - Workloads: sizes, tensors, inits, oracle ------------===//
//
// Part of CAKE.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Workload.h"
#include "compiler/oracle/Generate.h"
#include "compiler/oracle/Poison.h"

#include <charconv>

namespace cake::oracle {

Expected<std::vector<int64_t>> resolveShape(const TensorSpec &spec, const std::map<std::string, int64_t> &sizes) {
  std::vector<int64_t> shape;
  for (const std::string &dim : spec.shape) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), v);
    if (ec != std::errc() || end != dim.data() + dim.size()) {
      auto it = sizes.find(dim);
      if (it == sizes.end())
        return invalid("tensor '" + spec.name + "': size '" + dim + "' of its shape is not defined in sizes");
      v = it->second;
    }
    if (v < 0)
      return invalid("tensor '" + spec.name + "': size '" + dim + "' is negative (" + std::to_string(v) + ")");
    shape.push_back(v);
  }
  return shape;
}

uint64_t tensorSeed(uint64_t seed, std::string_view name) {
  uint64_t h = 0xCBF29CE484222325ull; // FNV-1a
  for (char c : name)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return mix64(seed ^ mix64(h));
}

Expected<HostTensor> makeTensor(const TensorSpec &spec, const Workload &workload) {
  auto shape = resolveShape(spec, workload.sizes);
  if (!shape)
    return shape.error();
  HostTensor t = HostTensor::zeros(spec.name, spec.dtype, *shape);
  if (spec.role == Role::Output) {
    poison(t);
    return t;
  }
  std::string init = spec.init;
  if (init.empty()) {
    if (!isFloat(spec.dtype))
      return invalid("tensor '" + spec.name + "' is an " + std::string(dtypeName(spec.dtype)) +
                   " input without an init (say randint(lo, hi))");
    init = "uniform(-1,1)";
  }
  auto parsed = parseInit(init, workload.sizes);
  if (!parsed)
    return invalid("tensor '" + spec.name + "': " + parsed.error().message);
  if (Status s = fill(t, *parsed, tensorSeed(workload.seed, spec.name)); !s)
    return s.error();
  return t;
}

Expected<TensorMap> makeTensors(const Workload &workload) {
  TensorMap out;
  for (const TensorSpec &spec : workload.tensors) {
    if (out.count(spec.name))
      return invalid("tensor '" + spec.name + "' is declared twice");
    auto t = makeTensor(spec, workload);
    if (!t)
      return t.error();
    out.emplace(spec.name, std::move(*t));
  }
  return out;
}

Status validate(const Workload &workload) {
  const Oracle *oracle = findOracle(workload.oracle);
  if (!oracle) {
    std::string known;
    for (const Oracle &o : allOracles())
      known += (known.empty() ? "" : ", ") + std::string(o.name);
    return invalid("unknown oracle '" + workload.oracle + "' (known: " + known + ")");
  }
  for (const OracleTensor &want : oracle->tensors) {
    const TensorSpec *have = nullptr;
    for (const TensorSpec &spec : workload.tensors)
      if (spec.name == want.name)
        have = &spec;
    if (!have && !want.optional)
      return invalid("oracle '" + workload.oracle + "' needs tensor '" + std::string(want.name) + "' " +
                   std::string(want.shape));
    if (have && have->role != want.role)
      return invalid("tensor '" + have->name + "' must be an " + (want.role == Role::Input ? "input" : "output") +
                   " of oracle '" + workload.oracle + "'");
  }
  return Ok{};
}

} // namespace cake::oracle
