//===- Generate.h - Seeded deterministic input generators ------*- C++ -*-===//
//
// Part of CAKE. Fills input tensors from a seed. The tensor is cut into
// chunks of kGenerateChunk elements and chunk c draws from its own
// splitmix64 stream seeded by (seed, c): the bytes depend on the seed and
// the shape alone, not on the number of threads that filled them.
//
// Never all zero. A kernel that writes nothing, or multiplies by nothing,
// must not pass a check by luck, so no generator returns a tensor whose
// elements are all zero (after rounding to its dtype): a distribution that
// can only give zeros (uniform(0,0), normal(0,0), randint(0,1), the constant
// 0) is rejected, and a draw that came out all zero by chance (a tiny tensor,
// a range around zero) is redrawn from a derived seed; if that keeps
// happening the fill fails with an error.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/oracle/Expected.h"
#include "compiler/oracle/Tensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace cake::oracle {

/// Elements per generator stream.
constexpr int64_t kGenerateChunk = 1 << 16;

/// A distribution to fill a tensor from.
struct InitSpec {
  enum Kind {
    Uniform,  ///< uniform(a, b): reals in [a, b) (b itself may appear after rounding)
    Normal,   ///< normal(a, b): mean a, standard deviation b (Box-Muller)
    RandInt,  ///< randint(a, b): integers in [a, b), as numpy and torch count
    Constant, ///< a: every element
  };
  Kind kind = Uniform;
  double a = -1, b = 1;
};

/// Parses "uniform(-1, 1)", "normal(0, 0.5)", "randint(0, K)" or a number.
/// An argument is a number or a symbol of \p sizes. Rejects unknown names,
/// wrong argument counts, empty ranges and distributions that can only give
/// zero (see the file comment).
Expected<InitSpec> parseInit(std::string_view text, const std::map<std::string, int64_t> &sizes = {});

/// Fills \p t from \p spec with \p seed (multi-threaded, deterministic).
/// Fails when the distribution cannot give a nonzero value in t's dtype.
Status fill(HostTensor &t, const InitSpec &spec, uint64_t seed);

/// Shorthands for fill().
Status fillUniform(HostTensor &t, double lo, double hi, uint64_t seed);
Status fillNormal(HostTensor &t, double mean, double stddev, uint64_t seed);
Status fillRandInt(HostTensor &t, int64_t lo, int64_t hi, uint64_t seed);

/// True when every element of \p t is zero (+0 or -0 for floats).
bool allZero(const HostTensor &t);

/// splitmix64's output function: a well-mixed 64-bit hash of \p x.
uint64_t mix64(uint64_t x);

} // namespace cake::oracle
