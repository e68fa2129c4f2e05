//===- KMeans.cpp - assign, update and fit --------------------------------===//
//
// Part of CAKE. fit is Lloyd's algorithm on the caller's stream:
//
//   c = c_inout
//   repeat up to max_iters times:
//     assign(x, c) -> ids; update(x, ids, c) -> c', shift[B]
//     read shift back (the stream is waited for); c = c'
//     stop when shift[b] <= tol for every batch b
//   c_inout = c; assign(x, c) -> ids (so that ids belong to the returned c)
//
// shift is computed on the GPU by the update pipeline's last kernel
// (kmeans_update_means): per batch, the largest distance a centroid moved.
// The two centroid buffers alternate (c_inout and one scratch copy), so an
// iteration copies nothing.
//
//===----------------------------------------------------------------------===//
#include "lib/kmeans/KMeans.h"

#include "lib/kmeans/Padding.h"
#include "lib/kmeans/Pipeline.h"
#include "lib/kmeans/Validate.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <memory>
#include <map>
#include <array>
#include <vector>

namespace cake::kmeans {

namespace {

using runner::DevicePtr;
using runner::Stream;

DevicePtr dev(const void *p) { return DevicePtr(reinterpret_cast<uintptr_t>(p)); }

TensorSpec xSpec(const Problem &p) { return {"x", elemOf(p.dtype), {p.B, p.N, p.D}}; }
TensorSpec cSpec(std::string name, const Problem &p) { return {std::move(name), elemOf(p.dtype), {p.B, p.K, p.D}}; }
TensorSpec idsSpec(const Problem &p) { return {"ids", sema::Elem::I32, {p.B, p.N}}; }

using PipelinePtr = std::shared_ptr<const Pipeline>;

/// Prepared pipelines by problem (operation, sizes, dtype, GPU): a repeated
/// call dispatches and plans its pipeline once. Pipelines point into the
/// embedded files, which live as long as the process.
Expected<PipelinePtr> cachedPipeline(const Problem &p, const std::vector<TensorSpec> &tensors) {
  static std::mutex mutex;
  static std::map<std::array<int64_t, 10>, PipelinePtr> cache;
  // the tensors differ only by the optional outputs (assign's dist): their count tells them apart
  const std::array<int64_t, 10> key = {int64_t(p.op),       p.B, p.N, p.K, p.D, int64_t(p.dtype), p.smCount,
                                       p.computeCapability, int64_t(reinterpret_cast<intptr_t>(forcedVariant(p.op))),
                                       int64_t(tensors.size())};
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
  }
  Dispatched d = dispatch(p);
  if (!d)
    return d.takeError();
  auto pipe = std::make_shared<Pipeline>();
  if (Status s = preparePipeline(**d, p, tensors, *pipe); !s)
    return s.takeError();
  std::lock_guard lock(mutex);
  if (cache.size() > 256) // shapes seen by a long-running process: keep it bounded
    cache.clear();
  return cache.emplace(key, std::move(pipe)).first->second;
}

/// Dispatches \p p and prepares the variant's pipeline (before the GPU is
/// known: errors that need no GPU come first).
Status choose(const Problem &p, const std::vector<TensorSpec> &tensors, PipelinePtr &out) {
  auto pipe = cachedPipeline(p, tensors);
  if (!pipe)
    return pipe.takeError();
  out = std::move(*pipe);
  return Ok{};
}

/// Dispatches again now that the GPU is known (SM count, compute
/// capability).
Status refine(Problem &p, const Device &device, const std::vector<TensorSpec> &tensors, PipelinePtr &pipe) {
  const runner::DeviceInfo &info = device.runner->device();
  p.smCount = info.smCount;
  p.computeCapability = info.major * 10 + info.minor;
  auto chosen = cachedPipeline(p, tensors);
  if (!chosen) {
    Error e = chosen.takeError();
    e.message += " (GPU " + std::to_string(device.ordinal) + ": " + info.name + ")";
    return e;
  }
  pipe = std::move(*chosen);
  return Ok{};
}

std::vector<TensorSpec> assignTensors(const Problem &p) { return {xSpec(p), cSpec("c", p), idsSpec(p)}; }
std::vector<TensorSpec> assignDistanceTensors(const Problem &p) {
  return {xSpec(p), cSpec("c", p), idsSpec(p), {"dist", sema::Elem::FP32, {p.B, p.N}}};
}
std::vector<TensorSpec> updateTensors(const Problem &p) {
  return {xSpec(p), idsSpec(p), cSpec("c_old", p), cSpec("c_new", p)};
}

Problem asOp(Problem p, Op op) {
  p.op = op;
  return p;
}

/// Pinned host memory the device writes into, freed when the object dies.
class HostBuffer {
public:
  explicit HostBuffer(runner::Runner &runner) : runner_(runner) {}
  ~HostBuffer() {
    if (buffer_.host)
      (void)runner_.freeMapped(buffer_); // a destructor cannot report; a failed free leaves nothing to undo
  }
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  Status allocate(size_t bytes) {
    auto m = runner_.allocMapped(bytes);
    if (!m)
      return fromRunner(m.error(), "allocating host memory for the shifts");
    buffer_ = *m;
    return Ok{};
  }
  const runner::MappedBuffer &get() const { return buffer_; }

private:
  runner::Runner &runner_;
  runner::MappedBuffer buffer_;
};

} // namespace

