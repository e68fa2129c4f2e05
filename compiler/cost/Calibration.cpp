//===- Calibration.cpp - The machine numbers of the cost model -------------===//
//
// Defaults are the target description's datasheet figures, marked
// uncalibrated; a measured calibration (bench/calibration/*.json, read by
// cli/) replaces them.
//
//===----------------------------------------------------------------------===//
#include "compiler/cost/Cost.h"

namespace cake::cost {

Calibration defaultCalibration(Target target) {
  const TargetDesc &d = targetDesc(target);
  Calibration c;
  c.device = "NVIDIA " + std::string(d.example);
  c.calibrated = false;
  c.smCount = int(d.smCount);
  double sms = double(d.smCount);
  c.dramBytesPerSecond = d.dramBytesPerSecond;
  c.l2BytesPerSecond = d.l2BytesPerSecond;
  c.tmaBytesPerSecondPerSm = d.tmaBytesPerSecondPerSm;
  // the dense bf16 peak is the chip's widest MMA: wgmma on sm_90a, tcgen05 on sm_100a
  c.wgmmaFlopsPerSecondPerSm = target == Target::SM90a ? d.bf16DenseFlopsPerSecond / sms : 0;
  c.tcgen05FlopsPerSecondPerSm = target == Target::SM100a ? d.bf16DenseFlopsPerSecond / sms : 0;
  c.mmaSyncFlopsPerSecondPerSm = d.mmaSyncFlopsPerSecond / sms;
  c.launchOverheadSeconds = d.launchOverheadSeconds;
  c.mbarrierRoundTripSeconds = d.mbarrierRoundTripSeconds;
  c.l2Bytes = d.l2Bytes;
  c.smemBytesPerSecondPerSm = d.smemBytesPerSecondPerSm;
  c.memoryLatencySeconds = d.memoryLatencySeconds;
  c.issueSecondsPerOp = d.issueSecondsPerOp;
  c.smClockHz = d.smClockHz;
  return c;
}

bool describes(const Calibration &cal, Target target) {
  return cal.device.find(targetDesc(target).example) != std::string::npos;
}

std::string kernelFamily(std::string_view kernelName) {
  size_t at = kernelName.find("_sm");
  return std::string(at == std::string_view::npos ? kernelName : kernelName.substr(0, at));
}

std::string familyKey(std::string_view family, Target target) {
  std::string t(targetName(target)); // "sm_90a" -> "sm90"
  std::string digits;
  for (char c : t)
    if (c >= '0' && c <= '9')
      digits += c;
  return std::string(family) + "_sm" + digits;
}

std::string_view bottleneckName(Bottleneck b) {
  switch (b) {
  case Bottleneck::Dram:
    return "dram";
  case Bottleneck::L2:
    return "l2";
  case Bottleneck::Smem:
    return "smem";
  case Bottleneck::Tensor:
    return "tensor";
  case Bottleneck::Issue:
    return "issue";
  case Bottleneck::Latency:
    return "latency";
  case Bottleneck::Launch:
    return "launch";
  }
  return "?";
}

} // namespace cake::cost
