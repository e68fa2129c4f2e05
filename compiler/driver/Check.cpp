//===- Check.cpp - The one path from source to diagnostics ----------------===//
#include "compiler/driver/Check.h"

#include "compiler/syntax/Parser.h"

namespace cake {

std::optional<Target> parseTarget(std::string_view name) {
  if (name == "sm_80")
    return Target::SM80;
  if (name == "sm_90a")
    return Target::SM90a;
  if (name == "sm_100a")
    return Target::SM100a;
  return std::nullopt;
}

std::string_view targetName(Target target) {
  switch (target) {
  case Target::SM80:
    return "sm_80";
  case Target::SM90a:
    return "sm_90a";
  case Target::SM100a:
    return "sm_100a";
  }
  return "sm_90a";
}

CheckResult checkSource(const SourceManager &sm, FileId file, const CheckOptions &options) {
  CheckResult result;
  result.module = syntax::parse(sm, file, result.diagnostics);
  sortDiagnostics(result.diagnostics);
  return result;
}

} // namespace cake
