//===- KernelFiles.cpp - Launch plans of the embedded kernels -------------===//
#include "lib/core/KernelFiles.h"

#include <map>
#include <memory>
#include <mutex>

namespace cake::libcore {

namespace {

void lowerInto(KernelFile &f, const library::Manifest &manifest) {
  const EmbeddedFile &e = *f.embedded;
  if (e.cubin.empty()) {
    std::string log(e.log.substr(0, 2000));
    while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
      log.pop_back();
    f.status = notAvailable(std::string(e.path) + " did not build when the library was built" +
                                                       (log.empty() ? std::string() : ": " + log));
    return;
  }
  auto target = parseTarget(e.target);
  if (!target) {
    f.status = internal(std::string(e.path) + " was built for the unknown target '" + std::string(e.target) + "'");
    return;
  }
  FileId id = f.sm.addBuffer(std::string(e.path), std::string(e.ir));
  // the verifier's rules ran when the library was built
  CheckOptions check;
  check.target = *target;
  check.verify = false;
  if (const library::Instance *inst = manifest.instance(e.name))
    check.instantiations.push_back(inst->instantiation()); // the parameters it was built with
  auto lowered = pipeline::lowerFile(f.sm, id, lower::LowerOptions{}, check);
  if (lowered) {
    f.lowered = std::move(*lowered);
    return;
  }
  for (const Diagnostic &d : lowered.error().diagnostics)
    if (d.severity == Severity::Error) {
      std::string where = d.range.valid() ? " at line " + std::to_string(f.sm.lineColumn(d.range.file, d.range.begin).line)
                                          : std::string();
      f.status = internal("the embedded " + std::string(e.path) + " does not lower again (" + d.code + where + ": " +
                          d.message + ")");
      return;
    }
  f.status = internal("the embedded " + std::string(e.path) + " does not lower again: " + lowered.error().message);
}

} // namespace

const KernelFile &kernelFile(const EmbeddedFile &file, const library::Manifest &manifest) {
  static std::mutex mutex;
  static auto *files = new std::map<const EmbeddedFile *, std::unique_ptr<KernelFile>>; // never destroyed
  std::lock_guard lock(mutex);
  std::unique_ptr<KernelFile> &slot = (*files)[&file];
  if (!slot) {
    slot = std::make_unique<KernelFile>();
    slot->embedded = &file;
    lowerInto(*slot, manifest);
  }
  return *slot;
}

} // namespace cake::libcore
