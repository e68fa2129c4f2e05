//===- Device.h - The GPU a call runs on ------------------------*- C++ -*-===//
//
// Part of CAKE. The library reaches the GPU only through the runner
// (architecture invariant 9): one guest runner (runner::makeGuestRunner) per
// GPU, on its primary context, made on first use and kept until the process
// ends (a library must not call the driver from static destructors, after
// the CUDA runtime may have torn the context down). The GPU of a call is the
// one its first tensor lies on; every other tensor must lie there too, and
// the stream must belong to that GPU's primary context. The modules
// (embedded cubins) are loaded once per GPU.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/runner/LaunchLowered.h"
#include "compiler/runner/Runner.h"
#include "lib/core/Errors.h"
#include "lib/core/KernelFiles.h"

#include <initializer_list>
#include <list>
#include <vector>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

namespace cake::libcore {

/// Launches packed for one (pipeline, addresses, sizes, stream): what a
/// repeated call (a Lloyd loop, a timing loop) reuses instead of planning the
/// kernels and encoding their tensor maps again.
struct PackedCall {
  std::vector<uint64_t> key;
  std::vector<runner::LoweredLaunch> launches;
};

struct Device {
  int ordinal = 0;
  /// The most recent packed calls, newest first (at most kPackedCalls).
  std::list<PackedCall> packed;
  static constexpr size_t kPackedCalls = 32;
  /// Held for a whole call: the runner is not thread safe, and a call's
  /// steps (scratch, launches, fit's read-backs) belong together.
  std::mutex mutex;
  std::unique_ptr<runner::Runner> runner;
  std::map<const EmbeddedFile *, runner::ModuleId> modules;
};

/// A tensor of a call, for locating it.
struct Located {
  std::string_view name;
  const void *address = nullptr;
};

/// The GPU holding \p tensors (all of them), with its runner; checks
/// \p stream against it. A runner made now waits at most
/// waitTimeoutSeconds(\p timeoutVariable) for a stream. Locks nothing; lock
/// Device::mutex before using it.
Status openDevice(std::initializer_list<Located> tensors, runner::Stream stream, const char *timeoutVariable,
                  Device *&out);

/// \p file's cubin loaded on \p device (once). Call with the device locked.
Status loadModule(Device &device, const KernelFile &file, runner::ModuleId &out);

/// A runner error as a failure of the C API: no GPU, a driver error, a
/// timeout; \p what says what the library was doing. A timeout's message
/// names \p timeoutVariable, which sets the limit, when given.
Error fromRunner(const runner::Error &error, const std::string &what, const char *timeoutVariable = nullptr);

/// How long a library waits for a stream (KMeans fit's read-backs): the
/// environment variable \p variable (CAKE_KMEANS_TIMEOUT_S), else 600 s.
double waitTimeoutSeconds(const char *variable);

} // namespace cake::libcore
