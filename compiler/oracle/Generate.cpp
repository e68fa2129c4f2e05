//===- Generate.cpp - Seeded deterministic input generators ---------------===//
//
// Part of CAKE. The per-element work is a splitmix64 step, a little float
// arithmetic and the bit-level rounding of Tensor.cpp: 1e8 bf16 elements
// take well under a second per core.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Generate.h"
#include "compiler/oracle/Parallel.h"

#include <atomic>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numbers>

namespace cake::oracle {

uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// One splitmix64 stream.
struct SplitMix {
  uint64_t state;
  uint64_t next() { return mix64(state += kGolden); }
  /// Uniform in [0, 1) with 24 bits.
  float unit() { return static_cast<float>(next() >> 40) * 0x1p-24f; }
};

template <class T> void store(T *p, float v, DType t) {
  if constexpr (sizeof(T) == 2)
    *p = t == DType::BF16 ? floatToBf16(v) : floatToHalf(v);
  else if constexpr (std::is_same_v<T, float>)
    *p = v;
  else
    *p = static_cast<T>(v);
}

/// Fills elements [begin, end) of chunk stream \p rng into \p out.
template <class T> void fillChunk(T *out, int64_t count, const InitSpec &spec, DType dtype, SplitMix &rng) {
  switch (spec.kind) {
  case InitSpec::Uniform: {
    float lo = static_cast<float>(spec.a), width = static_cast<float>(spec.b - spec.a);
    for (int64_t i = 0; i < count; ++i)
      store(out + i, lo + width * rng.unit(), dtype);
    return;
  }
  case InitSpec::Normal: {
    float mean = static_cast<float>(spec.a), sd = static_cast<float>(spec.b);
    for (int64_t i = 0; i < count; i += 2) {
      // Box-Muller: two normals from two uniforms; u1 in (0, 1] keeps log finite.
      float u1 = static_cast<float>((rng.next() >> 40) + 1) * 0x1p-24f;
      float radius = std::sqrt(-2.0f * std::log(u1));
      float angle = 2.0f * std::numbers::pi_v<float> * rng.unit();
      store(out + i, mean + sd * radius * std::cos(angle), dtype);
      if (i + 1 < count)
        store(out + i + 1, mean + sd * radius * std::sin(angle), dtype);
    }
    return;
  }
  case InitSpec::RandInt: {
    int64_t lo = static_cast<int64_t>(spec.a);
    uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(spec.b) - lo);
    for (int64_t i = 0; i < count; ++i) {
      uint64_t r = rng.next();
      // Lemire's multiply-shift for 32-bit ranges (no modulo bias worth the name).
      uint64_t k = range <= 0xFFFFFFFFull ? ((r >> 32) * range) >> 32 : r % range;
      int64_t v = lo + static_cast<int64_t>(k);
      if constexpr (std::is_integral_v<T>)
        out[i] = static_cast<T>(v);
      else
        store(out + i, static_cast<float>(v), dtype);
    }
    return;
  }
  case InitSpec::Constant:
    for (int64_t i = 0; i < count; ++i)
      store(out + i, static_cast<float>(spec.a), dtype);
    return;
  }
}

template <class T> void fillAll(HostTensor &t, const InitSpec &spec, uint64_t seed) {
  T *data = t.data<T>();
  int64_t n = t.elements();
  parallelChunks((n + kGenerateChunk - 1) / kGenerateChunk, [&](int64_t c) {
    SplitMix rng{mix64(seed ^ mix64(static_cast<uint64_t>(c) + 1))};
    int64_t begin = c * kGenerateChunk;
    fillChunk(data + begin, std::min(kGenerateChunk, n - begin), spec, t.dtype, rng);
  });
}

void fillOnce(HostTensor &t, const InitSpec &spec, uint64_t seed) {
  switch (t.dtype) {
  case DType::BF16:
  case DType::F16:
    return fillAll<uint16_t>(t, spec, seed);
  case DType::F32:
    return fillAll<float>(t, spec, seed);
  case DType::I32:
    return fillAll<int32_t>(t, spec, seed);
  case DType::I64:
    return fillAll<int64_t>(t, spec, seed);
  }
}

/// Why \p spec can only give zeros, or empty.
std::string onlyZeros(const InitSpec &spec) {
  switch (spec.kind) {
  case InitSpec::Uniform:
    return spec.a == 0 && spec.b == 0 ? "uniform(0, 0) gives only zeros" : "";
  case InitSpec::Normal:
    return spec.a == 0 && spec.b == 0 ? "normal(0, 0) gives only zeros" : "";
  case InitSpec::RandInt:
    return spec.a == 0 && spec.b == 1 ? "randint(0, 1) gives only zeros" : "";
  case InitSpec::Constant:
    return spec.a == 0 ? "the constant 0 would make an all-zero tensor" : "";
  }
  return "";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

/// A number or a symbol of \p sizes.
Expected<double> parseArgument(std::string_view arg, std::string_view text,
                               const std::map<std::string, int64_t> &sizes) {
  arg = trim(arg);
  double v = 0;
  auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
  if (ec == std::errc() && end == arg.data() + arg.size())
    return v;
  // from_chars rejects a leading '+'.
  if (!arg.empty() && arg.front() == '+')
    return parseArgument(arg.substr(1), text, sizes);
  if (auto it = sizes.find(std::string(arg)); it != sizes.end())
    return static_cast<double>(it->second);
  return invalid("init '" + std::string(text) + "': '" + std::string(arg) + "' is neither a number nor a size");
}

} // namespace

