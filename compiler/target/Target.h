//===- Target.h - Target descriptions --------------------------*- C++ -*-===//
//
// Part of CAKE. Every number CAKE knows about a GPU lives in one table in
// Target.cpp: capacities, limits, instruction contracts and (for the cost
// model) rates. Nothing else in the code hard-codes a target number.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace cake {

/// The targets CAKE knows, by their CUDA names.
enum class Target { SM80, SM90a, SM100a };

std::optional<Target> parseTarget(std::string_view name);
std::string_view targetName(Target target);

/// The families of MMA instructions. The target layer knows no operation
/// names (it includes nothing of ours); the verifier maps the MMA operations
/// of the primitive table to these.
enum class MmaFamily : uint8_t { Sync, Wgmma, Tcgen05 };

/// The shape contract of one family of MMA instructions on a target.
struct MmaContract {
  MmaFamily family;              ///< mma.sync, wgmma.mma or tcgen05.mma
  std::array<uint16_t, 2> m;     ///< legal M (one CTA), 0 when unused
  std::array<uint16_t, 2> mPair; ///< legal M with cta_group = 2 (tcgen05), 0 when none
  uint16_t nStep;                ///< N is a multiple of this for the smallest M ...
  uint16_t nStepLarge;           ///< ... and of this for larger M
  uint16_t nMin, nMax;
  uint8_t k16, kTf32, k8;        ///< instruction K for 16-bit, tf32 and 8-bit operands

  bool legalM(int64_t value, bool pair = false) const {
    const auto &set = pair ? mPair : m;
    return value > 0 && (value == set[0] || value == set[1]);
  }
  int64_t stepFor(int64_t mValue) const { return mValue == m[0] ? nStep : nStepLarge; }
  bool legalN(int64_t mValue, int64_t n) const {
    int64_t step = stepFor(mValue);
    return n >= nMin && n <= nMax && n % step == 0;
  }
};

struct TargetDesc {
  Target id;
  std::string_view name;    ///< "sm_90a"
  std::string_view example; ///< the GPU the numbers describe: "H200"
  uint8_t capabilityBit;    ///< sema::TargetBits of this target

  // Threads and warps.
  uint32_t warpSize;
  uint32_t maxThreadsPerBlock;
  uint32_t maxClusterSize;     ///< portable cluster size; 1 when clusters are absent
  uint32_t namedBarriers;      ///< hardware barrier ids per CTA (id 0 is __syncthreads)

  // Storage.
  uint32_t smemPerBlock;       ///< bytes of shared memory one CTA may use (opt-in maximum)
  uint32_t registersPerSm;     ///< 32-bit registers per SM
  uint32_t maxRegsPerThread;
  uint32_t setmaxnregMin, setmaxnregMax, setmaxnregStep; ///< 0 when setmaxnreg is absent
  uint32_t tmemColumns;        ///< 0 when there is no tensor memory
  uint32_t tmemLanes;

  // Memory operations.
  uint32_t tmaMaxRank;         ///< 0 when there is no TMA
  uint32_t tmaMaxBoxDim;
  uint32_t tmaAlignBytes;      ///< global base and stride alignment
  uint32_t mbarrierBytes;      ///< storage of one mbarrier

  // Whole-chip figures (the cost model refines them by calibration).
  uint32_t smCount;
  double dramBytesPerSecond;
  double bf16DenseFlopsPerSecond;

  std::span<const MmaContract> mma; ///< the MMA instruction families it has

  // Datasheet-level rates and latencies for the cost model (compiler/cost/),
  // which marks them uncalibrated until `cake calibrate` measures them.
  double mmaSyncFlopsPerSecond;    ///< whole chip, bf16 mma.sync
  double l2BytesPerSecond;         ///< whole chip L2 read bandwidth
  double l2Bytes;                  ///< L2 capacity
  double tmaBytesPerSecondPerSm;   ///< what one SM's TMA (or cp.async) engine can pull
  double smemBytesPerSecondPerSm;  ///< shared-memory (and TMEM load) bandwidth of one SM
  double memoryLatencySeconds;     ///< a global load's round trip
  double launchOverheadSeconds;    ///< an empty kernel, back to back
  double mbarrierRoundTripSeconds; ///< arrive on one side, wake on the other
  double issueSecondsPerOp;        ///< issuing one operation of a role
  double smClockHz;                ///< sustained SM clock (4 schedulers issue one instruction per cycle each)

  // Launch limits common to every CUDA GPU since sm_30 (CUDA C++ Programming
  // Guide, "Features and Technical Specifications"); defaulted here rather
  // than repeated in each row.
  uint32_t maxGridX = 2147483647; ///< grid x: 2^31 - 1
  uint32_t maxGridYZ = 65535;     ///< grid y and z

  /// The contract of MMA family \p family on this target, or nullptr.
  const MmaContract *mmaContract(MmaFamily family) const;
};

const TargetDesc &targetDesc(Target target);

/// Bits of a GPU virtual address on every target here (Pascal and later
/// address 49 bits, CUDA C++ Programming Guide, "Unified Virtual Address
/// Space"): no global tensor can be larger than 2^49 bytes.
inline constexpr uint32_t kVirtualAddressBits = 49;

/// Alignment a swizzled shared-memory tile needs (1024 B for 128B, ...), or
/// the plain minimum for no swizzle.
uint32_t swizzleAlignment(uint32_t swizzleBytes);

} // namespace cake
