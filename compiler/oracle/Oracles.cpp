//===- Oracles.cpp - The oracle registry and what oracles share -----------===//
//
// Part of CAKE. The table of oracles (tensors, default tolerances from the
// workloads README), Oracle::check's common steps (presence, unwritten
// scan, verdict) and the helpers of OracleSupport.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Oracles.h"
#include "compiler/oracle/Generate.h"
#include "compiler/oracle/OracleSupport.h"
#include "compiler/oracle/Poison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

namespace cake::oracle {

namespace {

CheckOptions defaults(double rtol, double atol, int64_t maxSamples) {
  CheckOptions o;
  o.rtol = rtol;
  o.atol = atol;
  o.maxSamples = maxSamples;
  return o;
}

constexpr Role In = Role::Input, Out = Role::Output;

const std::vector<Oracle> &registry() {
  static const std::vector<Oracle> oracles = {
      {"gemm",
       "C = A B^T: every sampled element within a product-norm tolerance of the fp64 dot product",
       {{"A", In, "[M, K]", "bf16|f16"}, {"B", In, "[N, K]", "bf16|f16"}, {"C", Out, "[M, N]", "bf16|f16|f32"}},
       defaults(5e-3, 0, 65536),
       compareGemm},
      {"kmeans.assign",
       "ids[b, n] is a centroid whose distance is within 1e-3 of the fp64 minimum",
       {{"x", In, "[B, N, D]", "bf16|f16|f32"},
        {"c", In, "[B, K, D]", "bf16|f16|f32"},
        {"ids", Out, "[B, N]", "i32|i64"},
        {"dist", Out, "[B, N]", "f32", true}},
       defaults(1e-3, 1e-5, 4096),
       compareKMeansAssign},
      {"kmeans.update",
       "c_new[b, k] is the fp64 mean of the rows assigned to k; an empty cluster keeps c_old",
       {{"x", In, "[B, N, D]", "bf16|f16|f32"},
        {"ids", In, "[B, N]", "i32|i64"},
        {"c_old", In, "[B, K, D]", "bf16|f16|f32"},
        {"c_new", Out, "[B, K, D]", "bf16|f16|f32"}},
       defaults(1e-3, 0, 0),
       compareKMeansUpdate},
      {"knn",
       "dist[q] ascending and equal to the fp64 k smallest squared L2 distances; ids match their distances",
       {{"q", In, "[Q, D]", "bf16|f16|f32"},
        {"db", In, "[N, D]", "bf16|f16|f32"},
        {"dist", Out, "[Q, k]", "f32"},
        {"ids", Out, "[Q, k]", "i32|i64"}},
       defaults(1e-3, 1e-5, 64),
       compareKnn},
      {"kda.fwd",
       "o (and the final state) within 1e-2 relative L2 of the fp32 per-token KDA recurrence",
       {{"q", In, "[B, T, H, K]", "bf16|f16|f32"},
        {"k", In, "[B, T, H, K]", "bf16|f16|f32"},
        {"v", In, "[B, T, H, V]", "bf16|f16|f32"},
        {"g", In, "[B, T, H, K]", "bf16|f16|f32"},
        {"beta", In, "[B, T, H]", "bf16|f16|f32"},
        {"A_log", In, "[H]", "f32"},
        {"dt_bias", In, "[H, K]", "f32"},
        {"o", Out, "[B, T, H, V]", "bf16|f16|f32"},
        {"scale", In, "[1]", "f32", true},
        {"cu_seqlens", In, "[N + 1]", "i32|i64", true},
        {"h0", In, "[N, H, V, K]", "bf16|f32", true},
        {"ht", Out, "[N, H, V, K]", "bf16|f32", true}},
       defaults(1e-2, 0, 8),
       compareKdaFwd},
  };
  return oracles;
}

} // namespace

const Oracle *findOracle(std::string_view name) {
  for (const Oracle &o : registry())
    if (o.name == name)
      return &o;
  return nullptr;
}

std::span<const Oracle> allOracles() { return registry(); }

CheckReport Oracle::check(const TensorMap &tensors, const CheckOptions &options) const {
  std::string prefix = std::string(name) + ": ";
  for (const OracleTensor &spec : this->tensors)
    if (!spec.optional && !find(tensors, std::string(spec.name))) {
      CheckReport r = failure("tensor '" + std::string(spec.name) + "' " + std::string(spec.shape) + " is missing");
      r.summary = prefix + r.summary;
      return r;
    }
  // Every element of every output, sampled or not.
  int64_t unwritten = 0;
  std::string firstUnwritten;
  for (const OracleTensor &spec : this->tensors) {
    const HostTensor *t = spec.role == Role::Output ? find(tensors, std::string(spec.name)) : nullptr;
    if (!t)
      continue;
    Unwritten u = countUnwritten(*t);
    unwritten += u.count;
    if (u.count && firstUnwritten.empty())
      firstUnwritten = t->name + t->indexString(u.first) + " was not written (" + std::to_string(u.count) + " of " +
                       std::to_string(t->elements()) + " elements of " + t->name + " still poisoned)";
  }
  CheckReport r = compare(tensors, options);
  if (!r.summary.empty() && r.checked == 0 && !r.ok) { // a shape or dtype error
    r.unwritten = unwritten;
    r.summary = prefix + r.summary;
    return r;
  }
  r.unwritten = unwritten;
  if (r.firstMismatch.empty())
    r.firstMismatch = firstUnwritten;
  r.ok = r.mismatches == 0 && r.unwritten == 0 && r.checked > 0;
  std::string detail = r.summary;
  r.summary = prefix + (r.ok ? "ok" : "FAILED") + ": " + detail + ", " + std::to_string(r.mismatches) +
              " mismatches, " + std::to_string(r.unwritten) + " unwritten, max abs error " + num(r.maxAbsError) +
              ", max rel error " + num(r.maxRelError);
  if (!r.ok && !r.firstMismatch.empty())
    r.summary += "; first: " + r.firstMismatch;
  return r;
}

//===----------------------------------------------------------------------===//
// OracleSupport.h
//===----------------------------------------------------------------------===//

const HostTensor *find(const TensorMap &tensors, const std::string &name) {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

Status expectRank(const HostTensor &t, size_t rank, std::string_view what) {
  if (t.shape.size() != rank)
    return invalid("tensor '" + t.name + "' has shape " + shapeString(t.shape) + ", expected " + std::string(what));
  return Ok{};
}

Status expectShape(const HostTensor &t, const std::vector<int64_t> &shape, std::string_view what) {
  if (t.shape != shape)
    return invalid("tensor '" + t.name + "' has shape " + shapeString(t.shape) + ", expected " + std::string(what) +
                 " = " + shapeString(shape));
  return Ok{};
}

Status expectFloat(const HostTensor &t) {
  if (!isFloat(t.dtype))
    return invalid("tensor '" + t.name + "' is " + std::string(dtypeName(t.dtype)) + ", expected a float type");
  return Ok{};
}

Status expectInt(const HostTensor &t) {
  if (t.dtype != DType::I32 && t.dtype != DType::I64)
    return invalid("tensor '" + t.name + "' is " + std::string(dtypeName(t.dtype)) + ", expected i32 or i64");
  return Ok{};
}

CheckReport failure(std::string message) {
  CheckReport r;
  r.summary = std::move(message);
  return r;
}

int64_t sampleCount(int64_t total, int64_t costPerUnit, const CheckOptions &options, int64_t floor) {
  if (options.maxSamples <= 0)
    return total;
  int64_t budget = kWorkBudget / std::max<int64_t>(costPerUnit, 1);
  return std::min(total, std::max(std::min(options.maxSamples, budget), floor));
}

std::vector<int64_t> sampleIndices(int64_t total, int64_t count, uint64_t seed, std::vector<int64_t> always) {
  std::vector<int64_t> out;
  if (count >= total) {
    out.resize(static_cast<size_t>(total));
    for (int64_t i = 0; i < total; ++i)
      out[static_cast<size_t>(i)] = i;
    return out;
  }
  std::set<int64_t> picked;
  for (int64_t i : always)
    if (i >= 0 && i < total)
      picked.insert(i);
  uint64_t state = mix64(seed ^ 0x5A17u);
  while (static_cast<int64_t>(picked.size()) < count)
    picked.insert(static_cast<int64_t>(mix64(state++) % static_cast<uint64_t>(total)));
  return {picked.begin(), picked.end()};
}

bool isPoisonAt(const HostTensor &t, int64_t i) {
  size_t size = dtypeSize(t.dtype);
  const std::byte *p = t.bytes.data() + static_cast<size_t>(i) * size;
  for (size_t b = 0; b < size; ++b)
    if (p[b] != std::byte{0xFF})
      return false;
  return true;
}

std::string num(double v) {
  char buf[32];
  double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, (a != 0 && (a < 1e-3 || a >= 1e6)) ? "%.2e" : "%.6g", v);
  return buf;
}

bool Tally::compare(double got, double expected, double tol, double scale, const HostTensor &t, int64_t flat) {
  double err = std::fabs(got - expected);
  return record(err <= tol, err, scale > 0 ? err / scale : 0, [&] { // err <= tol is false for NaN
    return t.name + t.indexString(flat) + " = " + num(got) + ", expected " + num(expected) + " (error " + num(err) +
           " > tolerance " + num(tol) + ")";
  });
}

bool Tally::record(bool ok, double absError, double relError, const std::function<std::string()> &message) {
  ++checked;
  if (std::isfinite(absError))
    maxAbsError = std::max(maxAbsError, absError);
  if (std::isfinite(relError))
    maxRelError = std::max(maxRelError, relError);
  if (!ok) {
    ++mismatches;
    if (firstMismatch.empty())
      firstMismatch = message();
  }
  return ok;
}

void Tally::fail(std::string message) {
  ++checked;
  ++mismatches;
  if (firstMismatch.empty())
    firstMismatch = std::move(message);
}

void Tally::merge(const Tally &other) {
  checked += other.checked;
  mismatches += other.mismatches;
  maxAbsError = std::max(maxAbsError, other.maxAbsError);
  maxRelError = std::max(maxRelError, other.maxRelError);
  if (firstMismatch.empty())
    firstMismatch = other.firstMismatch;
}

void Tally::into(CheckReport &report) const {
  report.checked = checked;
  report.mismatches = mismatches;
  report.maxAbsError = maxAbsError;
  report.maxRelError = maxRelError;
  report.firstMismatch = firstMismatch;
}

} // namespace cake::oracle
