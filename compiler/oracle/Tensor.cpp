//===- Tensor.cpp - Host tensors and low-precision conversions ------------===//
//
// Part of CAKE. The bit-level conversions follow IEEE 754 round to nearest,
// ties to even; tests/unit/OracleTest.cpp checks ties, overflow, subnormals
// and NaN against hand-computed bit patterns.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Tensor.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace cake::oracle {

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  }
  return 0;
}

std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view name) {
  if (name == "bf16" || name == "bfloat16")
    return DType::BF16;
  if (name == "f16" || name == "fp16" || name == "half" || name == "float16")
    return DType::F16;
  if (name == "f32" || name == "fp32" || name == "float" || name == "float32")
    return DType::F32;
  if (name == "i32" || name == "int32")
    return DType::I32;
  if (name == "i64" || name == "int64")
    return DType::I64;
  return std::nullopt;
}

bool isFloat(DType t) { return t == DType::BF16 || t == DType::F16 || t == DType::F32; }

double unitRoundoff(DType t) {
  switch (t) {
  case DType::BF16:
    return 0x1p-8;
  case DType::F16:
    return 0x1p-11;
  case DType::F32:
    return 0x1p-24;
  default:
    return 0;
  }
}

uint16_t floatToBf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) // NaN: keep sign and top payload, force quiet
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even;
  // the carry may ripple into the exponent (and up to infinity), as it should.
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

float bf16ToFloat(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }

uint16_t floatToHalf(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  u &= 0x7FFFFFFFu;
  if (u > 0x7F800000u) // NaN
    return static_cast<uint16_t>(sign | 0x7E00u | ((u >> 13) & 0x3FFu));
  if (u >= 0x477FF000u) // >= 65520 (65504 + half an ulp, a tie to odd 0x3FF): infinity
    return static_cast<uint16_t>(sign | 0x7C00u);
  if (u < 0x38800000u) {                              // below 2^-14: a subnormal (or zero) in steps of 2^-24
    float scaled = std::bit_cast<float>(u) * 0x1p24f; // exact: a power of two
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped bits to even.
  u = (u - 0x38000000u) + 0xFFFu + ((u >> 13) & 1u);
  return static_cast<uint16_t>(sign | (u >> 13));
}

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0) // zero or subnormal: mant * 2^-24, exact in float
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(float(mant) * 0x1p-24f));
  if (exp == 31)
    return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

namespace {

/// \p x rounded to float with round-to-odd: of the two floats around an
/// inexact x, the one with an odd significand. Rounding that again to a
/// format with at least two fewer significand bits is correctly rounded.
float toFloatOdd(double x) {
  float f = static_cast<float>(x);
  if (std::isnan(x) || static_cast<double>(f) == x)
    return f;
  if (std::isinf(f)) // beyond FLT_MAX: the largest float (odd) still rounds to inf
    f = std::copysign(std::numeric_limits<float>::max(), f);
  if ((std::bit_cast<uint32_t>(f) & 1u) == 0)
    f = std::nextafter(f, static_cast<float>(x > f ? INFINITY : -INFINITY));
  return f;
}

} // namespace

double roundTo(DType t, double x) {
  switch (t) {
  case DType::BF16:
    return bf16ToFloat(floatToBf16(toFloatOdd(x)));
  case DType::F16:
    return halfToFloat(floatToHalf(toFloatOdd(x)));
  case DType::F32:
    return static_cast<float>(x);
  case DType::I32:
    return static_cast<double>(static_cast<int32_t>(std::nearbyint(x)));
  case DType::I64:
    return static_cast<double>(static_cast<int64_t>(std::nearbyint(x)));
  }
  return x;
}

HostTensor HostTensor::zeros(std::string name, DType dtype, std::vector<int64_t> shape) {
  HostTensor t{std::move(name), dtype, std::move(shape), {}};
  t.bytes.assign(t.byteSize(), std::byte{0});
  return t;
}

int64_t HostTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double HostTensor::at(int64_t i) const {
  const std::byte *p = bytes.data() + static_cast<size_t>(i) * dtypeSize(dtype);
  switch (dtype) {
  case DType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return bf16ToFloat(h);
  }
  case DType::F16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

void HostTensor::set(int64_t i, double v) {
  std::byte *p = bytes.data() + static_cast<size_t>(i) * dtypeSize(dtype);
  switch (dtype) {
  case DType::BF16: {
    uint16_t h = floatToBf16(toFloatOdd(v));
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::F16: {
    uint16_t h = floatToHalf(toFloatOdd(v));
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::F32: {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case DType::I32: {
    int32_t x = static_cast<int32_t>(std::nearbyint(v));
    std::memcpy(p, &x, 4);
    return;
  }
  case DType::I64: {
    int64_t x = static_cast<int64_t>(std::nearbyint(v));
    std::memcpy(p, &x, 8);
    return;
  }
  }
}

std::string HostTensor::indexString(int64_t flat) const {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  return shapeString(idx);
}

namespace {

template <class Out> void decode(const HostTensor &t, int64_t first, int64_t count, Out *out) {
  const std::byte *base = t.bytes.data() + static_cast<size_t>(first) * dtypeSize(t.dtype);
  switch (t.dtype) {
  case DType::BF16: {
    const auto *p = reinterpret_cast<const uint16_t *>(base);
    for (int64_t i = 0; i < count; ++i)
      out[i] = static_cast<Out>(bf16ToFloat(p[i]));
    return;
  }
  case DType::F16: {
    const auto *p = reinterpret_cast<const uint16_t *>(base);
    for (int64_t i = 0; i < count; ++i)
      out[i] = static_cast<Out>(halfToFloat(p[i]));
    return;
  }
  case DType::F32: {
    const auto *p = reinterpret_cast<const float *>(base);
    for (int64_t i = 0; i < count; ++i)
      out[i] = static_cast<Out>(p[i]);
    return;
  }
  case DType::I32: {
    const auto *p = reinterpret_cast<const int32_t *>(base);
    for (int64_t i = 0; i < count; ++i)
      out[i] = static_cast<Out>(p[i]);
    return;
  }
  case DType::I64: {
    const auto *p = reinterpret_cast<const int64_t *>(base);
    for (int64_t i = 0; i < count; ++i)
      out[i] = static_cast<Out>(p[i]);
    return;
  }
  }
}

} // namespace

void decodeRange(const HostTensor &t, int64_t first, int64_t count, double *out) { decode(t, first, count, out); }
void decodeRange(const HostTensor &t, int64_t first, int64_t count, float *out) { decode(t, first, count, out); }

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

} // namespace cake::oracle
