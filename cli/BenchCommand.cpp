//===- BenchCommand.cpp - `cake bench` ------------------------------------===//
//
// Drives a plan of runs (kernels x shapes) through `cake run --format json`,
// one child process per run (each with its own watchdog, so a hang or a crash
// costs one entry, not the sweep), and writes one results file: the format
// that `cake cost --validate` and `cake calibrate` read. With --peers, each
// run is put beside the peers measured at its shape (BenchPeers.h).
//
// Plan:
//   {"runs": [{"file": "kernels/gemm/gemm_sm90_ws.cake",
//              "workload": "kernels/gemm/gemm.workload.json",
//              "family": "gemm_sm90", "problem": "gemm",
//              "shapes": [{"M": 4096, "N": 4096, "K": 4096}, ...],
//              "constants": {"D": 128},   (optional: for matching peers)
//              "reps": 50, "warmup": 10, "check": true}]}
// Results:
//   {"version": 1, "device": ..., "commit": ..., "date": ...,
//    "runs": [{"file", "kernel", "family", "problem", "sizes", "median_ms",
//              "p10_ms", "p90_ms", "min_ms", "tflops", "gbps", "ok"}, ...]}
//
//===----------------------------------------------------------------------===//
#include "cli/BenchPeers.h"
#include "cli/Commands.h"
#include "formats/Input.h"
#include "cli/Options.h"
#include "compiler/runner/Process.h"

#include <ctime>
#include <sstream>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

namespace cake::cli {
namespace {

using json = nlohmann::ordered_json;

int fail(const std::string &message, int code) {
  return reportFailure("cake bench", message, code);
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

/// One run of the plan: `cake run` in a child, its report condensed.
json runOne(const std::string &cake, const json &entry, const json &shape, std::string &device) {
  std::vector<std::string> argv = {cake, "run", entry.at("file").get<std::string>(), "--format", "json"};
  if (entry.contains("workload"))
    argv.insert(argv.end(), {"--workload", entry["workload"].get<std::string>()});
  // a manifest's instantiation of a file with parameters (its workload unless the entry names one)
  if (entry.contains("instance"))
    argv.insert(argv.end(), {"--instance", entry["instance"].get<std::string>()});
  if (entry.contains("kernel"))
    argv.insert(argv.end(), {"--kernel", entry["kernel"].get<std::string>()});
  for (auto &[name, v] : shape.items())
    argv.insert(argv.end(), {"--size", name + "=" + std::to_string(v.get<int64_t>())});
  argv.insert(argv.end(), {"--reps", std::to_string(entry.value("reps", 50)), "--warmup",
                           std::to_string(entry.value("warmup", 10))});
  if (!entry.value("check", true))
    argv.push_back("--no-check");
  // The child's result comes back through --report, never through its stdout.
  char dir[] = "/tmp/cake-bench-XXXXXX";
  json report;
  runner::ProcessResult r;
  if (mkdtemp(dir)) {
    std::string reportFile = std::string(dir) + "/report.json";
    argv.insert(argv.end(), {"--report", reportFile});
    r = runner::runProcess(argv, 600);
    std::ifstream f(reportFile);
    std::stringstream text;
    text << f.rdbuf();
    report = json::parse(text.str(), nullptr, false);
    std::filesystem::remove_all(dir);
  }
  json out = {{"file", entry["file"]},
              {"family", entry.value("family", "")},
              {"problem", entry.value("problem", entry.value("family", ""))},
              {"sizes", shape}};
  if (entry.contains("instance"))
    out["instance"] = entry["instance"];
  if (entry.contains("constants"))
    out["constants"] = entry["constants"];
  if (r.exitCode != 0 || report.is_discarded() || !report.is_object() || !report.value("ok", false)) {
    out["ok"] = false;
    out["error"] = r.timedOut ? std::string("timed out")
                   : report.is_object() && report.contains("message") ? report["message"].get<std::string>()
                   : !r.started ? std::string("cannot start ") + cake
                                : "no report (exit " + std::to_string(r.exitCode) + ")";
    if (report.is_object() && report.contains("status"))
      out["status"] = report["status"];
    out["exit_code"] = r.exitCode;
    return out;
  }
  device = report.value("device", device);
  const json &t = report["time_ms"];
  out["kernel"] = report["kernel"];
  out["median_ms"] = t["median"];
  if (report.contains("pipeline")) {
    // a workload's kernels run in sequence: the named kernel's own time is
    // what a model of that kernel predicts; the whole pipeline's is kept too
    out["pipeline_ms"] = t["median"];
    out["median_ms"] = report["pipeline"].back()["median_ms"];
  }
  out["p10_ms"] = t["p10"];
  out["p90_ms"] = t["p90"];
  out["min_ms"] = t["min"];
  if (report.contains("tflops"))
    out["tflops"] = report["tflops"];
  out["gbps"] = report["gbps"];
  out["bytes"] = report["gbps"].get<double>() * t["median"].get<double>() * 1e6;
  if (report.contains("tflops"))
    out["flops"] = report["tflops"].get<double>() * t["median"].get<double>() * 1e9;
  out["fraction_of_floor"] = report["fraction_of_floor"];
  // the report's ok covers the check; a run that was not checked says so (invariant 15)
  out["ok"] = true;
  out["checked"] = report.value("checked", false);
  return out;
}

/// Why \p plan cannot be run ("" when it can), naming the place: the whole
/// plan is checked before the first run (issue #16: a bad second shape
/// stopped the sweep after the first run had finished, and nothing was
/// written).
std::string planError(const json &plan) {
  const json &runs = plan["runs"];
  for (size_t i = 0; i < runs.size(); ++i) {
    const json &e = runs[i];
    std::string at = "runs[" + std::to_string(i) + "]";
    if (!e.is_object())
      return at + " must be an object";
    if (!e.contains("file") || !e["file"].is_string())
      return at + ".file must be a string (the kernel's file)";
    for (const char *key : {"workload", "instance", "kernel", "family", "problem"})
      if (e.contains(key) && !e[key].is_string())
        return at + "." + key + " must be a string";
    // reps 0 timed nothing and reported a median of no samples
    for (auto [key, least] : {std::pair<const char *, int64_t>{"reps", 1}, {"warmup", 0}})
      if (e.contains(key) && (!e[key].is_number_integer() || (e[key].is_number_unsigned() &&
                                                              e[key].get<uint64_t>() > 1000000) ||
                              e[key].get<int64_t>() < least || e[key].get<int64_t>() > 1000000))
        return at + "." + key + " must be an integer from " + std::to_string(least) + " to 1000000";
    if (e.contains("check") && !e["check"].is_boolean())
      return at + ".check must be true or false";
    if (e.contains("constants") && !e["constants"].is_object())
      return at + ".constants must be an object";
    if (!e.contains("shapes") || !e["shapes"].is_array() || e["shapes"].empty())
      return at + ".shapes must be a non-empty array of {\"SIZE\": integer} objects";
    for (size_t j = 0; j < e["shapes"].size(); ++j) {
      const json &shape = e["shapes"][j];
      std::string sat = at + ".shapes[" + std::to_string(j) + "]";
      if (!shape.is_object())
        return sat + " must be an object of sizes";
      // each size becomes `--size NAME=VALUE`: a name with '=' or none, a
      // zero size or one past int64 (read back negative) was run as something else
      for (auto &[name, v] : shape.items()) {
        if (name.empty() || name.find_first_of("= \t\n") != std::string::npos)
          return sat + " has the size name '" + name + "', which is not a size symbol";
        if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) ||
            v.get<int64_t>() < 1)
          return sat + "." + name + " must be a positive integer, not " + v.dump();
      }
    }
  }
  return "";
}

} // namespace

