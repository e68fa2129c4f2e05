//===- Cost.cpp - The cost model in the editor ------------------------------===//
#include "lsp/features/Cost.h"

#include "formats/CostSupport.h"
#include "formats/Input.h"

#include <atomic>
#include <cstdio>
#include <filesystem>

namespace cake::lsp {
namespace {

std::atomic<WorkloadReader> workloadReader{nullptr};

/// Sizes from a `*.workload.json` beside \p path for kernel \p k.
std::optional<std::pair<cost::Sizes, std::string>> workloadSizes(const std::string &path, const sema::Kernel &k) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty() || !std::filesystem::is_directory(dir, ec))
    return std::nullopt;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    // Only regular files: a FIFO named *.workload.json would block the server
    // forever on the read (issue #16).
    if (!name.ends_with(".workload.json") || !entry.is_regular_file(ec))
      continue;
    std::string text;
    WorkloadReader read = workloadReader.load();
    if (!read || !formats::readInput(entry.path().string(), text))
      continue;
    std::optional<WorkloadFile> doc = read(text);
    if (!doc || (doc->kernel && *doc->kernel != k.decl->name.name))
      continue;
    const cost::Sizes &sizes = doc->sizes;
    bool complete = true;
    for (const std::string &s : k.sizeSymbols)
      complete &= sizes.count(s) > 0;
    if (complete)
      return std::pair(sizes, "sizes of " + name);
  }
  return std::nullopt;
}

} // namespace

void setWorkloadReader(WorkloadReader reader) { workloadReader.store(reader); }

std::pair<cost::Sizes, std::string> estimateSizes(const std::string &path, const sema::Kernel &k) {
  if (auto found = workloadSizes(path, k))
    return *found;
  cost::Sizes sizes;
  for (const std::string &s : k.sizeSymbols)
    sizes[s] = 4096;
  return {sizes, k.sizeSymbols.empty() ? "no size symbols" : "representative sizes: every size symbol = 4096"};
}

KernelCost kernelCost(const Analysis &a, const sema::Kernel &k) {
  KernelCost out;
  std::tie(out.sizes, out.sizesNote) = estimateSizes(a.sm.name(a.file), k);
  cost::Calibration cal = formats::calibrationFor(k.target, std::nullopt, out.calibrationNote);
  out.estimate = cost::estimate(k, out.sizes, cal);
  return out;
}

std::string formatSeconds(double s) {
  char buffer[32];
  if (s >= 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.3f ms", s * 1e3);
  else if (s >= 1e-6)
    std::snprintf(buffer, sizeof buffer, "%.2f us", s * 1e6);
  else
    std::snprintf(buffer, sizeof buffer, "%.0f ns", s * 1e9);
  return buffer;
}

std::string formatSizes(const cost::Sizes &sizes) {
  std::string s;
  for (auto &[k, v] : sizes)
    s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

} // namespace cake::lsp
