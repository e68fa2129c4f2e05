//===- LogCommand.cpp - `cake log` ----------------------------------------===//
//
// Lists the project's failure log (formats/FailureLog.h), newest last, with
// filters, or sums it up by rule code: how often each failed, in how many
// files, how often the next change fixed it. The log of the project holding
// the working directory unless --log names one.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "formats/FailureLog.h"

#include <algorithm>
#include <cxxopts.hpp>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace cake::cli {

int runLog(int argc, char **argv) {
  cxxopts::Options o("cake log", "List the project's failure log (.cake/log.jsonl: every check's, build's and run's outcome), or sum it "
                                 "up by rule code.\nUsage:\n  cake log [OPTION...]");
  o.add_options()("log", "The log file (default: the project's, from the working directory)",
                  cxxopts::value<std::string>())("code", "Only events that found this code",
                                                 cxxopts::value<std::string>())(
      "file", "Only events of this file (as given to the command)", cxxopts::value<std::string>())(
      "failed", "Only events that failed")("last", "Only the last N events", cxxopts::value<size_t>())(
      "summary", "Per code: failures, files, fixed by the next change")(
      "format", "Output format: text or json", cxxopts::value<std::string>()->default_value("text"))("h,help",
                                                                                                  "Show this help");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json")
    return reportFailure("cake log", "unknown format '" + format + "' (expected text or json)", UsageError);
  std::string path = args.count("log") ? args["log"].as<std::string>() : logPathFor("-");
  if (path.empty())
    return reportFailure("cake log", "the failure log is off (CAKE_LOG=0)", UsageError);
  size_t skipped = 0;
  auto events = readLog(path, &skipped);
  if (!events)
    return reportFailure("cake log", events.error().message, UsageError);
  std::vector<bool> fixed = fixedByNext(*events);
  std::vector<size_t> shown;
  for (size_t i = 0; i < events->size(); ++i) {
    const LogEvent &e = (*events)[i];
    if (args.count("code") && std::find(e.errors.begin(), e.errors.end(), args["code"].as<std::string>()) ==
                                  e.errors.end() &&
        std::find(e.warnings.begin(), e.warnings.end(), args["code"].as<std::string>()) == e.warnings.end())
      continue;
    if (args.count("file") && e.file != args["file"].as<std::string>())
      continue;
    if (args.count("failed") && e.ok)
      continue;
    shown.push_back(i);
  }
  if (args.count("last") && shown.size() > args["last"].as<size_t>())
    shown.erase(shown.begin(), shown.end() - std::ptrdiff_t(args["last"].as<size_t>()));

  if (args.count("summary")) {
    struct Sum {
      size_t failures = 0, fixed = 0;
      std::set<std::string> files;
    };
    std::map<std::string, Sum> by;
    for (size_t i : shown)
      for (const std::string &c : (*events)[i].errors) {
        Sum &s = by[c];
        ++s.failures;
        s.fixed += fixed[i];
        s.files.insert((*events)[i].file);
      }
    std::vector<std::pair<std::string, Sum>> rows(by.begin(), by.end());
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
      return a.second.failures != b.second.failures ? a.second.failures > b.second.failures : a.first < b.first;
    });
    if (format == "json") {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const auto &[code, s] : rows)
        j.push_back({{"code", code}, {"failures", s.failures}, {"files", s.files.size()}, {"fixed", s.fixed}});
      std::cout << j.dump(1) << "\n";
    } else {
      for (const auto &[code, s] : rows)
        std::cout << code << "\t" << s.failures << " failures\t" << s.files.size() << " files\t" << s.fixed
                  << " fixed by the next change\n";
      std::cout << shown.size() << " events, " << rows.size() << " codes (" << path << ")\n";
    }
    return Success;
  }
  if (format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (size_t i : shown) {
      const LogEvent &e = (*events)[i];
      j.push_back({{"time", e.time},
                   {"command", e.command},
                   {"stage", e.stage},
                   {"file", e.file},
                   {"ir", e.irHash},
                   {"errors", e.errors},
                   {"warnings", e.warnings},
                   {"ok", e.ok},
                   {"fixed_by_next", bool(fixed[i])}});
      if (!e.kernel.empty())
        j.back()["kernel"] = e.kernel;
      if (!e.instance.empty())
        j.back()["instance"] = e.instance;
      if (!e.sizes.empty())
        j.back()["sizes"] = e.sizes;
      if (e.ms)
        j.back()["ms"] = *e.ms;
      if (!e.device.empty())
        j.back()["device"] = e.device;
      if (!e.args.empty())
        j.back()["args"] = e.args;
      if (!e.cwd.empty())
        j.back()["cwd"] = e.cwd;
    }
    std::cout << j.dump(1) << "\n";
    return Success;
  }
  for (size_t i : shown) {
    const LogEvent &e = (*events)[i];
    std::string codes;
    for (const std::string &c : e.errors)
      codes += (codes.empty() ? "" : ",") + c;
    // a run: its kernel (instantiation) and sizes, and its time when it passed
    std::string ran;
    if (!e.kernel.empty()) {
      ran = "  " + e.kernel + (e.instance.empty() ? "" : " (" + e.instance + ")");
      std::string sizes;
      for (const auto &[name, value] : e.sizes)
        sizes += (sizes.empty() ? "" : ",") + name + "=" + std::to_string(value);
      if (!sizes.empty())
        ran += " at " + sizes;
    }
    std::string outcome = e.ok ? "ok" : e.stage + " " + codes;
    if (e.ok && e.ms) {
      std::ostringstream ms;
      ms << std::setprecision(4) << *e.ms;
      outcome += " " + ms.str() + " ms";
    }
    std::cout << e.time << "  " << e.command << "  " << e.file << "  " << e.irHash.substr(0, 8) << ran << "  "
              << outcome << (fixed[i] ? "  (fixed by the next change)" : "") << "\n";
  }
  if (skipped)
    std::cout << skipped << " lines of the log are not events (skipped)\n";
  return Success;
}

} // namespace cake::cli
