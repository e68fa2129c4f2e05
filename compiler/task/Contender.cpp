//===- Contender.cpp - `.cake` and `.cu` contenders of a task --------------===//
#include "compiler/task/Contender.h"

#include "compiler/oracle/Tensor.h"
#include "compiler/runner/LaunchLowered.h"

#include <algorithm>
#include <set>

namespace cake::task {
namespace {

/// A cubin runs on its own architecture; elsewhere (sm_80 code on an H200)
/// the driver compiles the PTX.
Expected<std::string> imageFor(const runner::BuildResult &build, Target target, const runner::DeviceInfo &device) {
  std::string arch = "sm_" + std::to_string(device.major) + std::to_string(device.minor);
  bool native = std::string(targetName(target)).starts_with(arch);
  if (native && !build.cubin.empty())
    return build.cubin;
  if (build.ptx.empty())
    return Error(Error::InvalidArgument, "the build has no image for " + arch);
  return build.ptx;
}

class CakeContender : public Contender {
public:
  CakeContender(std::vector<const lower::LoweredKernel *> kernels, LaunchLine line, runner::BuildResult build,
                Target target, const Task *task)
      : kernels_(std::move(kernels)), line_(std::move(line)), build_(std::move(build)), target_(target), task_(task) {}

  std::string arm() const override { return "cake"; }
  Expected<std::string> image(const runner::DeviceInfo &device) override { return imageFor(build_, target_, device); }

  Expected<std::vector<oracle::TensorSpec>> scratch(const Sizes &taskSizes) override {
    auto derived = deriveSizes(line_, taskSizes);
    if (!derived)
      return derived.takeError();
    const Sizes &sizes = *derived;
    lower::Bindings b(sizes.begin(), sizes.end());
    std::vector<oracle::TensorSpec> out;
    std::set<std::string> seen;
    for (const lower::LoweredKernel *lk : kernels_)
      for (const sema::Param &p : lk->kernel->params) {
        if (p.type.space != sema::Space::Global || !seen.insert(p.name).second)
          continue;
        auto dtype = pipeline::tensorDType(p.type.elem.value_or(sema::Elem::U8));
        auto shape = lower::paramShape(*lk->kernel, p.name, b);
        if (!dtype || !shape)
          return Error(Error::InvalidArgument, "kernel '" + lk->name + "', parameter '" + p.name +
                                                   "': its element type or shape cannot be allocated at " +
                                                   sizesText(sizes));
        auto task = std::find_if(task_->workload.tensors.begin(), task_->workload.tensors.end(),
                                 [&](const oracle::TensorSpec &t) { return t.name == p.name; });
        if (task == task_->workload.tensors.end()) { // the pipeline's own intermediate
          oracle::TensorSpec s;
          s.name = p.name, s.dtype = *dtype, s.role = oracle::Role::Output;
          for (int64_t d : *shape)
            s.shape.push_back(std::to_string(d));
          out.push_back(std::move(s));
          continue;
        }
        auto want = oracle::resolveShape(*task, sizes);
        if (!want)
          return want.takeError();
        if (*dtype != task->dtype || *shape != *want)
          return Error(Error::InvalidArgument,
                       "kernel '" + lk->name + "', parameter '" + p.name + "' is " +
                           std::string(oracle::dtypeName(*dtype)) + " " + oracle::shapeString(*shape) +
                           " at " + sizesText(sizes) + "; the task's tensor '" + p.name + "' is " +
                           std::string(oracle::dtypeName(task->dtype)) + " " + oracle::shapeString(*want));
      }
    for (const oracle::TensorSpec &t : task_->workload.tensors)
      if (!seen.count(t.name))
        return Error(Error::InvalidArgument, "no kernel of the candidate takes the task's tensor '" + t.name + "'");
    return out;
  }

  Expected<std::vector<pipeline::GpuLaunch>> launches(runner::Runner &gpu, const runner::Buffers &buffers,
                                                      const Sizes &taskSizes) override {
    auto derived = deriveSizes(line_, taskSizes);
    if (!derived)
      return derived.takeError();
    lower::Bindings b(derived->begin(), derived->end());
    std::vector<pipeline::GpuLaunch> out;
    for (const lower::LoweredKernel *k : kernels_) {
      auto plan = runner::planLowered(*k, buffers, b, gpu.device().smCount);
      if (!plan)
        return plan.takeError();
      auto l = runner::packLowered(gpu, *plan);
      if (!l)
        return l.takeError();
      out.push_back({l->kernel->name, l->config, std::move(l->params)});
    }
    return out;
  }

private:
  std::vector<const lower::LoweredKernel *> kernels_;
  LaunchLine line_;
  runner::BuildResult build_;
  Target target_;
  const Task *task_;
};

class CudaContender : public Contender {
public:
  CudaContender(const Task &task, LaunchLine launch, runner::BuildResult build, Target target)
      : task_(task), launch_(std::move(launch)), build_(std::move(build)), target_(target) {
    // the symbol: the kernel's name, or the mangled entry whose demangled name is it (a C++ kernel)
    symbol_ = launch_.kernel;
    for (const runner::PtxasFunction &f : build_.report.functions)
      if (f.entry && (f.name == launch_.kernel || f.demangled.starts_with(launch_.kernel + "(")))
        symbol_ = f.name;
  }

  std::string arm() const override { return "cu"; }
  Expected<std::string> image(const runner::DeviceInfo &device) override { return imageFor(build_, target_, device); }
  Expected<std::vector<oracle::TensorSpec>> scratch(const Sizes &) override {
    return std::vector<oracle::TensorSpec>{};
  }

  Expected<std::vector<pipeline::GpuLaunch>> launches(runner::Runner &, const runner::Buffers &buffers,
                                                      const Sizes &taskSizes) override {
    auto derived = deriveSizes(launch_, taskSizes);
    if (!derived)
      return derived.takeError();
    const Sizes &sizes = *derived;
    auto dims = evalLaunch(launch_, sizes);
    if (!dims)
      return dims.takeError();
    pipeline::GpuLaunch l;
    l.kernel = symbol_;
    l.config.grid = {dims->grid[0], dims->grid[1], dims->grid[2]};
    l.config.block = {dims->block[0], dims->block[1], dims->block[2]};
    l.config.cluster = {dims->cluster[0], dims->cluster[1], dims->cluster[2]};
    l.config.dynamicShared = dims->smem;
    for (const std::string &p : task_.params) {
      if (auto b = buffers.find(p); b != buffers.end()) {
        l.params.add(b->second);
        continue;
      }
      int64_t v = sizes.at(p);
      if (v > INT32_MAX)
        return Error(Error::InvalidArgument, "size " + p + " = " + std::to_string(v) + " does not fit the int32 parameter");
      l.params.add(int32_t(v));
    }
    return std::vector<pipeline::GpuLaunch>{std::move(l)};
  }

private:
  const Task &task_;
  LaunchLine launch_;
  runner::BuildResult build_;
  Target target_;
  std::string symbol_;
};

} // namespace

std::unique_ptr<Contender> cakeContender(std::vector<const lower::LoweredKernel *> kernels, LaunchLine line,
                                         runner::BuildResult build, Target target, const Task &task) {
  return std::make_unique<CakeContender>(std::move(kernels), std::move(line), std::move(build), target, &task);
}

std::unique_ptr<Contender> cudaContender(const Task &task, LaunchLine launch, runner::BuildResult build, Target target) {
  return std::make_unique<CudaContender>(task, std::move(launch), std::move(build), target);
}

} // namespace cake::task