Expected<InitSpec> parseInit(std::string_view text, const std::map<std::string, int64_t> &sizes) {
  std::string_view s = trim(text);
  InitSpec spec;
  size_t open = s.find('(');
  if (open == std::string_view::npos) {
    auto v = parseArgument(s, text, sizes);
    if (!v)
      return invalid("init '" + std::string(text) + "' is not uniform(a, b), normal(m, s), randint(a, b) or a number");
    spec = {InitSpec::Constant, *v, 0};
  } else {
    std::string_view name = trim(s.substr(0, open));
    if (s.back() != ')')
      return invalid("init '" + std::string(text) + "' lacks its closing ')'");
    std::string_view args = s.substr(open + 1, s.size() - open - 2);
    size_t comma = args.find(',');
    if (comma == std::string_view::npos || args.find(',', comma + 1) != std::string_view::npos)
      return invalid("init '" + std::string(text) + "' takes exactly two arguments");
    auto a = parseArgument(args.substr(0, comma), text, sizes);
    if (!a)
      return a.error();
    auto b = parseArgument(args.substr(comma + 1), text, sizes);
    if (!b)
      return b.error();
    if (name == "uniform")
      spec = {InitSpec::Uniform, *a, *b};
    else if (name == "normal")
      spec = {InitSpec::Normal, *a, *b};
    else if (name == "randint")
      spec = {InitSpec::RandInt, *a, *b};
    else
      return invalid("init '" + std::string(text) + "': unknown distribution '" + std::string(name) +
                   "' (uniform, normal, randint)");
  }
  if (spec.kind == InitSpec::Uniform && !(spec.a < spec.b) && !(spec.a == 0 && spec.b == 0))
    return invalid("init '" + std::string(text) + "': uniform needs lo < hi");
  if (spec.kind == InitSpec::Normal && !(spec.b >= 0))
    return invalid("init '" + std::string(text) + "': the standard deviation is negative");
  if (spec.kind == InitSpec::RandInt &&
      (spec.a != std::trunc(spec.a) || spec.b != std::trunc(spec.b) || !(spec.a < spec.b)))
    return invalid("init '" + std::string(text) + "': randint needs integers lo < hi");
  if (std::string why = onlyZeros(spec); !why.empty())
    return invalid("init '" + std::string(text) + "': " + why);
  return spec;
}

namespace {

/// Whether any element of [begin, end) is nonzero; \p mask drops the sign bit of floats.
template <class T> bool anyNonzero(const T *p, int64_t begin, int64_t end, T mask) {
  for (int64_t i = begin; i < end; ++i)
    if (p[i] & mask)
      return true;
  return false;
}

} // namespace

bool allZero(const HostTensor &t) {
  std::atomic<bool> nonzero{false};
  parallelFor(t.elements(), 1 << 22, [&](int64_t begin, int64_t end) {
    if (nonzero.load(std::memory_order_relaxed))
      return;
    bool found = false;
    switch (t.dtype) {
    case DType::BF16:
    case DType::F16:
      found = anyNonzero<uint16_t>(t.data<uint16_t>(), begin, end, 0x7FFF);
      break;
    case DType::F32:
      found = anyNonzero<uint32_t>(t.data<uint32_t>(), begin, end, 0x7FFFFFFFu);
      break;
    case DType::I32:
      found = anyNonzero<uint32_t>(t.data<uint32_t>(), begin, end, ~0u);
      break;
    case DType::I64:
      found = anyNonzero<uint64_t>(t.data<uint64_t>(), begin, end, ~0ull);
      break;
    }
    if (found)
      nonzero = true;
  });
  return !nonzero;
}

Status fill(HostTensor &t, const InitSpec &spec, uint64_t seed) {
  if (std::string why = onlyZeros(spec); !why.empty())
    return invalid("tensor '" + t.name + "': " + why);
  if (t.elements() == 0)
    return Ok{};
  // Redraw from derived seeds while the draw is all zero (see Generate.h).
  for (uint64_t attempt = 0; attempt < 16; ++attempt) {
    fillOnce(t, spec, attempt ? mix64(seed + attempt * kGolden) : seed);
    if (!allZero(t))
      return Ok{};
    if (spec.kind == InitSpec::Constant)
      break;
  }
  return invalid("tensor '" + t.name + "': its init gives only zeros in " + std::string(dtypeName(t.dtype)));
}

Status fillUniform(HostTensor &t, double lo, double hi, uint64_t seed) {
  return fill(t, {InitSpec::Uniform, lo, hi}, seed);
}
Status fillNormal(HostTensor &t, double mean, double stddev, uint64_t seed) {
  return fill(t, {InitSpec::Normal, mean, stddev}, seed);
}
Status fillRandInt(HostTensor &t, int64_t lo, int64_t hi, uint64_t seed) {
  if (!(lo < hi))
    return invalid("tensor '" + t.name + "': randint needs lo < hi");
  return fill(t, {InitSpec::RandInt, static_cast<double>(lo), static_cast<double>(hi)}, seed);
}

} // namespace cake::oracle
