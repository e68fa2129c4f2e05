//===- Search.cpp - KNN search on the GPU ---------------------------------===//
#include "lib/knn/Search.h"

#include "lib/core/Args.h"
#include "lib/core/Launch.h"
#include "lib/knn/Embedded.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>

namespace cake::knn {

namespace {

using libcore::Device;
using libcore::Located;
using libcore::Pipeline;
using libcore::StreamBuffer;
using libcore::TensorSpec;
using runner::DevicePtr;
using runner::Stream;

DevicePtr dev(const void *p) { return DevicePtr(reinterpret_cast<uintptr_t>(p)); }

sema::Elem elemOf(DType t) { return t == DType::BF16 ? sema::Elem::BF16 : sema::Elem::FP16; }

uint64_t rowsBytes(int64_t rows, int64_t cols, uint64_t elemBytes) {
  return libcore::tensorBytes({uint64_t(rows), uint64_t(cols), elemBytes});
}

} // namespace

Expected<PipelinePtr> pipelineFor(const Problem &p, bool distances) {
  static std::mutex mutex;
  static std::map<std::array<int64_t, 9>, PipelinePtr> cache;
  const std::array<int64_t, 9> key = {p.Q,       p.N, p.D, p.k, int64_t(p.dtype), p.smCount, p.computeCapability,
                                      int64_t(reinterpret_cast<intptr_t>(forcedInstance())), distances};
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
  }
  auto choice = dispatch(p);
  if (!choice)
    return choice.takeError();
  const EmbeddedFile *embedded = findEmbedded(choice->instance->name);
  if (!embedded)
    return internal("the manifest's instantiation '" + choice->instance->name + "' is not embedded in this build");
  libcore::PipelineSpec spec;
  spec.name = choice->instance->name;
  spec.embedded = embedded;
  spec.manifest = &embeddedManifest();
  spec.zeroKernel = choice->entry->zero;
  spec.kernels.assign(choice->entry->kernels.begin(), choice->entry->kernels.end());
  spec.repeat = choice->entry->repeat;
  for (const auto &[name, value] : choice->sizes)
    if (name == "PASSES")
      spec.passes = value;
  spec.scratch.assign(choice->entry->scratch.begin(), choice->entry->scratch.end());
  for (const auto &[name, value] : choice->sizes)
    spec.sizes[name] = value;
  const sema::Elem e = elemOf(p.dtype);
  std::vector<TensorSpec> tensors = {{"q", e, {p.Q, p.D}}, {"db", e, {p.N, p.D}}, {"ids", sema::Elem::I64, {p.Q, p.k}}};
  if (distances)
    tensors.push_back({"dist", sema::Elem::FP32, {p.Q, p.k}});
  else
    spec.scratch.push_back("dist"); // the merge writes them: to scratch when the caller does not want them
  auto pipe = std::make_shared<Pipeline>();
  if (Status s = libcore::preparePipeline(spec, std::move(tensors), *pipe); !s)
    return s.takeError();
  std::lock_guard lock(mutex);
  if (cache.size() > 256) // shapes seen by a long-running process: keep it bounded
    cache.clear();
  return cache.emplace(key, std::move(pipe)).first->second;
}

Status checkProblem(int64_t Q, int64_t N, int64_t D, int64_t k, int dtype, int metric, Problem &p) {
  for (auto [name, v] : {std::pair{"Q", Q}, {"N", N}, {"D", D}, {"k", k}})
    if (v < 1 || v > INT32_MAX)
      return invalid(std::string(name) + " = " + std::to_string(v) + " is outside 1 .. 2^31 - 1");
  if (k > N)
    return invalid("k = " + std::to_string(k) + " exceeds N = " + std::to_string(N) +
                   ": the database has fewer than k rows");
  if (dtype != 0 && dtype != 1)
    return invalid("dtype " + std::to_string(dtype) + " is not one of CAKE_KNN_BF16 (0), CAKE_KNN_F16 (1)");
  if (metric != 0 && metric != 1)
    return invalid("metric " + std::to_string(metric) + " is not one of CAKE_KNN_L2 (0), CAKE_KNN_IP (1)");
  if (metric == 1)
    return unsupported("the inner-product metric (CAKE_KNN_IP) has no kernels in this build; CAKE_KNN_L2 has");
  p = Problem{};
  p.Q = Q, p.N = N, p.D = D, p.k = k;
  p.dtype = DType(dtype);
  if (!rowsBytes(Q, D, 2) || !rowsBytes(N, D, 2) || !rowsBytes(Q, k, 8))
    return invalid("the tensors of Q = " + std::to_string(Q) + ", N = " + std::to_string(N) + ", D = " +
                   std::to_string(D) + ", k = " + std::to_string(k) + " would exceed 2^48 bytes");
  return Ok{};
}

Status search(const void *q, const void *db, float *dist, int64_t *ids, int64_t Q, int64_t N, int64_t D, int64_t k,
              int dtype, int metric, void *streamHandle) {
  Problem p;
  if (auto f = checkProblem(Q, N, D, k, dtype, metric, p); !f)
    return f;
  const libcore::Arg qArg{"q", q, rowsBytes(Q, D, 2)}, dbArg{"db", db, rowsBytes(N, D, 2)},
      idsArg{"ids", ids, rowsBytes(Q, k, 8), true, 8}, distArg{"dist", dist, rowsBytes(Q, k, 4), true, 4};
  if (auto f = dist ? libcore::checkArgs({qArg, dbArg, idsArg, distArg}) : libcore::checkArgs({qArg, dbArg, idsArg});
      !f)
    return f;
  // what needs no GPU first: a problem no kernel takes is refused on any machine
  if (auto pipe = pipelineFor(p, dist != nullptr); !pipe)
    return pipe.takeError();
  Stream stream{streamHandle};
  Device *device = nullptr;
  Status opened = dist ? libcore::openDevice({{"q", q}, {"db", db}, {"ids", ids}, {"dist", dist}}, stream,
                                             kTimeoutVariable, device)
                       : libcore::openDevice({{"q", q}, {"db", db}, {"ids", ids}}, stream, kTimeoutVariable, device);
  if (!opened)
    return opened;
  std::lock_guard lock(device->mutex);
  // again on this GPU: the split over the database depends on its SM count
  const runner::DeviceInfo &info = device->runner->device();
  p.smCount = info.smCount;
  p.computeCapability = info.major * 10 + info.minor;
  auto pipe = pipelineFor(p, dist != nullptr);
  if (!pipe) {
    Error e = pipe.takeError();
    e.message += " (GPU " + std::to_string(device->ordinal) + ": " + info.name + ")";
    return e;
  }
  StreamBuffer scratch(*device->runner, stream);
  if (auto f = scratch.allocate((*pipe)->scratchBytes, "the search's scratch (norms, partial lists)"); !f)
    return f;
  runner::Buffers addresses = {{"q", dev(q)}, {"db", dev(db)}, {"ids", dev(ids)}};
  if (dist)
    addresses["dist"] = dev(dist);
  return libcore::enqueue(*device, stream, **pipe, addresses, scratch.address());
}

} // namespace cake::knn
