//===- Validate.h - The cost model against measurements --------*- C++ -*-===//
//
// Part of CAKE. Compares predictions with measured runs (the results of
// `cake bench`, read by cli/): median relative error, Spearman rank
// correlation within each family, top-1 regret per problem and shape, and
// the runs mispredicted past a threshold. Fits calibrations: per-family
// corrections from measured/predicted, machine numbers from
// microbenchmarks. Plain C++, no JSON.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cost/Cost.h"

namespace cake::cost {

/// One measured run with the model's prediction.
struct Run {
  std::string file, kernel;
  std::string family;  ///< the results' family ("gemm")
  std::string problem; ///< what it computes; the family when the results do not say
  std::string key;     ///< the correction key ("gemm_sm90")
  Sizes sizes;
  double measuredSeconds = 0;
  bool ok = true;                  ///< the run passed its oracle
  std::optional<double> predicted; ///< seconds; nullopt outside the model's domain
  /// Shared memory the kernel allocates (bytes): between variants predicted
  /// within 1% of each other, the choice goes to the one that holds less.
  double sharedBytes = 0;
  std::string why;                 ///< why there is no prediction
};

struct Thresholds {
  double medianError = 0.15; ///< at most
  double spearman = 0.9;     ///< at least, per family with >= 3 points
  double maxRegret = 0.05;   ///< at most
  double mispredict = 0.25;  ///< a calibration target past this error
};

struct ShapeRegret {
  std::string group;  ///< "gemm M=8192 N=8192 K=8192"
  std::string chosen, best; ///< kernels
  size_t variants = 0;
  double regret = 0;
};

struct Validation {
  size_t pairs = 0;             ///< runs with a measurement and a prediction
  size_t skipped = 0;           ///< failed runs or no prediction
  double medianError = 0;       ///< median |predicted / measured - 1|
  std::map<std::string, double> spearman; ///< per family with >= 3 points
  std::map<std::string, size_t> points;   ///< per family
  std::vector<ShapeRegret> regrets;
  double maxRegret = 0, meanRegret = 0;
  std::vector<size_t> targets;  ///< indices of runs mispredicted past the threshold
  std::vector<std::string> failures; ///< the thresholds that fail; empty = pass
};

/// Spearman's rank correlation (ties take their average rank); 0 when
/// either side is constant or there are fewer than two points.
double spearman(const std::vector<double> &x, const std::vector<double> &y);

Validation validate(const std::vector<Run> &runs, const Thresholds &t = {});

/// Per correction key, the geometric mean of measured / predicted over the
/// runs that have both (predictions made without corrections).
std::map<std::string, double, std::less<>> fitCorrections(const std::vector<Run> &runs);

/// A microbenchmark run: family "micro.<what>" with what it moved or did.
struct MicroRun {
  std::string family;
  double seconds = 0;
  double bytes = 0, flops = 0, count = 0; ///< 0 when absent
};

/// Sets the machine numbers of \p cal that \p runs measure (the best rate
/// over runs of a kind; the median time for launch and mbarrier) and
/// returns one line per number set. Kinds: micro.tma_copy / micro.dram
/// (DRAM bytes/s), micro.l2, micro.tma_sm (one SM's TMA), micro.wgmma,
/// micro.mma_sync, micro.tcgen05 (flops/s per SM over every SM),
/// micro.launch (an empty kernel), micro.mbarrier (time / count).
std::vector<std::string> fitMicro(const std::vector<MicroRun> &runs, Calibration &cal);

} // namespace cake::cost
