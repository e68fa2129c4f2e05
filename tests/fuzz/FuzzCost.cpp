//===- FuzzCost.cpp - libFuzzer target for the cost model -----------------===//
//
// Every kernel of an input that checks clean is estimated at a few size
// bindings (1, 7, 4096 and 2^31 - 1 for every size symbol) with the datasheet
// calibration of its target. Properties: no crash, hang or unbounded memory;
// an estimate's time is finite and non-negative (or absent, with a reason).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "compiler/cost/Cost.h"

#include <cmath>

using namespace cake;

int fuzzCost(const uint8_t *data, size_t size) {
  SourceManager sm;
  FileId file = sm.addBuffer("fuzz.cake", fuzz::text(data, size));
  CheckResult r = checkSource(sm, file);
  if (countErrors(r.diagnostics) || !r.model)
    return 0;
  for (const sema::Kernel &k : r.model->kernels) {
    cost::Calibration cal = cost::defaultCalibration(k.target);
    for (int64_t v : {int64_t(1), int64_t(7), int64_t(4096), int64_t(2147483647)}) {
      cost::Sizes sizes;
      for (const std::string &s : k.sizeSymbols)
        sizes[s] = v;
      cost::Estimate e = cost::estimate(k, sizes, cal);
      if (e.seconds)
        fuzz::require(std::isfinite(*e.seconds) && *e.seconds >= 0, "a finite, non-negative time");
      else
        fuzz::require(!e.reasons.empty(), "no time says why");
    }
  }
  return 0;
}

CAKE_FUZZ_ENTRY(fuzzCost)
