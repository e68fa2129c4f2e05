//===- Workload.cpp - Workloads: sizes, tensors, inits, oracle ------------===//
//
// Part of CAKE.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Workload.h"
#include "compiler/oracle/Generate.h"
#include "compiler/oracle/Poison.h"

#include <charconv>

#include <unistd.h>

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

uint64_t hostMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : UINT64_MAX;
}

Expected<TensorMap> makeTensors(const Workload &workload) {
  // Sizes are checked before anything is allocated (issue #16: sizes.M = 2^40
  // allocated the host tensors and died of bad_alloc in the child). The
  // tensors, with overflow-checked byte counts, must fit in half the host's
  // memory: the oracle's reference and the copies back need the rest.
  uint64_t total = 0;
  for (const TensorSpec &spec : workload.tensors) {
    auto shape = resolveShape(spec, workload.sizes);
    if (!shape)
      return shape.error();
    uint64_t bytes = dtypeSize(spec.dtype);
    bool over = false;
    for (int64_t d : *shape)
      over |= __builtin_mul_overflow(bytes, uint64_t(d), &bytes);
    over |= __builtin_add_overflow(total, bytes, &total);
    if (over)
      return invalid("tensor '" + spec.name + "' of shape " + shapeString(*shape) +
                     " has more bytes than a 64-bit count holds");
  }
  if (uint64_t limit = hostMemoryBytes() / 2; total > limit)
    return invalid("the workload's tensors need " + std::to_string(total >> 20) + " MiB of host memory, more than half (" +
                   std::to_string(limit >> 20) + " MiB) of this machine's: smaller sizes, or a machine with more memory");
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