/// \p f, which names the width a problem runs at, with where that came from
/// when it is not the caller's D.
static Error paddedNote(Error f, int64_t userD, int64_t kernelWidth) {
  if (userD != kernelWidth)
    f.message += " (D = " + std::to_string(userD) + " runs padded with zeros to D = " + std::to_string(kernelWidth) +
                 ")";
  return f;
}

/// The tensors of an operation (named as its kernels' IR names them) at \p p's sizes.
using TensorsOf = std::vector<TensorSpec> (*)(const Problem &p);

/// Dispatches \p p at the D its kernels run at (kernelD: padded when the
/// kernels are not built for p.D), opens the GPU that holds \p buffers (named
/// as the IR names them), and enqueues the variant's pipeline on the caller's
/// stream with scratch of its own; \p wide are the buffers whose rows are D
/// wide (copied into padded rows and back when padded).
Status runPipeline(Problem &p, TensorsOf tensorsOf, std::initializer_list<Located> buffers,
                   std::vector<WideTensor> wide, void *streamHandle, const std::string &scratchWhat) {
  Problem q = p;
  q.D = kernelD(p.D);
  const bool padded = q.D != p.D;
  auto said = [&](const Error &f) { return paddedNote(f, p.D, q.D); };
  const std::vector<TensorSpec> tensors = tensorsOf(q);
  PipelinePtr pipe;
  if (auto f = choose(q, tensors, pipe); !f)
    return said(f.error());
  Stream stream{streamHandle};
  Device *device = nullptr;
  if (auto f = openDevice(buffers, stream, device); !f)
    return f;
  std::lock_guard lock(device->mutex);
  if (auto f = refine(q, *device, tensors, pipe); !f)
    return said(f.error());
  const size_t eb = dtypeBytes(p.dtype);
  StreamBuffer scratch(*device->runner, stream);
  if (auto f = scratch.allocate(pipe->scratchBytes + (padded ? paddedBytes(wide, q.D, eb) : 0), scratchWhat); !f)
    return f;
  runner::Buffers addresses;
  for (const Located &l : buffers)
    addresses[std::string(l.name)] = dev(l.address);
  if (padded) {
    for (WideTensor &w : wide)
      w.address = addresses.at(std::string(w.name));
    if (auto f = padIn(*device->runner, stream, wide, scratch.address() + pipe->scratchBytes, p.D, q.D, eb); !f)
      return f;
    for (const WideTensor &w : wide)
      addresses[std::string(w.name)] = w.padded;
  }
  if (auto f = enqueue(*device, stream, *pipe, addresses, scratch.address()); !f)
    return f;
  return padded ? padOut(*device->runner, stream, wide, p.D, q.D, eb) : Status(Ok{});
}

