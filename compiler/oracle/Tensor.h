//===- Tensor.h - Host tensors and low-precision conversions ----*- C++ -*-===//
//
// Part of CAKE. A HostTensor is a named, typed, row-major buffer in host
// memory: what `cake run --workload` fills, copies to the device, reads back
// and hands to an oracle. The bf16 and fp16 conversions are written here
// (round to nearest, ties to even; NaN stays NaN) so that every check rounds
// exactly the way the GPU's cvt.rn does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::oracle {

enum class DType { BF16, F16, F32, I32, I64 };

/// Whether a tensor is read by the kernel (filled by a generator) or written
/// by it (poisoned before the launch, checked after).
enum class Role { Input, Output };

/// Bytes of one element.
size_t dtypeSize(DType t);
/// "bf16", "f16", "f32", "i32", "i64".
std::string_view dtypeName(DType t);
/// Accepts the names above and their aliases (fp16, half, fp32, float,
/// int32, int64, bfloat16); nullopt for anything else.
std::optional<DType> parseDType(std::string_view name);
bool isFloat(DType t);
/// Unit roundoff of a float type (2^-8 for bf16, 2^-11 for fp16, 2^-24 for
/// fp32): the largest relative error of one rounding to it; 0 for integers.
double unitRoundoff(DType t);

/// Conversions, round to nearest even. Overflow gives infinity; a NaN stays a
/// (quiet) NaN with its sign.
uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
/// \p x rounded once to \p t (double -> float rounds to odd first, so that the
/// second rounding is the single correct one).
double roundTo(DType t, double x);

struct HostTensor {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<std::byte> bytes;

  /// A zero-filled tensor.
  static HostTensor zeros(std::string name, DType dtype, std::vector<int64_t> shape);

  /// Product of the shape (1 for a scalar).
  int64_t elements() const;
  size_t byteSize() const { return static_cast<size_t>(elements()) * dtypeSize(dtype); }
  /// Element \p i (flat, row-major) as a double; exact for every dtype but
  /// i64 beyond 2^53.
  double at(int64_t i) const;
  /// Stores \p v rounded to the dtype (floats: nearest even; ints: truncated
  /// toward zero after rounding to nearest).
  void set(int64_t i, double v);
  /// "[17, 3]" for flat index 17 * shape[1] + 3.
  std::string indexString(int64_t flat) const;

  template <class T> T *data() { return reinterpret_cast<T *>(bytes.data()); }
  template <class T> const T *data() const { return reinterpret_cast<const T *>(bytes.data()); }
};

/// Decodes \p count elements of \p t starting at flat index \p first into
/// \p out (the oracles' inner loops read rows this way).
void decodeRange(const HostTensor &t, int64_t first, int64_t count, double *out);
void decodeRange(const HostTensor &t, int64_t first, int64_t count, float *out);

/// "[32, 65536, 128]".
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace cake::oracle
