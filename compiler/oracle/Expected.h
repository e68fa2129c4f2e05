//===- Expected.h - A value or an error message -----------------*- C++ -*-===//
//
// Part of CAKE. The oracle library's result type: a value, or one sentence
// saying what is wrong (std::expected is C++23).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace cake::oracle {

/// The error side of an Expected: one sentence, no trailing period.
struct Error {
  std::string message;
};

/// A value or an Error.
template <class T> class Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}
  explicit operator bool() const { return v_.index() == 0; }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  const std::string &error() const { return std::get<1>(v_).message; }

private:
  std::variant<T, Error> v_;
};

struct Ok {};
/// Success, or the Error that stopped the call.
using Status = Expected<Ok>;

} // namespace cake::oracle
