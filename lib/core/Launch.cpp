//===- Launch.cpp - A library call's kernels, checked and launched --------===//
#include "lib/core/Launch.h"

#include <algorithm>

namespace cake::libcore {

namespace {

std::string typeString(sema::Elem elem, const std::vector<int64_t> &shape) {
  std::string s = std::string(sema::elemName(elem)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

} // namespace

const ScratchBuffer *Pipeline::findScratch(std::string_view name) const {
  for (const ScratchBuffer &s : scratch)
    if (s.name == name)
      return &s;
  return nullptr;
}

Status preparePipeline(const PipelineSpec &spec, std::vector<TensorSpec> tensors, Pipeline &out) {
  out = Pipeline{};
  out.name = spec.name;
  const EmbeddedFile *embedded = spec.embedded;
  const KernelFile &file = kernelFile(*embedded, *spec.manifest);
  if (!file.status)
    return file.status;
  out.file = &file;
  std::string where = std::string(embedded->path);
  if (!spec.zeroKernel.empty()) {
    if (const lower::LoweredKernel *z = file.module().kernel(spec.zeroKernel))
      out.kernels.push_back(z);
    else
      out.zeroFill = true;
  }
  out.repeatFrom = out.kernels.size() + spec.kernels.size();
  for (std::string_view name : spec.kernels) {
    const lower::LoweredKernel *k = file.module().kernel(name);
    if (!k)
      return internal(where + " has no kernel '" + std::string(name) + "', which variant '" + std::string(spec.name) +
                      "' launches");
    if (name == spec.repeat)
      out.repeatFrom = out.kernels.size();
    out.kernels.push_back(k);
  }
  if (!spec.repeat.empty() && out.repeatFrom == out.kernels.size())
    return internal("variant '" + std::string(spec.name) + "' repeats from '" + std::string(spec.repeat) +
                    "', which it does not launch");
  if (spec.passes < 1 || spec.passes > 4096)
    return internal("variant '" + std::string(spec.name) + "' would run " + std::to_string(spec.passes) + " passes");
  out.passes = spec.repeat.empty() ? 1 : spec.passes;
  out.sizes = spec.sizes;
  out.sizes["PASS"] = 0; // shapes do not depend on the pass: they are checked at the first
  out.tensors = std::move(tensors);

  std::string provided;
  for (const TensorSpec &t : out.tensors)
    provided += (provided.empty() ? "" : ", ") + t.name;
  for (std::string_view s : spec.scratch)
    provided += ", " + std::string(s) + " (scratch)";
  for (const lower::LoweredKernel *k : out.kernels)
    for (const sema::Param &param : k->kernel->params) {
      if (param.type.space != sema::Space::Global)
        continue;
      std::string in = "kernel '" + k->name + "' of " + where;
      auto shape = lower::paramShape(*k->kernel, param.name, out.sizes);
      sema::Elem elem = param.type.elem.value_or(sema::Elem::U8);
      if (!shape)
        return internal(in + ": the shape of '" + param.name + "' does not evaluate at the call's sizes");
      auto tensor = std::find_if(out.tensors.begin(), out.tensors.end(),
                                 [&](const TensorSpec &t) { return t.name == param.name; });
      if (tensor != out.tensors.end()) {
        if (tensor->elem != elem || tensor->shape != *shape)
          return unsupported("variant '" + std::string(spec.name) + "' cannot take this problem: " + in + " takes " +
                             param.name + " as " + typeString(elem, *shape) + ", the call passes " +
                             typeString(tensor->elem, tensor->shape) + " (the dispatch rules of " +
                             spec.manifest->path + " should not have chosen it)");
        continue;
      }
      if (std::find(spec.scratch.begin(), spec.scratch.end(), param.name) == spec.scratch.end())
        return internal(in + " takes '" + param.name + "', which the library does not provide (it provides " +
                        provided + ")");
      uint64_t bytes = sema::elemBytes(elem);
      for (int64_t d : *shape)
        bytes *= uint64_t(d);
      if (const ScratchBuffer *seen = out.findScratch(param.name)) {
        if (seen->elem != elem || seen->shape != *shape)
          return internal(in + " declares the scratch buffer '" + param.name + "' as " + typeString(elem, *shape) +
                          ", another kernel as " + typeString(seen->elem, seen->shape));
        continue;
      }
      out.scratch.push_back({param.name, elem, *shape, bytes, out.scratchBytes});
      out.scratchBytes += (bytes + 255) / 256 * 256;
    }
  return Ok{};
}

namespace {

/// What makes two calls' packed launches identical: the pipeline, its sizes,
/// the stream and every address the parameters hold.
std::vector<uint64_t> packKey(const Pipeline &pipe, runner::Stream stream, const runner::Buffers &buffers) {
  std::vector<uint64_t> key = {reinterpret_cast<uintptr_t>(pipe.file), reinterpret_cast<uintptr_t>(stream.handle)};
  for (const lower::LoweredKernel *k : pipe.kernels)
    key.push_back(reinterpret_cast<uintptr_t>(k));
  for (const auto &[name, value] : pipe.sizes)
    key.push_back(uint64_t(value));
  for (const auto &[name, address] : buffers)
    key.push_back(address);
  return key;
}

/// The packed launches of \p pipe at \p buffers: from the device's recent
/// calls, or planned and packed now (and remembered).
Status packedCall(Device &device, runner::Stream stream, const Pipeline &pipe, const runner::Buffers &buffers,
                  const PackedCall *&out) {
  std::vector<uint64_t> key = packKey(pipe, stream, buffers);
  for (auto it = device.packed.begin(); it != device.packed.end(); ++it)
    if (it->key == key) {
      device.packed.splice(device.packed.begin(), device.packed, it);
      out = &device.packed.front();
      return Ok{};
    }
  runner::Runner &gpu = *device.runner;
  PackedCall call;
  call.key = std::move(key);
  lower::Bindings sizes = pipe.sizes;
  auto pack = [&](const lower::LoweredKernel *k) -> Status {
    auto plan = runner::planLowered(*k, buffers, sizes, gpu.device().smCount);
    if (!plan)
      return unsupported("variant '" + std::string(pipe.name) + "' cannot run at these sizes: " +
                         plan.error().message);
    auto launch = runner::packLowered(gpu, *plan);
    if (!launch)
      return fromRunner(launch.error(), "kernel '" + k->name + "'");
    call.launches.push_back(std::move(*launch));
    return Ok{};
  };
  for (size_t i = 0; i < pipe.repeatFrom; ++i)
    if (Status s = pack(pipe.kernels[i]); !s)
      return s;
  for (int64_t pass = 0; pass < pipe.passes; ++pass) {
    sizes["PASS"] = pass;
    for (size_t i = pipe.repeatFrom; i < pipe.kernels.size(); ++i)
      if (Status s = pack(pipe.kernels[i]); !s)
        return s;
  }
  device.packed.push_front(std::move(call));
  if (device.packed.size() > Device::kPackedCalls)
    device.packed.pop_back();
  out = &device.packed.front();
  return Ok{};
}

} // namespace

Status enqueue(Device &device, runner::Stream stream, const Pipeline &pipe, const runner::Buffers &addresses,
               runner::DevicePtr scratch) {
  runner::Runner &gpu = *device.runner;
  runner::ModuleId module;
  if (auto f = loadModule(device, *pipe.file, module); !f)
    return f;
  runner::Buffers buffers = addresses;
  for (const ScratchBuffer &s : pipe.scratch)
    buffers[s.name] = scratch + s.offset;
  if (pipe.zeroFill && pipe.scratchBytes)
    if (auto s = gpu.fillOn(stream, scratch, 0, pipe.scratchBytes); !s)
      return fromRunner(s.error(), "zeroing the scratch of " + std::string(pipe.name));
  const PackedCall *call = nullptr;
  if (auto f = packedCall(device, stream, pipe, buffers, call); !f)
    return f;
  for (const runner::LoweredLaunch &l : call->launches) {
    // launchOn takes the parameters by reference (their pointers): a copy keeps the cached ones intact
    runner::KernelParams params = l.params;
    if (auto s = gpu.launchOn(stream, module, l.kernel->name, l.config, params); !s)
      return fromRunner(s.error(), "launching '" + l.kernel->name + "'");
  }
  return Ok{};
}

StreamBuffer::~StreamBuffer() {
  if (ptr_)
    (void)runner_.freeOn(stream_, ptr_); // a destructor cannot report; a failed free leaves nothing to undo
}

Status StreamBuffer::allocate(uint64_t bytes, const std::string &what) {
  if (!bytes)
    return Ok{};
  auto p = runner_.allocOn(stream_, bytes);
  if (!p)
    return fromRunner(p.error(), "allocating " + what);
  ptr_ = *p;
  return Ok{};
}

} // namespace cake::libcore
