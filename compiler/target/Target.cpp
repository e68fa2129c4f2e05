//===- Target.cpp - Target descriptions -----------------------------------===//
//
// Sources: the CUDA C Programming Guide (compute capability tables), the PTX
// ISA 8.x/9.0 (setmaxnreg, cp.async.bulk.tensor, tcgen05), and the H200
// figures measured on the lent device (../shared/workloads/README.md).
//
//===----------------------------------------------------------------------===//
#include "compiler/target/Target.h"

namespace cake {
namespace {

// PTX ISA: mma.sync m16n8k{16,8,32}; wgmma m64nNk{16,8,32} with N a multiple of 8 up to 256; tcgen05.mma
// M 64 (N multiple of 8) or 128 (N multiple of 16) per CTA, 128 or 256 for a CTA pair, N up to 256.
constexpr MmaContract kMmaSync{MmaFamily::Sync, {16, 0}, {0, 0}, 8, 8, 8, 8, 16, 8, 32};
constexpr MmaContract kWgmma{MmaFamily::Wgmma, {64, 0}, {0, 0}, 8, 8, 8, 256, 16, 8, 32};
constexpr MmaContract kTcgen05{MmaFamily::Tcgen05, {64, 128}, {128, 256}, 8, 16, 8, 256, 16, 8, 32};
constexpr MmaContract kAmpereMma[] = {kMmaSync};
constexpr MmaContract kHopperMma[] = {kMmaSync, kWgmma};
constexpr MmaContract kBlackwellMma[] = {kMmaSync, kTcgen05};

constexpr TargetDesc kTargets[] = {
    {Target::SM80, "sm_80", "A100", 1,
     /*warpSize=*/32, /*maxThreadsPerBlock=*/1024, /*maxClusterSize=*/1, /*namedBarriers=*/16,
     /*smemPerBlock=*/163 * 1024, /*registersPerSm=*/65536, /*maxRegsPerThread=*/255,
     /*setmaxnreg=*/0, 0, 0, /*tmemColumns=*/0, /*tmemLanes=*/0,
     /*tmaMaxRank=*/0, /*tmaMaxBoxDim=*/0, /*tmaAlignBytes=*/16, /*mbarrierBytes=*/8,
     /*smCount=*/108, /*dram=*/2.0e12, /*bf16=*/312e12, kAmpereMma,
     /*mmaSync=*/312e12, /*l2=*/5.5e12, /*l2Bytes=*/40e6, /*tmaPerSm=*/100e9, /*smemPerSm=*/180e9,
     /*latency=*/0.6e-6, /*launch=*/2.5e-6, /*mbarrier=*/0.1e-6, /*issue=*/5e-9, /*clock=*/1.41e9},
    {Target::SM90a, "sm_90a", "H200", 2,
     32, 1024, 8, 16,
     227 * 1024, 65536, 255,
     24, 256, 8, 0, 0,
     5, 256, 16, 8,
     132, 4.25e12, 989e12, kHopperMma,
     660e12, 12e12, 50e6, 200e9, 230e9,
     0.6e-6, 2.5e-6, 0.1e-6, 4e-9, 1.755e9},
    {Target::SM100a, "sm_100a", "B200", 4,
     32, 1024, 8, 16,
     227 * 1024, 65536, 255,
     24, 256, 8, 512, 128,
     5, 256, 16, 8,
     148, 8.0e12, 2250e12, kBlackwellMma,
     500e12, 20e12, 126e6, 250e9, 250e9,
     0.6e-6, 2.5e-6, 0.1e-6, 4e-9, 1.965e9},
};

} // namespace

std::optional<Target> parseTarget(std::string_view name) {
  for (const TargetDesc &t : kTargets)
    if (t.name == name)
      return t.id;
  return std::nullopt;
}

std::string_view targetName(Target target) { return targetDesc(target).name; }

const TargetDesc &targetDesc(Target target) { return kTargets[static_cast<int>(target)]; }

const MmaContract *TargetDesc::mmaContract(MmaFamily family) const {
  for (const MmaContract &c : mma)
    if (c.family == family)
      return &c;
  return nullptr;
}

uint32_t swizzleAlignment(uint32_t swizzleBytes) {
  switch (swizzleBytes) {
  case 128:
    return 1024;
  case 64:
    return 512;
  case 32:
    return 256;
  default:
    return 128;
  }
}

} // namespace cake