int runBench(int argc, char **argv) {
  cxxopts::Options o("cake bench", "Run a plan of kernels and shapes on the GPU (each through `cake run`, checked\n"
                                   "against its oracle, then timed) and write the results file that `cake cost\n"
                                   "--validate` and `cake calibrate` read.");
  o.add_options()("o,output", "The results file", cxxopts::value<std::string>())(
      "commit", "The commit to record", cxxopts::value<std::string>()->default_value(""))(
      "peers", "Peers' times at the plan's shapes (JSON rows, e.g. from bench/kmeans/peers_assign.py): each run "
               "gets them, the faster one and its speedup over it",
      cxxopts::value<std::string>())(
      "h,help", "Show this help")("plan", "The plan (JSON)", cxxopts::value<std::string>());
  o.parse_positional({"plan"});
  o.positional_help("PLAN.json");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("plan") || !args.count("output"))
    return fail("usage: cake bench PLAN.json -o RESULTS.json", UsageError);
  std::string text;
  if (auto error = readJsonInput(args["plan"].as<std::string>(), text); !error)
    return fail(error.error().message, UsageError);
  json plan = json::parse(text, nullptr, false);
  if (plan.is_discarded() || !plan.contains("runs") || !plan["runs"].is_array())
    return fail("the plan must be a JSON object with a \"runs\" array", UsageError);
  // the peers file is read first: a bad one costs no GPU time
  std::optional<json> peers;
  if (args.count("peers")) {
    std::string peersText;
    if (auto error = readJsonInput(args["peers"].as<std::string>(), peersText); !error)
      return fail(error.error().message, UsageError);
    peers = json::parse(peersText, nullptr, false);
    if (std::string error = checkPeers(*peers); !error.empty())
      return fail(args["peers"].as<std::string>() + ": " + error, UsageError);
  }
  if (std::string error = planError(plan); !error.empty())
    return fail(args["plan"].as<std::string>() + ": " + error + " (nothing was run)", UsageError);
  std::error_code ec;
  std::string cake = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec)
    return fail("cannot find the cake binary (/proc/self/exe)", UsageError);

  json results = {{"version", 1}, {"device", ""}, {"commit", args["commit"].as<std::string>()}, {"date", today()},
                  {"runs", json::array()}};
  std::string device;
  int failures = 0;
  try {
    for (const json &entry : plan["runs"])
      for (const json &shape : entry.at("shapes")) {
        json r = runOne(cake, entry, shape, device);
        failures += !r["ok"].get<bool>();
        std::cerr << (r["ok"].get<bool>() ? "ok   " : "FAIL ") << r["file"].get<std::string>() << " "
                  << shape.dump() << (r.contains("median_ms") ? " " + r["median_ms"].dump() + " ms" : "") << "\n";
        results["runs"].push_back(std::move(r));
      }
  } catch (const json::exception &e) {
    return fail(std::string("bad plan: ") + e.what(), UsageError);
  }
  results["device"] = device;
  if (peers) {
    joinPeers(results, *peers);
    const json &sum = results["peer_summary"];
    std::cerr << "beside the peers: " << sum["compared"].get<int>() << " runs compared";
    if (sum.contains("geomean"))
      std::cerr << ", geometric mean " << sum["geomean"].get<double>() << "x, minimum " << sum["min"].get<double>()
                << "x, " << sum["below_0_9"].get<int>() << " below 0.9x";
    std::cerr << "\n";
  }
  std::ofstream out(args["output"].as<std::string>(), std::ios::trunc);
  if (!(out << results.dump(2) << "\n"))
    return fail("cannot write " + args["output"].as<std::string>(), UsageError);
  return failures ? InputErrors : Success;
}

} // namespace cake::cli
