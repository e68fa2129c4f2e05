//===- Sweep.h - Items of a sweep handed out to the GPUs of a host -*- C++ -*-===//
//
// Part of CAKE (issue #23). `cake bench --gpus` runs a plan's items (kernel x
// shape, each a `cake run` child) on several GPUs at once: one worker thread per
// GPU takes the next item as soon as it is free (items differ in cost by orders
// of magnitude, so a static split would wait on the slowest GPU). An item whose
// run hung or crashed (a GPU fault, not the kernel's failed check) is tried
// again on a GPU it has not run on; a GPU with two such faults in a row gets no
// more items. The results come back in the items' order, whatever order they
// finished in, so a sweep's file is a one-GPU sweep's plus where each item ran.
// The run function is the caller's: the workers know nothing of `cake run`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/runner/Process.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cake::cli {

/// What one attempt of an item came to: its result (an object), and whether it failed through the GPU (a hang,
/// a crash: worth trying elsewhere) rather than through the kernel or the input (the same anywhere).
struct SweepAttempt {
  nlohmann::ordered_json result;
  bool gpuFault = false;
};

struct SweepOutcome {
  /// Per item, its last attempt's result with "gpu" (where it ran), "gpu_fault": true when it failed through the
  /// GPUs (every try a hang or crash, or no GPU left to run it), and, when it ran more than once, "attempts"
  /// ({gpu, error} of each failed one before).
  std::vector<nlohmann::ordered_json> results;
  /// Per GPU: {"gpu", "items" (attempts run there), "faults", "retired" (why it got no more items, or absent)}.
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
};

/// The GPUs a --gpus option names: a count N (GPUs 0 .. N-1) or a comma-separated list of CUDA_VISIBLE_DEVICES
/// values (0,2,3 or GPU UUIDs); nullopt with \p error when it names none, one twice, or more than 1024.
std::optional<std::vector<std::string>> parseGpus(const std::string &text, std::string &error);

/// \p argv run on GPU \p gpu of the host: `env CUDA_VISIBLE_DEVICES=GPU ARGV...` (the child sees only it), or
/// \p argv as it is for "" (the one GPU the environment gives).
std::vector<std::string> onGpu(std::vector<std::string> argv, const std::string &gpu);

/// Whether a `cake run` child on GPU \p gpu failed through the GPU, not the kernel or the input: its launch ran
/// past --timeout (exit 3), it was killed at the wall-clock limit or by a signal, or its report's \p status is
/// no-gpu for a GPU of --gpus (a wrong id, a GPU fallen off the bus).
bool gpuFault(const runner::ProcessResult &child, const std::string &status, const std::string &gpu);

/// A --shard I/N option: shard \p index of \p count (0 <= I < N <= 100000); false with \p error otherwise.
bool parseShard(const std::string &text, int64_t &index, int64_t &count, std::string &error);

/// Runs items 0 .. \p count - 1 with \p run (item, gpu) on the \p gpus, one worker thread each; an item whose
/// attempt was a GPU fault is tried again on another GPU, at most \p retries more times. \p done is called (from
/// the worker, one at a time) with each item's final result.
SweepOutcome runSweep(size_t count, const std::vector<std::string> &gpus, int retries,
                      const std::function<SweepAttempt(size_t item, const std::string &gpu)> &run,
                      const std::function<void(size_t item, const nlohmann::ordered_json &result)> &done = {});

} // namespace cake::cli
