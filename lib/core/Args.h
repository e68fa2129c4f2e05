//===- Args.h - A library call's tensor arguments, checked ------*- C++ -*-===//
//
// Part of CAKE. What the libraries check of a call's pointers before touching
// the GPU: non-null, aligned, no output overlapping another argument, byte
// counts that do not overflow. Where the pointers lie (device memory of which
// GPU) is the runner's question, asked later (Device.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lib/core/Errors.h"

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace cake::libcore {

/// The largest tensor a library takes (bytes).
inline constexpr uint64_t kMaxBytes = uint64_t(1) << 48;

/// A tensor argument of a call: its name in messages and in the IR, its
/// address and its bytes.
struct Arg {
  std::string_view name;
  const void *address = nullptr;
  uint64_t bytes = 0;
  bool output = false;
  uint64_t align = 16; ///< 16 for what TMA reads
};

/// The product of \p factors, or 0 past kMaxBytes.
uint64_t tensorBytes(std::initializer_list<uint64_t> factors);

/// Every pointer non-null and aligned, and no output overlapping another
/// argument.
Status checkArgs(std::initializer_list<Arg> args);

} // namespace cake::libcore