Status assign(const void *x, const void *c, int32_t *ids, float *dist, int64_t B, int64_t N, int64_t K, int64_t D,
              int dtype, void *streamHandle) {
  Problem p;
  if (auto f = checkProblem(Op::Assign, B, N, K, D, dtype, p); !f)
    return f;
  std::vector<WideTensor> wide = {{.name = "x", .rows = B * N}, {.name = "c", .rows = B * K}};
  if (!dist) {
    if (auto f = checkArgs({{"x", x, xBytes(p)}, {"c", c, cBytes(p)}, {"ids", ids, idsBytes(p), true, 4}}); !f)
      return f;
    return runPipeline(p, assignTensors, {{"x", x}, {"c", c}, {"ids", ids}}, std::move(wide), streamHandle,
                       "the assign scratch");
  }
  if (auto f = checkArgs({{"x", x, xBytes(p)},
                          {"c", c, cBytes(p)},
                          {"ids", ids, idsBytes(p), true, 4},
                          {"dist", dist, idsBytes(p), true, 4}}); !f)
    return f;
  return runPipeline(p, assignDistanceTensors, {{"x", x}, {"c", c}, {"ids", ids}, {"dist", dist}}, std::move(wide),
                     streamHandle, "the assign scratch");
}

Status update(const void *x, const int32_t *ids, const void *cOld, void *cNew, int64_t B, int64_t N, int64_t K,
              int64_t D, int dtype, void *streamHandle) {
  Problem p;
  if (auto f = checkProblem(Op::Update, B, N, K, D, dtype, p); !f)
    return f;
  if (auto f = checkArgs({{"x", x, xBytes(p)},
                          {"ids", ids, idsBytes(p), false, 4},
                          {"c_old", cOld, cBytes(p)},
                          {"c_new", cNew, cBytes(p), true}}); !f)
    return f;
  return runPipeline(p, updateTensors, {{"x", x}, {"ids", ids}, {"c_old", cOld}, {"c_new", cNew}},
                     {{.name = "x", .rows = B * N},
                      {.name = "c_old", .rows = B * K},
                      {.name = "c_new", .rows = B * K, .in = false, .out = true}},
                     streamHandle, "the update scratch (sums, counts, shifts)");
}

