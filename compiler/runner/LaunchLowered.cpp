//===- LaunchLowered.cpp - Launching a lowered kernel ---------------------===//
#include "compiler/runner/LaunchLowered.h"

namespace cake::runner {

namespace {

Swizzle swizzleOf(uint32_t bytes) {
  return bytes == 128 ? Swizzle::B128 : bytes == 64 ? Swizzle::B64 : bytes == 32 ? Swizzle::B32 : Swizzle::None;
}

} // namespace

std::optional<TensorDType> tensorMapDType(sema::Elem elem) {
  switch (elem) {
  case sema::Elem::BF16:
    return TensorDType::BF16;
  case sema::Elem::FP16:
    return TensorDType::F16;
  case sema::Elem::FP32:
    return TensorDType::F32;
  default:
    return std::nullopt;
  }
}

Expected<LaunchPlan> planLowered(const lower::LoweredKernel &lk, const Buffers &buffers, const lower::Bindings &sizes,
                                 int smCount) {
  std::string k = "kernel '" + lk.name + "': ";
  auto invalid = [](std::string message) { return Error(Error::InvalidArgument, std::move(message)); };
  LaunchPlan out;
  out.kernel = &lk;
  auto planned = lower::planLaunch(lk, sizes, smCount);
  if (!planned)
    return invalid(k + planned.error().message);
  const lower::LaunchDims &dims = *planned;
  auto buffer = [&](const std::string &name) -> std::optional<DevicePtr> {
    if (auto it = buffers.find(name); it != buffers.end())
      return it->second;
    return std::nullopt;
  };
  for (const lower::KernelArg &a : lk.args) {
    PlannedArg p;
    p.kind = a.kind;
    p.name = a.name;
    switch (a.kind) {
    case lower::KernelArg::TensorMap: {
      const lower::TensorMapPlan &plan = lk.maps[a.map];
      p.name = plan.param;
      auto address = buffer(plan.param);
      if (!address)
        return invalid(k + "no buffer was given for '" + plan.param + "' (a tensor map)");
      const sema::Param *param = lk.kernel->param(plan.param);
      auto shape = lower::paramShape(*lk.kernel, plan.param, sizes);
      auto dtype = param && param->type.elem ? tensorMapDType(*param->type.elem) : std::nullopt;
      if (!param || !shape || !dtype)
        return invalid(k + "cannot describe the tensor map of '" + plan.param + "' at these sizes");
      if (shape->size() < 1 || shape->size() > 5 || plan.box.size() != shape->size())
        return invalid(k + "the tensor map of '" + plan.param + "' has rank " + std::to_string(shape->size()) +
               " and a box of rank " + std::to_string(plan.box.size()));
      TensorMapDesc &d = p.map;
      d.dtype = *dtype;
      d.rank = uint32_t(shape->size());
      d.address = *address;
      for (uint32_t i = 0; i < d.rank; ++i) { // the driver takes the innermost dimension first
        d.dims[i] = uint64_t((*shape)[d.rank - 1 - i]);
        d.box[i] = plan.box[d.rank - 1 - i];
      }
      d.setPackedStrides();
      d.swizzle = swizzleOf(plan.swizzle);
      break;
    }
    case lower::KernelArg::Pointer: {
      auto address = buffer(a.name);
      if (!address)
        return invalid(k + "no buffer was given for '" + a.name + "'");
      p.pointer = *address;
      break;
    }
    case lower::KernelArg::Size: {
      auto it = sizes.find(a.name);
      if (it == sizes.end())
        return invalid(k + "size '" + a.name + "' is not bound");
      p.size = int32_t(it->second); // planLaunch checked 1 .. 2^31 - 1
      break;
    }
    case lower::KernelArg::Scalar: {
      // a `param` scalar: bound like a size, by name, but any value of its type (0 and negative ones too)
      const sema::Param *param = lk.kernel->param(a.name);
      const sema::Elem elem = param && param->type.elem ? *param->type.elem : sema::Elem::U8;
      if (elem != sema::Elem::I32 && elem != sema::Elem::U32)
        return invalid(k + "scalar parameter '" + a.name + "' is " + std::string(sema::elemName(elem)) +
                       "; launches bind i32 and u32 scalars only");
      auto it = sizes.find(a.name);
      if (it == sizes.end())
        return invalid(k + "scalar parameter '" + a.name + "' is not bound");
      const int64_t lo = elem == sema::Elem::I32 ? INT32_MIN : 0, hi = elem == sema::Elem::I32 ? INT32_MAX : UINT32_MAX;
      if (it->second < lo || it->second > hi)
        return invalid(k + "scalar parameter " + a.name + " = " + std::to_string(it->second) + " is outside its type " +
                       std::string(sema::elemName(elem)));
      p.size = int32_t(uint32_t(it->second)); // the argument's four bytes
      break;
    }
    case lower::KernelArg::HangRecord:
      out.needsHangRecord = true;
      break;
    }
    out.args.push_back(std::move(p));
  }
  out.config.grid = Dim3{dims.grid[0], dims.grid[1], dims.grid[2]};
  out.config.block = Dim3{lk.block, 1, 1};
  out.config.cluster = Dim3{dims.cluster[0], dims.cluster[1], dims.cluster[2]};
  out.config.dynamicShared = lk.dynamicShared;
  const TargetDesc &desc = *lk.kernel->desc;
  if (out.config.grid.x > desc.maxGridX || out.config.grid.y > desc.maxGridYZ || out.config.grid.z > desc.maxGridYZ)
    return invalid(k + "the grid " + std::to_string(out.config.grid.x) + "x" + std::to_string(out.config.grid.y) + "x" +
           std::to_string(out.config.grid.z) + " is past the limits " + std::to_string(desc.maxGridX) + " x " +
                   std::to_string(desc.maxGridYZ) + " x " + std::to_string(desc.maxGridYZ));
  return out;
}

Expected<LoweredLaunch> packLowered(Runner &runner, const LaunchPlan &plan, DevicePtr hangRecord) {
  LoweredLaunch l;
  l.kernel = plan.kernel;
  l.config = plan.config;
  for (const PlannedArg &a : plan.args) {
    switch (a.kind) {
    case lower::KernelArg::TensorMap: {
      auto map = runner.encodeTensorMap(a.map);
      if (!map)
        return map.error();
      l.params.add(*map);
      break;
    }
    case lower::KernelArg::Pointer:
      l.params.add(a.pointer);
      break;
    case lower::KernelArg::Size:
    case lower::KernelArg::Scalar:
      l.params.add(a.size);
      break;
    case lower::KernelArg::HangRecord:
      if (!hangRecord)
        return Error{Error::InvalidArgument,
                     "kernel '" + plan.kernel->name + "' was lowered with bounded waits and needs a hang record"};
      l.params.add(hangRecord);
      break;
    }
  }
  return l;
}

} // namespace cake::runner
