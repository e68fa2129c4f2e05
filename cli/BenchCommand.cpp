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
#include "formats/FailureLog.h"
#include "formats/Input.h"
#include "cli/Options.h"
#include "cli/Sweep.h"
#include "compiler/runner/Process.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

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

/// What a run of \p entry at \p shape is in the results file, whether it ran or not.
json identityOf(const json &entry, const json &shape) {
  json out = {{"file", entry["file"]},
              {"family", entry.value("family", "")},
              {"problem", entry.value("problem", entry.value("family", ""))},
              {"sizes", shape}};
  if (entry.contains("instance"))
    out["instance"] = entry["instance"];
  if (entry.contains("constants"))
    out["constants"] = entry["constants"];
  return out;
}

/// One run of the plan: `cake run` in a child (on GPU \p gpu of the host when given: the child sees only it),
/// its report condensed; a hang or a crash is the GPU's fault (worth trying on another), anything else the
/// kernel's or the input's.
SweepAttempt runOne(const std::string &cake, const json &entry, const json &shape, std::string &device,
                    const std::string &gpu = "") {
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
  if (entry.contains("timeout"))
    argv.insert(argv.end(), {"--timeout", entry["timeout"].dump()});
  // The child's result comes back through --report, never through its stdout.
  char dir[] = "/tmp/cake-bench-XXXXXX";
  json report;
  runner::ProcessResult r;
  if (mkdtemp(dir)) {
    std::string reportFile = std::string(dir) + "/report.json";
    argv.insert(argv.end(), {"--report", reportFile});
    r = runner::runProcess(onGpu(argv, gpu), 600);
    std::ifstream f(reportFile);
    std::stringstream text;
    text << f.rdbuf();
    report = json::parse(text.str(), nullptr, false);
    std::filesystem::remove_all(dir);
  }
  json out = identityOf(entry, shape);
  if (r.exitCode != 0 || report.is_discarded() || !report.is_object() || !report.value("ok", false)) {
    out["ok"] = false;
    out["error"] = r.timedOut ? std::string("timed out")
                   : report.is_object() && report.contains("message") ? report["message"].get<std::string>()
                   : !r.started ? std::string("cannot start ") + cake
                                : "no report (exit " + std::to_string(r.exitCode) + ")";
    if (report.is_object() && report.contains("status"))
      out["status"] = report["status"];
    out["exit_code"] = r.exitCode;
    return {std::move(out), gpuFault(r, report.is_object() ? report.value("status", "") : "", gpu)};
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
  return {std::move(out), false};
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
    if (e.contains("timeout") && (!e["timeout"].is_number() || e["timeout"].get<double>() <= 0 ||
                                  e["timeout"].get<double>() > 3600))
      return at + ".timeout must be a number of seconds from 0 to 3600 (one launch's limit)";
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

/// A hash of the plan, so that the shards a merge joins (and a journal resumed) are of one plan.
std::string planKey(const json &plan) { return formats::hashText(plan.dump()); }

/// `cake bench --merge`: the shards' results, each run at its place in the plan (a one-GPU sweep's file).
int mergeShards(const std::vector<std::string> &files, const std::string &output) {
  json merged;
  std::vector<json> runs;
  std::vector<bool> seen;
  std::set<int64_t> shards;
  int64_t count = -1;
  for (const std::string &f : files) {
    std::string text;
    if (auto error = readJsonInput(f, text); !error)
      return fail(error.error().message, UsageError);
    json r = json::parse(text, nullptr, false);
    if (r.is_discarded() || !r.is_object() || !r.contains("shard") || !r["shard"].is_object() ||
        !r.contains("runs") || !r["runs"].is_array())
      return fail(f + ": not the results of a shard (cake bench --shard I/N)", UsageError);
    const json &shard = r["shard"];
    if (!shard.contains("index") || !shard.contains("count") || !shard.contains("items") || !shard.contains("plan") ||
        !shard["index"].is_number_integer() || !shard["count"].is_number_integer() ||
        !shard["items"].is_number_integer() || shard["items"].get<int64_t>() < 0 ||
        shard["items"].get<int64_t>() > 10000000)
      return fail(f + ": its \"shard\" is not {index, count, items, plan}", UsageError);
    if (merged.is_null()) {
      merged = r;
      count = shard["count"].get<int64_t>();
      seen.assign(static_cast<size_t>(shard["items"].get<int64_t>()), false);
      runs.assign(seen.size(), json());
    } else if (shard["plan"] != merged["shard"]["plan"] || shard["count"].get<int64_t>() != count ||
               shard["items"].get<int64_t>() != static_cast<int64_t>(seen.size())) {
      return fail(f + ": a shard of another plan or split (plan " + shard["plan"].dump() + ", " +
                      shard["count"].dump() + " shards) than " + files.front(),
                  UsageError);
    }
    if (!shards.insert(shard["index"].get<int64_t>()).second)
      return fail(f + ": shard " + shard["index"].dump() + " is given twice", UsageError);
    for (const json &run : r["runs"]) {
      if (!run.is_object() || !run.contains("index") || !run["index"].is_number_integer() ||
          run["index"].get<int64_t>() < 0 || run["index"].get<int64_t>() >= static_cast<int64_t>(seen.size()))
        return fail(f + ": a run without its place in the plan (\"index\")", UsageError);
      const size_t i = static_cast<size_t>(run["index"].get<int64_t>());
      if (seen[i])
        return fail(f + ": item " + std::to_string(i) + " of the plan is in two shards", UsageError);
      seen[i] = true;
      runs[i] = run;
      runs[i].erase("index");
    }
    if (merged["device"].get<std::string>().empty())
      merged["device"] = r["device"];
    if (&f != &files.front())
      for (const json &g : r.value("gpus", json::array()))
        merged["gpus"].push_back(g);
  }
  std::string missing;
  for (size_t i = 0; i < seen.size(); ++i)
    if (!seen[i])
      missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  if (!missing.empty())
    return fail("items " + missing + " of the plan are in none of the " + std::to_string(files.size()) +
                    " shards given (of " + std::to_string(count) + ")",
                InputErrors);
  merged.erase("shard");
  merged["runs"] = runs;
  int failures = 0;
  for (const json &run : runs)
    failures += !run.value("ok", false);
  std::ofstream out(output, std::ios::trunc);
  if (!(out << merged.dump(2) << "\n"))
    return fail("cannot write " + output, UsageError);
  std::cerr << "merged " << files.size() << " shards: " << runs.size() << " runs, " << failures << " failed\n";
  return failures ? InputErrors : Success;
}

/// A shell word: \p s in single quotes.
std::string quoted(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// `cake bench --slurm N`: the script that runs the plan as a Slurm job array of N shards and merges them in a
/// job that waits for the array (afterany: a failed shard's results are merged, its missing items named).
std::string slurmScript(const std::string &cake, const std::string &plan, const std::string &output, int64_t shards,
                        const std::string &gres, const std::vector<std::string> &passOn) {
  std::string pass;
  for (const std::string &a : passOn)
    pass += " " + quoted(a);
  std::string shard = quoted(output) + "'.shard-'\"$SLURM_ARRAY_TASK_ID\"'.json'";
  std::ostringstream os;
  os << "#!/usr/bin/env bash\n"
     << "# Generated by `cake bench --slurm " << shards << "`: " << plan << " in " << shards
     << " shards (a Slurm job array), then one merge into " << output << ".\n"
     << "set -euo pipefail\n"
     << "array=$(sbatch --parsable --job-name=cake-bench --array=0-" << shards - 1
     << (gres.empty() ? "" : " --gres=" + gres) << " --output=" << quoted(output + ".shard-%a.log") << " \\\n"
     << "  --wrap=" << quoted("exec " + quoted(cake) + " bench " + quoted(plan) + pass + " --shard \"$SLURM_ARRAY_TASK_ID\"/" +
                              std::to_string(shards) + " -o " + shard)
     << ")\n"
     << "array=${array%%;*}\n"
     << "sbatch --parsable --job-name=cake-bench-merge --dependency=afterany:$array --output="
     << quoted(output + ".merge.log") << " \\\n"
     << "  --wrap=" << quoted("exec " + quoted(cake) + " bench --merge -o " + quoted(output) + " " + quoted(output) +
                              ".shard-*.json")
     << "\n"
     << "echo \"submitted: shards $array, then the merge into " << output << "\"\n";
  return os.str();
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
      "gpus", "Run on these GPUs of the host at once, one worker each taking the next item when free: a count "
              "(0 .. N-1) or a list of CUDA_VISIBLE_DEVICES values (0,2,3)",
      cxxopts::value<std::string>())(
      "retries", "With --gpus: how many more GPUs an item whose run hung or crashed is tried on",
      cxxopts::value<int>()->default_value("1"))(
      "shard", "Run only shard I of N (items I, I + N, ...; 0 <= I < N) and record it for --merge",
      cxxopts::value<std::string>())(
      "merge", "Merge the results of a plan's shards (the inputs) into one results file")(
      "fresh", "Run every item, also those the journal of an interrupted run (RESULTS.json.journal) holds")(
      "slurm", "Print the script that runs the plan on a Slurm cluster in N shards (a job array) and merges them",
      cxxopts::value<int64_t>())(
      "slurm-gres", "With --slurm: each shard's --gres (none: \"\")", cxxopts::value<std::string>()->default_value("gpu:1"))(
      "h,help", "Show this help")("inputs", "The plan (JSON), or with --merge the shards' results",
                                  cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"inputs"});
  o.positional_help("PLAN.json | --merge SHARD.json...");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  const std::vector<std::string> inputs =
      args.count("inputs") ? args["inputs"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (!args.count("output"))
    return fail("usage: cake bench PLAN.json -o RESULTS.json [--gpus N] [--shard I/N] | cake bench --merge -o "
                "RESULTS.json SHARD.json...",
                UsageError);
  if (args.count("merge")) {
    if (inputs.empty() || args.count("gpus") || args.count("shard") || args.count("slurm") || args.count("peers"))
      return fail("--merge takes the shards' results files and -o, nothing else", UsageError);
    return mergeShards(inputs, args["output"].as<std::string>());
  }
  if (inputs.size() != 1)
    return fail("usage: cake bench PLAN.json -o RESULTS.json (one plan)", UsageError);
  const std::string planPath = inputs.front();
  std::string text;
  if (auto error = readJsonInput(planPath, text); !error)
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
    return fail(planPath + ": " + error + " (nothing was run)", UsageError);
  std::vector<std::string> gpus = {""};
  if (args.count("gpus")) {
    std::string error;
    auto list = parseGpus(args["gpus"].as<std::string>(), error);
    if (!list)
      return fail(error, UsageError);
    gpus = *list;
  }
  const int retries = args["retries"].as<int>();
  if (retries < 0 || retries > 64)
    return fail("--retries takes 0 to 64", UsageError);
  int64_t shardIndex = 0, shardCount = 1;
  if (std::string error; args.count("shard") && !parseShard(args["shard"].as<std::string>(), shardIndex, shardCount, error))
    return fail(error, UsageError);
  std::error_code ec;
  std::string cake = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec)
    return fail("cannot find the cake binary (/proc/self/exe)", UsageError);
  if (args.count("slurm")) {
    const int64_t n = args["slurm"].as<int64_t>();
    if (n < 1 || n > 100000 || args.count("shard"))
      return fail("--slurm takes a shard count from 1 to 100000 (and no --shard: each job of the array is one)",
                  UsageError);
    std::vector<std::string> passOn;
    if (!args["commit"].as<std::string>().empty())
      passOn = {"--commit", args["commit"].as<std::string>()};
    if (args.count("gpus"))
      passOn.insert(passOn.end(), {"--gpus", args["gpus"].as<std::string>()});
    std::cout << slurmScript(cake, std::filesystem::absolute(planPath, ec).string(),
                             std::filesystem::absolute(args["output"].as<std::string>(), ec).string(), n,
                             args["slurm-gres"].as<std::string>(), passOn);
    return Success;
  }

  // the plan's items in order; a shard runs every shardCount-th of them
  struct Planned {
    size_t index;
    const json *entry, *shape;
  };
  std::vector<Planned> items;
  size_t total = 0;
  for (const json &entry : plan["runs"])
    for (const json &shape : entry.at("shapes")) {
      if (static_cast<int64_t>(total % static_cast<size_t>(shardCount)) == shardIndex)
        items.push_back({total, &entry, &shape});
      ++total;
    }
  json results = {{"version", 1}, {"device", ""}, {"commit", args["commit"].as<std::string>()}, {"date", today()},
                  {"runs", json::array()}};
  // the journal: each finished run as it ends, so that a sweep killed (or a shard preempted) and run again loses
  // only the runs in flight (removed once the results file is written; --fresh starts it anew)
  const std::string output = args["output"].as<std::string>(), journalPath = output + ".journal";
  const json journalHead = {{"plan", planKey(plan)}, {"shard", std::to_string(shardIndex) + "/" + std::to_string(shardCount)}};
  std::map<size_t, json> journaled; // plan index -> its run
  std::string device;
  if (!args.count("fresh")) {
    std::ifstream in(journalPath);
    std::string line;
    if (std::getline(in, line) && json::parse(line, nullptr, false) == journalHead)
      while (std::getline(in, line)) {
        json j = json::parse(line, nullptr, false); // a line cut by the kill does not parse: that run runs again
        if (j.is_object() && j["index"].is_number_unsigned() && j["run"].is_object()) {
          journaled[j["index"].get<size_t>()] = j["run"];
          if (device.empty())
            device = j.value("device", "");
        }
      }
  }
  std::ofstream journal(journalPath, journaled.empty() ? std::ios::trunc : std::ios::app);
  if (journaled.empty())
    journal << journalHead.dump() << "\n" << std::flush;
  std::vector<size_t> toRun; // positions in items
  for (size_t i = 0; i < items.size(); ++i)
    if (!journaled.count(items[i].index))
      toRun.push_back(i);
  if (!journaled.empty())
    std::cerr << "resumed: " << items.size() - toRun.size() << " of " << items.size() << " runs from " << journalPath
              << "\n";
  std::mutex deviceMutex;
  int failures = 0;
  SweepOutcome outcome;
  try {
    outcome = runSweep(
        toRun.size(), gpus, retries,
        [&](size_t t, const std::string &gpu) {
          const size_t i = toRun[t];
          std::string seen;
          SweepAttempt a = runOne(cake, *items[i].entry, *items[i].shape, seen, gpu);
          std::lock_guard lock(deviceMutex);
          if (device.empty())
            device = seen;
          return a;
        },
        [&](size_t t, const json &r) {
          const size_t i = toRun[t];
          if (!r.value("gpu_fault", false)) // a GPU's failure is not the item's: a rerun tries it again
            journal << json{{"index", items[i].index}, {"run", r}, {"device", device}}.dump() << "\n" << std::flush;
          const bool ok = r.value("ok", false);
          failures += !ok;
          std::cerr << (ok ? "ok   " : "FAIL ") << items[i].entry->at("file").get<std::string>() << " "
                    << items[i].shape->dump() << (r.contains("median_ms") ? " " + r["median_ms"].dump() + " ms" : "")
                    << (gpus.size() > 1 && r.contains("gpu") ? " (GPU " + r.value("gpu", std::string()) + ")" : "")
                    << (ok ? "" : ": " + r.value("error", std::string())) << "\n";
        });
  } catch (const json::exception &e) {
    return fail(std::string("bad plan: ") + e.what(), UsageError);
  }
  std::vector<json> byItem(items.size());
  for (size_t t = 0; t < toRun.size(); ++t)
    byItem[toRun[t]] = std::move(outcome.results[t]);
  for (size_t i = 0; i < items.size(); ++i) {
    const bool fromJournal = byItem[i].is_null();
    json r = fromJournal ? journaled.at(items[i].index) : std::move(byItem[i]);
    failures += fromJournal && !r.value("ok", false);
    if (!r.contains("file")) { // an item no GPU ran (every one stopped taking items): what it is, then why
      json named = identityOf(*items[i].entry, *items[i].shape);
      named.update(r);
      r = std::move(named);
    }
    if (gpus.size() == 1 && gpus.front().empty())
      r.erase("gpu"); // the one GPU of the environment: a one-GPU sweep's file, as before --gpus
    if (args.count("shard"))
      r["index"] = items[i].index;
    results["runs"].push_back(std::move(r));
  }
  results["device"] = device;
  if (args.count("gpus"))
    results["gpus"] = outcome.gpus;
  if (args.count("shard"))
    results["shard"] = {{"index", shardIndex}, {"count", shardCount}, {"items", total}, {"plan", planKey(plan)}};
  if (peers) {
    joinPeers(results, *peers);
    const json &sum = results["peer_summary"];
    std::cerr << "beside the peers: " << sum["compared"].get<int>() << " runs compared";
    if (sum.contains("geomean"))
      std::cerr << ", geometric mean " << sum["geomean"].get<double>() << "x, minimum " << sum["min"].get<double>()
                << "x, " << sum["below_0_9"].get<int>() << " below 0.9x";
    std::cerr << "\n";
  }
  std::ofstream out(output, std::ios::trunc);
  if (!(out << results.dump(2) << "\n"))
    return fail("cannot write " + output, UsageError);
  out.close();
  journal.close();
  std::filesystem::remove(journalPath, ec);
  return failures ? InputErrors : Success;
}

} // namespace cake::cli
