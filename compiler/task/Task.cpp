//===- Task.cpp - A kernel task: validation and held-out shapes ------------===//
#include "compiler/task/Task.h"

#include "compiler/oracle/Generate.h"
#include "compiler/task/Expr.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>

namespace cake::task {

std::vector<std::string> sizeNames(const Task &task) {
  std::set<std::string> names;
  for (const oracle::TensorSpec &t : task.workload.tensors)
    for (const std::string &d : t.shape)
      if (!d.empty() && !std::isdigit(uint8_t(d[0])))
        names.insert(d);
  for (const std::string &p : task.params)
    if (std::none_of(task.workload.tensors.begin(), task.workload.tensors.end(),
                     [&](const oracle::TensorSpec &t) { return t.name == p; }))
      names.insert(p);
  return {names.begin(), names.end()};
}

Status validate(const Task &task) {
  auto fail = [&](const std::string &what) { return Error(Error::InvalidArgument, "task '" + task.name + "': " + what); };
  if (task.workload.oracle.empty() || !oracle::findOracle(task.workload.oracle))
    return fail("\"oracle\": unknown oracle '" + task.workload.oracle + "'");
  if (auto s = oracle::validate(task.workload); !s)
    return fail(s.error().message);
  std::vector<std::string> sizes = sizeNames(task);
  auto isTensor = [&](const std::string &n) {
    return std::any_of(task.workload.tensors.begin(), task.workload.tensors.end(),
                       [&](const oracle::TensorSpec &t) { return t.name == n; });
  };
  for (const oracle::TensorSpec &t : task.workload.tensors)
    if (std::find(task.params.begin(), task.params.end(), t.name) == task.params.end())
      return fail("\"params\": tensor '" + t.name + "' is not a parameter (a .cu candidate takes every tensor)");
  std::set<std::string> seen;
  for (const std::string &p : task.params)
    if (!seen.insert(p).second)
      return fail("\"params\": '" + p + "' is listed twice");
  if (!task.flops.empty()) {
    auto names = exprNames(task.flops);
    if (!names)
      return fail("\"flops\": " + names.error().message);
    for (const std::string &n : *names)
      if (!std::binary_search(sizes.begin(), sizes.end(), n))
        return fail("\"flops\": '" + n + "' is not a size of the task");
  }
  if (task.publicShapes.empty())
    return fail("\"public\": at least one shape is needed");
  for (const Sizes &shape : task.publicShapes) {
    for (const std::string &n : sizes)
      if (!shape.count(n))
        return fail("\"public\": shape {" + sizesText(shape) + "} does not give size '" + n + "'");
    for (const auto &[n, v] : shape) {
      if (!std::binary_search(sizes.begin(), sizes.end(), n))
        return fail("\"public\": shape {" + sizesText(shape) + "} gives '" + n + "', which is not a size of the task");
      // sizes are int parameters of a .cu candidate and 32-bit indices of the lowering
      if (v < 1 || v > INT32_MAX)
        return fail("\"public\": size " + n + " = " + std::to_string(v) + " is outside 1 .. 2^31 - 1");
    }
  }
  if (!(task.workload.check.rtol >= 0) || !(task.workload.check.atol >= 0) || task.workload.check.maxSamples < 0)
    return fail("\"check\": rtol, atol and samples must not be negative");
  if (task.heldoutCount < 0)
    return fail("\"heldout\": the count must not be negative");
  for (const auto &[n, d] : task.domain)
    if (!std::binary_search(sizes.begin(), sizes.end(), n))
      return fail("\"domain\": '" + n + "' is not a size of the task");
  if (task.heldoutCount > 0 || !task.domain.empty())
    for (const std::string &n : sizes) {
      auto it = task.domain.find(n);
      if (it == task.domain.end())
        return fail("\"domain\": size '" + n + "' has no domain (held-out shapes are drawn from it)");
      const SizeDomain &d = it->second;
      if (d.values.empty() && (d.min < 1 || d.max < d.min || d.max > INT32_MAX || d.multiple < 1 ||
                               d.max / d.multiple < 1 || (d.max / d.multiple) * d.multiple < d.min))
        return fail("\"domain\": size '" + n + "' needs 1 <= min <= max <= 2^31 - 1 and a multiple of 'multiple' "
                    "between them");
      for (int64_t v : d.values)
        if (v < 1 || v > INT32_MAX)
          return fail("\"domain\": size '" + n + "' lists a value outside 1 .. 2^31 - 1");
    }
  for (const AdversarialSet &a : task.adversarial)
    for (const auto &[tensor, init] : a.inits) {
      auto it = std::find_if(task.workload.tensors.begin(), task.workload.tensors.end(),
                             [&](const oracle::TensorSpec &t) { return t.name == tensor; });
      if (it == task.workload.tensors.end() || it->role != oracle::Role::Input)
        return fail("\"adversarial\": set '" + a.name + "' names '" + tensor + "', which is not an input tensor");
      if (auto spec = oracle::parseInit(init, task.publicShapes.front()); !spec)
        return fail("\"adversarial\": set '" + a.name + "', tensor '" + tensor + "': " + spec.error().message);
    }
  if (task.arms.empty())
    return fail("\"arms\": at least one of \"cake\" and \"cu\" is needed");
  for (const std::string &a : task.arms)
    if (a != "cake" && a != "cu")
      return fail("\"arms\": '" + a + "' is not an arm (\"cake\" or \"cu\")");
  // bounded, so that a task file cannot keep a GPU busy without end (the watchdog bounds each launch, not the count)
  if (task.timing.rounds < 1 || task.timing.rounds > 100 || task.timing.reps < 1 || task.timing.reps > 10000 ||
      task.timing.warmup < 0 || task.timing.warmup > 10000)
    return fail("\"timing\": rounds must be 1 to 100, reps 1 to 10000, warmup 0 to 10000");
  if (!(task.launchTimeoutSeconds > 0) || task.launchTimeoutSeconds > 3600)
    return fail("\"limits\": launch_seconds must be positive and at most 3600");
  if (task.heldoutCount > 1000)
    return fail("\"heldout\": at most 1000 shapes");
  for (const std::string &p : task.params)
    if (!isTensor(p) && !std::binary_search(sizes.begin(), sizes.end(), p))
      return fail("\"params\": '" + p + "' is neither a tensor nor a size");
  return Ok{};
}

double tensorBytes(const Task &task, const Sizes &sizes) {
  double bytes = 0;
  for (const oracle::TensorSpec &t : task.workload.tensors)
    if (auto shape = oracle::resolveShape(t, sizes)) { // a size not given counts nothing
      double n = double(oracle::dtypeSize(t.dtype));
      for (int64_t d : *shape)
        n *= double(d);
      bytes += n;
    }
  return bytes;
}

Expected<std::vector<Sizes>> drawHeldout(const Task &task, int count, uint64_t seed) {
  std::vector<Sizes> out;
  std::vector<std::string> names = sizeNames(task);
  uint64_t state = oracle::mix64(seed ^ 0x7a5c'0000'0000'0022ull);
  auto next = [&] { return state = oracle::mix64(state + 0x9e3779b97f4a7c15ull); };
  auto unit = [&] { return double(next() >> 11) / double(uint64_t(1) << 53); };
  for (int attempt = 0; int(out.size()) < count; ++attempt) {
    if (attempt > 1000 * std::max(count, 1))
      return Error(Error::InvalidArgument, "task '" + task.name + "': cannot draw " + std::to_string(count) +
                                               " held-out shapes under max_bytes that differ from the public ones");
    Sizes s;
    for (const std::string &n : names) {
      const SizeDomain &d = task.domain.at(n);
      if (!d.values.empty()) {
        s[n] = d.values[next() % d.values.size()];
        continue;
      }
      int64_t lo = (d.min + d.multiple - 1) / d.multiple, hi = d.max / d.multiple; // in multiples
      double v = std::exp(std::log(double(lo)) + unit() * (std::log(double(hi) + 1) - std::log(double(lo))));
      s[n] = std::clamp<int64_t>(int64_t(v), lo, hi) * d.multiple;
    }
    if (tensorBytes(task, s) > task.maxBytes ||
        std::find(task.publicShapes.begin(), task.publicShapes.end(), s) != task.publicShapes.end() ||
        std::find(out.begin(), out.end(), s) != out.end())
      continue;
    out.push_back(std::move(s));
  }
  return out;
}

std::string sizesText(const Sizes &sizes) {
  std::string s;
  for (const auto &[k, v] : sizes)
    s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return s;
}

} // namespace cake::task
