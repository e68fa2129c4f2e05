//===- Logging.cpp - The commands' events in the failure log --------------===//
#include "cli/Logging.h"

#include "formats/FailureLog.h"

#include <algorithm>
#include <ctime>
#include <set>

namespace cake::cli {

void logOutcome(std::string_view command, const std::string &path, std::string_view ir,
                const std::vector<Diagnostic> &found, std::string stage) {
  if (path == "-")
    return;
  std::string log = formats::logPathFor(path);
  if (log.empty())
    return;
  formats::LogEvent e;
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  e.time = buf;
  e.command = std::string(command);
  e.file = path;
  e.irHash = formats::hashText(ir);
  std::set<std::string> errors, warnings;
  for (const Diagnostic &d : found)
    if (!d.code.empty())
      (d.severity == Severity::Error ? errors : warnings).insert(d.code);
  e.errors.assign(errors.begin(), errors.end());
  e.warnings.assign(warnings.begin(), warnings.end());
  e.ok = errors.empty();
  if (stage.empty())
    stage = std::any_of(errors.begin(), errors.end(), [](const std::string &c) { return c.starts_with("lower."); })
                ? "lower"
                : "static";
  e.stage = std::move(stage);
  // a failing IR is kept beside the log, for `cake evolve` to reduce
  if (!e.ok)
    (void)formats::keepIr(log, e.irHash, ir);
  (void)formats::appendEvent(log, e);
}

} // namespace cake::cli
