//===- Padding.cpp - Problems of a D that is not a multiple of 8 ----------===//
#include "lib/kmeans/Padding.h"

#include "lib/kmeans/Pipeline.h"

namespace cake::kmeans {

namespace {
uint64_t rounded(uint64_t bytes) { return (bytes + 255) / 256 * 256; }
} // namespace

int64_t kernelD(int64_t D) { return (D + 7) / 8 * 8; }

uint64_t paddedBytes(const std::vector<WideTensor> &tensors, int64_t kernelD, size_t elemBytes) {
  uint64_t bytes = 0;
  for (const WideTensor &t : tensors)
    bytes += rounded(uint64_t(t.rows) * uint64_t(kernelD) * elemBytes);
  return bytes;
}

Status padIn(runner::Runner &gpu, runner::Stream stream, std::vector<WideTensor> &tensors, runner::DevicePtr scratch,
             int64_t D, int64_t kernelD, size_t elemBytes) {
  const size_t row = size_t(D) * elemBytes, pitch = size_t(kernelD) * elemBytes;
  for (WideTensor &t : tensors) {
    t.padded = scratch;
    const uint64_t bytes = uint64_t(t.rows) * pitch;
    scratch += rounded(bytes);
    if (!t.in)
      continue;
    if (auto s = gpu.fillOn(stream, t.padded, 0, bytes); !s)
      return fromRunner(s.error(), "zeroing the padded copy of " + std::string(t.name));
    if (auto s = gpu.copy2DOn(stream, t.padded, pitch, t.address, row, row, size_t(t.rows)); !s)
      return fromRunner(s.error(), "copying " + std::string(t.name) + " into rows of D = " + std::to_string(kernelD));
  }
  return Ok{};
}

Status padOut(runner::Runner &gpu, runner::Stream stream, const std::vector<WideTensor> &tensors, int64_t D,
              int64_t kernelD, size_t elemBytes) {
  const size_t row = size_t(D) * elemBytes, pitch = size_t(kernelD) * elemBytes;
  for (const WideTensor &t : tensors)
    if (t.out)
      if (auto s = gpu.copy2DOn(stream, t.address, row, t.padded, pitch, row, size_t(t.rows)); !s)
        return fromRunner(s.error(), "copying " + std::string(t.name) + " back from rows of D = " +
                                         std::to_string(kernelD));
  return Ok{};
}

} // namespace cake::kmeans
