//===- Lowering.cpp - From a .cake file to CUDA ---------------------------===//
#include "cli/Lowering.h"

#include <cstdlib>

namespace cake::cli {

std::unique_ptr<LoweredFile> lowerCakeFile(SourceManager &sm, FileId file, const lower::LowerOptions &options,
                                           bool verify, std::optional<Target> target) {
  auto out = std::make_unique<LoweredFile>();
  CheckOptions check;
  check.target = target;
  check.verify = verify;
  out->check = checkSource(sm, file, check);
  out->diagnostics = out->check.diagnostics;
  if (countErrors(out->diagnostics) || !out->check.model)
    return out;
  std::vector<Diagnostic> lowering;
  out->module = lower::lowerModule(sm, file, *out->check.model, lowering, options);
  for (Diagnostic &d : lowering)
    out->diagnostics.push_back(std::move(d));
  sortDiagnostics(out->diagnostics);
  if (countErrors(out->diagnostics))
    return out;
  out->cuda = sm.addBuffer(sm.name(file) + ".cu", out->module.source);
  out->ok = true;
  return out;
}

std::string runtimeIncludeDir() {
  if (const char *dir = std::getenv("CAKE_RUNTIME_DIR"); dir && *dir)
    return dir;
  return CAKE_RUNTIME_DIR;
}

void lowerForCheck(const SourceManager &sm, FileId file, const sema::Module &model,
                   std::vector<Diagnostic> &diagnostics) {
  lower::lowerModule(sm, file, model, diagnostics);
}

} // namespace cake::cli