Status fit(const void *x, void *c, int32_t *ids, int64_t B, int64_t N, int64_t K, int64_t D, int dtype, int maxIters,
           float tol, int *itersDone, void *streamHandle) {
  if (itersDone)
    *itersDone = 0;
  Problem p;
  if (auto f = checkProblem(Op::Assign, B, N, K, D, dtype, p); !f)
    return f;
  if (auto f = checkArgs({{"x", x, xBytes(p)}, {"c_inout", c, cBytes(p), true}, {"ids", ids, idsBytes(p), true, 4}}); !f)
    return f;
  if (auto f = checkFit(maxIters, tol); !f)
    return f;
  const int64_t userD = p.D;
  p.D = kernelD(userD); // the kernels' D from here on (padded copies when it is not the caller's)
  Problem up = asOp(p, Op::Update);
  PipelinePtr assignPtr, updatePtr;
  if (auto f = choose(p, assignTensors(p), assignPtr); !f)
    return paddedNote(f.error(), userD, p.D);
  if (auto f = choose(up, updateTensors(up), updatePtr); !f)
    return paddedNote(f.error(), userD, p.D);
  auto checkShift = [&]() -> Status {
    const Pipeline &updatePipe = *updatePtr;
    const ScratchBuffer *shift = updatePipe.findScratch("shift");
    if (!shift || shift->elem != sema::Elem::FP32 || shift->shape != std::vector<int64_t>{p.B})
      return internal("fit reads the per-batch centroid shift as fp32[B] from the update kernels' 'shift' "
                      "parameter; " + std::string(updatePipe.file->embedded->path) +
                      (shift ? " declares another type" : " has none"));
    return Ok{};
  };
  if (auto f = checkShift(); !f)
    return f;

  Stream stream{streamHandle};
  Device *device = nullptr;
  if (auto f = openDevice({{"x", x}, {"c_inout", c}, {"ids", ids}}, stream, device); !f)
    return f;
  std::lock_guard lock(device->mutex);
  if (auto f = refine(p, *device, assignTensors(p), assignPtr); !f)
    return paddedNote(f.error(), userD, p.D);
  if (auto f = refine(up, *device, updateTensors(up), updatePtr); !f)
    return paddedNote(f.error(), userD, p.D);
  if (auto f = checkShift(); !f)
    return f;
  const Pipeline &assignPipe = *assignPtr, &updatePipe = *updatePtr;
  runner::Runner &gpu = *device->runner;
  StreamBuffer assignScratch(gpu, stream), updateScratch(gpu, stream), other(gpu, stream), wide(gpu, stream);
  HostBuffer shifts(gpu);
  const bool padded = p.D != userD;
  const size_t eb = dtypeBytes(p.dtype);
  std::vector<WideTensor> wideTensors = {{.name = "x", .address = dev(x), .rows = p.B * p.N},
                                         {.name = "c_inout", .address = dev(c), .rows = p.B * p.K, .out = true}};
  if (auto f = assignScratch.allocate(assignPipe.scratchBytes, "the assign scratch"); !f)
    return f;
  if (auto f = updateScratch.allocate(updatePipe.scratchBytes, "the update scratch (sums, counts, shifts)"); !f)
    return f;
  if (auto f = other.allocate(cBytes(p), "the second centroid buffer"); !f)
    return f;
  if (auto f = shifts.allocate(size_t(p.B) * sizeof(float)); !f)
    return f;
  DevicePtr shiftAddress = updateScratch.address() + updatePipe.findScratch("shift")->offset;
  // the kernels' x and centroids: the caller's, or their padded copies
  DevicePtr xk = dev(x), ck = dev(c);
  if (padded) {
    if (auto f = wide.allocate(paddedBytes(wideTensors, p.D, eb), "the padded copies of x and the centroids"); !f)
      return f;
    if (auto f = padIn(gpu, stream, wideTensors, wide.address(), userD, p.D, eb); !f)
      return f;
    xk = wideTensors[0].padded, ck = wideTensors[1].padded;
  }

  DevicePtr current = ck, next = other.address();
  std::vector<float> shift(size_t(p.B));
  for (int it = 0; it < maxIters; ++it) {
    if (auto f = enqueue(*device, stream, assignPipe, {{"x", xk}, {"c", current}, {"ids", dev(ids)}},
                         assignScratch.address()); !f)
      return f;
    if (auto f = enqueue(*device, stream, updatePipe,
                         {{"x", xk}, {"ids", dev(ids)}, {"c_old", current}, {"c_new", next}},
                         updateScratch.address()); !f)
      return f;
    if (auto s = gpu.copyOn(stream, shifts.get().device, shiftAddress, shift.size() * sizeof(float)); !s)
      return fromRunner(s.error(), "reading the centroid shifts back");
    if (auto s = gpu.waitFor(stream); !s)
      return fromRunner(s.error(), "iteration " + std::to_string(it + 1) + " of fit", kTimeoutVariable);
    std::memcpy(shift.data(), shifts.get().host, shift.size() * sizeof(float));
    std::swap(current, next);
    if (itersDone)
      *itersDone = it + 1;
    // NaN is not converged
    if (std::all_of(shift.begin(), shift.end(), [&](float s) { return s <= tol; }))
      break;
  }
  if (current != ck)
    if (auto s = gpu.copyOn(stream, ck, current, cBytes(p)); !s)
      return fromRunner(s.error(), "copying the final centroids to c_inout");
  if (auto f = enqueue(*device, stream, assignPipe, {{"x", xk}, {"c", ck}, {"ids", dev(ids)}},
                       assignScratch.address()); !f)
    return f;
  if (padded)
    if (auto f = padOut(gpu, stream, wideTensors, userD, p.D, eb); !f)
      return f;
  if (auto s = gpu.waitFor(stream); !s)
    return fromRunner(s.error(), "the last assign of fit", kTimeoutVariable);
  return Ok{};
}

} // namespace cake::kmeans
