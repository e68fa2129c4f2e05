//===- Cost.h - The analytic cost model ------------------------*- C++ -*-===//
//
// Part of CAKE. Predicts the time of one kernel at one binding of its size
// symbols from its roles, rings and operations (docs/cost-model.md): bytes
// per ring stage, MMA flops, epilogue stores; per role a stage time bound by
// the resources it uses; the initiation interval of the pipeline; waves of
// tiles over the SMs; L2 reuse of the loads; launch overhead; finally a
// per-family correction from calibration. Plain C++: no JSON, no GPU.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::cost {

/// Size symbols bound to values (the same shape as lower::Bindings).
using Sizes = std::map<std::string, int64_t, std::less<>>;

/// The machine numbers the model uses. Defaults come from the target
/// description (datasheet figures, `calibrated` false); `cake calibrate`
/// replaces them with measured ones.
struct Calibration {
  std::string device;      ///< "NVIDIA H200"
  bool calibrated = false; ///< measured on the device, not datasheet figures
  int smCount = 0;
  double dramBytesPerSecond = 0;
  double l2BytesPerSecond = 0;
  double tmaBytesPerSecondPerSm = 0;
  double wgmmaFlopsPerSecondPerSm = 0;
  double mmaSyncFlopsPerSecondPerSm = 0;
  double tcgen05FlopsPerSecondPerSm = 0;
  double launchOverheadSeconds = 0;
  double mbarrierRoundTripSeconds = 0;
  // Not in the measured set yet: taken from the target description.
  double l2Bytes = 0;
  double smemBytesPerSecondPerSm = 0;
  double memoryLatencySeconds = 0;
  double issueSecondsPerOp = 0; ///< a ring/barrier operation; one instruction of a warp's dependent stream
  double smClockHz = 0;         ///< 4 schedulers x this = the SM's instruction issue slots per second
  /// Multiplicative corrections by family key ("gemm_sm90", see familyKey).
  std::map<std::string, double, std::less<>> familyCorrection;
};

/// The datasheet calibration of \p target (uncalibrated).
Calibration defaultCalibration(Target target);

/// Whether \p cal describes the GPU of \p target (its device name contains
/// the target's example GPU, "H200" for sm_90a).
bool describes(const Calibration &cal, Target target);

/// The family of a kernel by its name: the part before "_sm" ("gemm" for
/// gemm_sm90_ws), or the whole name.
std::string kernelFamily(std::string_view kernelName);

/// The key of a family's correction: "gemm" on sm_90a gives "gemm_sm90".
std::string familyKey(std::string_view family, Target target);

/// The resource that bounds a time.
enum class Bottleneck { Dram, L2, Smem, Tensor, Issue, Latency, Launch };
std::string_view bottleneckName(Bottleneck b);

/// The cost of one operation of a role, per tile (per CTA for a kernel
/// without a tile schedule).
struct OpCost {
  SourceRange range;     ///< the call in the IR
  std::string op;        ///< "tma.load"
  std::string role;
  Bottleneck resource;   ///< the resource it occupies
  double count = 0;      ///< executions per tile (over the role's issue units)
  double bytes = 0;      ///< bytes moved per tile
  double flops = 0;      ///< flops per tile
  double seconds = 0;    ///< time per tile on its resource
};

/// One role: its time per tile (phases in sequence, resources of a phase
/// overlapping) and its stage time (per trip of its busiest ring).
struct RoleCost {
  std::string name;
  SourceRange range; ///< the role's name
  double secondsPerTile = 0;
  double stageSeconds = 0;
  double stagesPerTile = 0; ///< ring trips per tile (0 when it uses no ring)
  Bottleneck bound = Bottleneck::Issue;
};

struct Estimate {
  /// Predicted seconds; nullopt when the kernel is outside what the model
  /// knows (see reasons).
  std::optional<double> seconds;
  Bottleneck bottleneck = Bottleneck::Latency;
  double floorSeconds = 0;    ///< max(flops / tensor rate, unique bytes / DRAM rate)
  double fractionOfFloor = 0; ///< floor / predicted
  double flops = 0;           ///< whole kernel
  double uniqueBytes = 0;     ///< every global tensor once
  double dramBytes = 0;       ///< with the modeled L2 reuse
  double loadedBytes = 0;     ///< every load of every tile (L2 traffic)
  // The pipeline
  double tiles = 0;
  int64_t ctas = 0;           ///< launched CTAs
  double waves = 0;           ///< tiles / (SMs x occupancy), fractional
  double tailEfficiency = 1;  ///< waves / ceil(waves)
  double secondsPerTile = 0;  ///< initiation-bound time of one tile
  double fillSeconds = 0;     ///< pipeline fill per CTA
  double correction = 1;      ///< the family's calibrated factor
  std::string family;         ///< the correction key used
  std::vector<RoleCost> roles;
  std::vector<OpCost> ops;
  // The domain
  bool inDomain = false;      ///< calibrated device, corrected family, every op known
  std::string domain;         ///< "NVIDIA H200 (sm_90a), calibrated families: gemm_sm90"
  std::vector<std::string> reasons; ///< why not in the domain, or why no time
};

/// Estimates \p k at \p sizes with \p cal (which should describe the
/// kernel's target; see describes()). \p family overrides kernelFamily().
Estimate estimate(const sema::Kernel &k, const Sizes &sizes, const Calibration &cal,
                  std::string_view family = {});

} // namespace cake::cost
