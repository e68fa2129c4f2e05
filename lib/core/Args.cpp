//===- Args.cpp - A library call's tensor arguments, checked --------------===//
#include "lib/core/Args.h"

#include <cstdio>
#include <string>
#include <vector>

namespace cake::libcore {

namespace {

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

} // namespace

uint64_t tensorBytes(std::initializer_list<uint64_t> factors) {
  uint64_t v = 1;
  for (uint64_t f : factors) {
    if (__builtin_mul_overflow(v, f, &v) || v > kMaxBytes)
      return 0;
  }
  return v;
}

Status checkArgs(std::initializer_list<Arg> args) {
  for (const Arg &a : args) {
    if (!a.address)
      return invalid(std::string(a.name) + " is a null pointer");
    uint64_t align = a.align ? a.align : 1;
    if (reinterpret_cast<uintptr_t>(a.address) % align)
      return invalid(std::string(a.name) + " (" + hex(a.address) + ") is not " + std::to_string(align) +
                     "-byte aligned" + (align == 16 ? " (the kernels read it with TMA)" : ""));
  }
  std::vector<Arg> list(args);
  for (size_t i = 0; i < list.size(); ++i)
    for (size_t j = i + 1; j < list.size(); ++j) {
      const Arg &a = list[i], &b = list[j];
      if (!a.output && !b.output)
        continue;
      auto a0 = reinterpret_cast<uintptr_t>(a.address), b0 = reinterpret_cast<uintptr_t>(b.address);
      if (a0 < b0 + b.bytes && b0 < a0 + a.bytes)
        return invalid(std::string(a.output ? a.name : b.name) + " overlaps " +
                       std::string(a.output ? b.name : a.name) + " (an output must not share memory with another "
                                                                 "argument)");
    }
  return Ok{};
}

} // namespace cake::libcore
