//===- Device.cpp - The GPU a call runs on --------------------------------===//
#include "lib/core/Device.h"

#include <cstdlib>

namespace cake::libcore {

Error fromRunner(const runner::Error &e, const std::string &what, const char *timeoutVariable) {
  if (e.noGpu())
    return Error(e.kind, runner::describeNoGpu(e));
  std::string message = what.empty() ? e.message : what + ": " + e.message;
  if (e.kind == Error::Timeout)
    message += std::string(" (") + (timeoutVariable ? std::string(timeoutVariable) + " sets the limit; " : "") +
               "the GPU's context is unusable from now on: start a new process)";
  return Error(e.kind, std::move(message));
}

double waitTimeoutSeconds(const char *variable) {
  if (const char *v = std::getenv(variable); v && *v) {
    char *end = nullptr;
    double s = std::strtod(v, &end);
    if (end && !*end && s > 0)
      return s;
  }
  return 600;
}

Status openDevice(std::initializer_list<Located> tensors, runner::Stream stream, const char *timeoutVariable,
                  Device *&out) {
  int ordinal = -1;
  std::string_view first;
  for (const Located &t : tensors) {
    auto at = runner::deviceOfAddress(runner::DevicePtr(reinterpret_cast<uintptr_t>(t.address)));
    if (!at) {
      if (at.error().kind == runner::Error::InvalidArgument)
        return invalid(std::string(t.name) + " " + at.error().message);
      return fromRunner(at.error(), "locating " + std::string(t.name));
    }
    if (ordinal < 0) {
      ordinal = *at, first = t.name;
    } else if (*at != ordinal) {
      return invalid(std::string(t.name) + " lies on GPU " + std::to_string(*at) + " but " + std::string(first) +
                     " on GPU " + std::to_string(ordinal) + "; every tensor of a call must be on one GPU");
    }
  }
  static std::mutex mutex;
  static auto *devices = new std::map<int, std::unique_ptr<Device>>; // never destroyed (see Device.h)
  Device *device = nullptr;
  {
    std::lock_guard lock(mutex);
    std::unique_ptr<Device> &slot = (*devices)[ordinal];
    if (!slot) {
      auto made = runner::makeGuestRunner(ordinal);
      if (!made)
        return fromRunner(made.error(), "opening GPU " + std::to_string(ordinal));
      slot = std::make_unique<Device>();
      slot->ordinal = ordinal;
      slot->runner = std::move(*made);
      slot->runner->setDefaultTimeout(waitTimeoutSeconds(timeoutVariable));
    }
    device = slot.get();
  }
  {
    std::lock_guard lock(device->mutex);
    if (auto s = device->runner->checkStream(stream); !s)
      return fromRunner(s.error(), "");
  }
  out = device;
  return Ok{};
}

Status loadModule(Device &device, const KernelFile &file, runner::ModuleId &out) {
  if (auto it = device.modules.find(file.embedded); it != device.modules.end()) {
    out = it->second;
    return Ok{};
  }
  auto m = device.runner->loadModule(file.embedded->cubin);
  if (!m)
    return fromRunner(m.error(), "loading the kernels of " + std::string(file.embedded->path) + " (built for " +
                                     std::string(file.embedded->target) + ") on GPU " +
                                     std::to_string(device.ordinal) + ", " + device.runner->device().name);
  device.modules[file.embedded] = *m;
  out = *m;
  return Ok{};
}

} // namespace cake::libcore
