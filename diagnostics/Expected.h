//===- Expected.h - A value or the error that stopped the call --*- C++ -*-===//
//
// Part of CAKE. The one result type of the project (std::expected is C++23):
// every stage of the pipeline (compiler/pipeline/), the runner, the oracles,
// the libraries and the command line return Expected<T>, or Status for a call
// with no value. An Error is a kind (what a caller branches on: no GPU, a
// timeout, bad input), one sentence without a trailing period, and the
// located diagnostics behind it when the source was at fault. Both types are
// [[nodiscard]]: a failure cannot be dropped silently.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cake {

struct [[nodiscard]] Error {
  enum Kind {
    // The machine.
    NoDriver,        ///< libcuda.so.1 cannot be loaded, or it is the toolkit's stub
    NoDevice,        ///< the driver is there, but cuInit failed or found no GPU
    Driver,          ///< a driver call failed (the message names it and the CUresult)
    Timeout,         ///< a kernel ran past the deadline; the Runner is now wedged
    Wedged,          ///< an earlier timeout or fatal error left the context unusable
    // The caller's input.
    InvalidArgument, ///< a bad value: a launch configuration, a shape, a file's content
    Unsupported,     ///< valid, but the device, driver or library lacks it
    NotAvailable,    ///< the part that would do it was not built (a kernel that failed to build)
    Io,              ///< a file cannot be read or written
    Source,          ///< the source has errors; `diagnostics` says where
    Mismatch,        ///< a run's outputs disagree with the oracle
    // Ours.
    Internal,        ///< a bug in CAKE
  };
  Kind kind = Internal;
  std::string message;
  std::vector<Diagnostic> diagnostics; ///< for Source (and any stage that can point at the input)

  Error() = default;
  Error(Kind k, std::string m, std::vector<Diagnostic> d = {})
      : kind(k), message(std::move(m)), diagnostics(std::move(d)) {}

  /// True for NoDriver and NoDevice: there is no GPU to run on.
  bool noGpu() const { return kind == NoDriver || kind == NoDevice; }
};

/// A value or an Error.
template <class T> class [[nodiscard]] Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}
  explicit operator bool() const { return v_.index() == 0; }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  const Error &error() const { return std::get<1>(v_); }
  Error &error() { return std::get<1>(v_); }
  /// The error, moved out (to hand it up a level).
  Error takeError() { return std::move(std::get<1>(v_)); }

private:
  std::variant<T, Error> v_;
};

struct Ok {};
/// Success, or the Error that stopped the call.
using Status = Expected<Ok>;

} // namespace cake
