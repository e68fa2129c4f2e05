//===- Runner.cpp - The GPU-free parts of the runner ----------------------===//
//
// Part of CAKE. Parameter packing, timing statistics and tensor-map
// validation: everything of Runner.h that needs no driver, so that it is
// unit-tested on any machine.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/Runner.h"
#include "compiler/target/Target.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cake::runner {

std::string DeviceInfo::cakeTarget() const {
  if (major == 9 && minor == 0)
    return "sm_90a";
  if (major == 10 && minor == 0)
    return "sm_100a";
  if (major == 8)
    return "sm_80";
  return {};
}

KernelParams &KernelParams::addBytes(const void *data, size_t size, size_t align) {
  if (align == 0 || (align & (align - 1)) != 0)
    align = 1;
  size_t offset = (end_ + align - 1) / align * align;
  size_t end = offset + size;
  storage_.resize((end + sizeof(Chunk) - 1) / sizeof(Chunk));
  if (size)
    std::memcpy(reinterpret_cast<std::byte *>(storage_.data()) + offset, data, size);
  offsets_.push_back(offset);
  sizes_.push_back(size);
  end_ = end;
  return *this;
}

std::vector<void *> KernelParams::pointers() {
  std::vector<void *> out;
  for (size_t offset : offsets_)
    out.push_back(reinterpret_cast<std::byte *>(storage_.data()) + offset);
  return out;
}

Timing summarizeTimings(std::vector<double> samplesMs) {
  Timing t;
  t.samplesMs = samplesMs;
  if (samplesMs.empty())
    return t;
  std::sort(samplesMs.begin(), samplesMs.end());
  size_t n = samplesMs.size();
  // Percentile p by linear interpolation between closest ranks.
  auto percentile = [&](double p) {
    double rank = p * static_cast<double>(n - 1);
    size_t lo = static_cast<size_t>(std::floor(rank));
    size_t hi = std::min(lo + 1, n - 1);
    double frac = rank - static_cast<double>(lo);
    return samplesMs[lo] + (samplesMs[hi] - samplesMs[lo]) * frac;
  };
  t.medianMs = percentile(0.5);
  t.p10Ms = percentile(0.1);
  t.p90Ms = percentile(0.9);
  t.minMs = samplesMs.front();
  t.maxMs = samplesMs.back();
  t.meanMs = std::accumulate(samplesMs.begin(), samplesMs.end(), 0.0) / static_cast<double>(n);
  double var = 0;
  for (double s : samplesMs)
    var += (s - t.meanMs) * (s - t.meanMs);
  t.stddevMs = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0;
  t.spreadPercent = t.medianMs > 0 ? 100.0 * (t.p90Ms - t.p10Ms) / t.medianMs : 0;
  return t;
}

size_t dtypeBytes(TensorDType t) { return t == TensorDType::F32 ? 4 : 2; }

std::string_view dtypeName(TensorDType t) {
  switch (t) {
  case TensorDType::BF16:
    return "bf16";
  case TensorDType::F16:
    return "f16";
  case TensorDType::F32:
    return "f32";
  }
  return "?";
}

std::string_view swizzleName(Swizzle s) {
  switch (s) {
  case Swizzle::None:
    return "none";
  case Swizzle::B32:
    return "32B";
  case Swizzle::B64:
    return "64B";
  case Swizzle::B128:
    return "128B";
  }
  return "?";
}

void TensorMapDesc::setPackedStrides() {
  uint64_t stride = dtypeBytes(dtype);
  for (uint32_t i = 0; i < rank && i < 5; ++i) {
    strides[i] = stride;
    stride *= dims[i];
  }
}

std::string validateTensorMap(const TensorMapDesc &d) {
  // The TMA limits are target facts (compiler/target); sm_90a and sm_100a agree.
  const TargetDesc &t = targetDesc(Target::SM90a);
  size_t elem = dtypeBytes(d.dtype);
  auto dim = [](uint32_t i) { return "dimension " + std::to_string(i); };
  if (d.rank < 1 || d.rank > t.tmaMaxRank)
    return "a tensor map has 1 to " + std::to_string(t.tmaMaxRank) + " dimensions, not " + std::to_string(d.rank);
  if (d.address % t.tmaAlignBytes != 0)
    return "the global address must be " + std::to_string(t.tmaAlignBytes) + "-byte aligned";
  for (uint32_t i = 0; i < d.rank; ++i) {
    if (d.dims[i] == 0 || d.dims[i] > (uint64_t(1) << 32))
      return dim(i) + " has " + std::to_string(d.dims[i]) + " elements; it must be 1 to 2^32";
    if (i > 0 && (d.strides[i] % 16 != 0 || d.strides[i] >= (uint64_t(1) << 40)))
      return "the stride of " + dim(i) + " is " + std::to_string(d.strides[i]) +
             " bytes; it must be a multiple of 16 below 2^40";
    if (d.box[i] == 0 || d.box[i] > t.tmaMaxBoxDim)
      return "the box of " + dim(i) + " is " + std::to_string(d.box[i]) + " elements; it must be 1 to " +
             std::to_string(t.tmaMaxBoxDim);
    if (d.elementStrides[i] == 0 || d.elementStrides[i] > 8)
      return "the element stride of " + dim(i) + " is " + std::to_string(d.elementStrides[i]) + "; it must be 1 to 8";
  }
  uint64_t innerBytes = uint64_t(d.box[0]) * elem;
  if (innerBytes % 16 != 0)
    return "the box's inner dimension is " + std::to_string(innerBytes) + " bytes; it must be a multiple of 16";
  uint32_t span = d.swizzle == Swizzle::B32    ? 32
                  : d.swizzle == Swizzle::B64  ? 64
                  : d.swizzle == Swizzle::B128 ? 128
                                               : 0;
  if (span && innerBytes > span)
    return "the box's inner dimension is " + std::to_string(innerBytes) + " bytes, more than the " +
           std::to_string(span) + "-byte swizzle span";
  // A box lands in shared memory; the H200's driver rejected 256 KiB boxes and
  // took 128 KiB ones (tests/gpu: TensorMapEncodeMatrix).
  uint64_t boxBytes = elem;
  for (uint32_t i = 0; i < d.rank; ++i)
    boxBytes *= d.box[i];
  if (boxBytes > t.smemPerBlock)
    return "the box is " + std::to_string(boxBytes) + " bytes, more than the " + std::to_string(t.smemPerBlock) +
           " bytes of shared memory it must land in";
  return {};
}

std::string describeNoGpu(const Error &error) {
  return "no CUDA GPU is available on this machine (" + error.message + ")";
}

} // namespace cake::runner
