//===- Poison.cpp - Poisoned outputs and unwritten elements ---------------===//
//
// Part of CAKE.
//
//===----------------------------------------------------------------------===//
#include "compiler/oracle/Poison.h"
#include "compiler/oracle/Parallel.h"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace cake::oracle {

void poison(HostTensor &t) {
  int64_t n = static_cast<int64_t>(t.bytes.size());
  parallelFor(n, 1 << 24, [&](int64_t begin, int64_t end) {
    std::memset(t.bytes.data() + begin, 0xFF, static_cast<size_t>(end - begin));
  });
}

namespace {

template <class T> Unwritten scan(const HostTensor &t) {
  constexpr T kPoison = static_cast<T>(~T(0));
  const T *p = t.data<T>();
  Unwritten total;
  std::mutex m;
  parallelFor(t.elements(), 1 << 22, [&](int64_t begin, int64_t end) {
    Unwritten part;
    for (int64_t i = begin; i < end; ++i)
      part.count += p[i] == kPoison;
    if (!part.count)
      return;
    part.first = std::find(p + begin, p + end, kPoison) - p;
    std::lock_guard<std::mutex> lock(m);
    total.count += part.count;
    total.first = total.first < 0 ? part.first : std::min(total.first, part.first);
  });
  return total;
}

} // namespace

Unwritten countUnwritten(const HostTensor &t) {
  switch (dtypeSize(t.dtype)) {
  case 2:
    return scan<uint16_t>(t);
  case 4:
    return scan<uint32_t>(t);
  default:
    return scan<uint64_t>(t);
  }
}

} // namespace cake::oracle
