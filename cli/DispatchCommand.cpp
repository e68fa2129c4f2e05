//===- DispatchCommand.cpp - `cake dispatch` ------------------------------===//
//
// A kernel library's manifest from the command line (docs/libraries.md):
//   cake dispatch explain MANIFEST --shape op=assign,dtype=bf16,B=1,N=4096,K=16384,D=64 [--sms 132]
//     which instantiation the library's dispatcher chooses and why, rule by rule (the same
//     library::dispatch libcake_kmeans runs, so the answers agree);
//     With --db PATH (a tuning database; --tuned: the project's), also what cake tune
//     measured of the chosen file at the sizes the library derives: the chosen instantiation's
//     time and the fastest schedule measured there, so a manifest whose rule picks a slower
//     schedule than one measured says so;
//   cake dispatch list MANIFEST
//     the instantiations, one per line: name, source, workload, target, kPad, parameters.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/target/Target.h"
#include "formats/FailureLog.h"
#include "formats/Input.h"
#include "formats/Manifest.h"
#include "formats/TuneDb.h"
#include "compiler/sema/Instantiate.h"
#include "compiler/syntax/Parser.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace cake::cli {

namespace {

int usage(const std::string &message) {
  std::cerr << "cake dispatch: " << message << "\n";
  return UsageError;
}

/// Every parameter of the file at \p text with its value in \p instance (sema's instantiation: the instance's
/// binding, else the file's default), as cake tune records the bindings; empty when it does not instantiate.
std::map<std::string, std::string> bindingsOf(const std::string &path, const std::string &text,
                                              const library::Instance &instance) {
  SourceManager sm;
  FileId file = sm.addBuffer(path, text);
  std::vector<Diagnostic> diagnostics;
  syntax::Module m = syntax::parse(sm, file, diagnostics);
  DiagnosticSink sink(diagnostics);
  std::map<std::string, std::string> out;
  if (auto inst = sema::instantiate(m, instance.instantiation(), sink))
    out.insert(inst->values.begin(), inst->values.end());
  return out;
}

/// What the tuning database at \p db measured of \p source at problem \p p (its IR as it is now): the
/// chosen instantiation's time and the fastest measured schedule. A run is at the problem when each size it
/// bound that the problem or the library's derived \p sizes name has that value (and one at least does);
/// sizes neither names (the library derives them too: KMeans' padded KP) are not compared.
void explainTuned(const std::string &db, const std::string &source, const library::Instance &chosen,
                  const library::Problem &p, const std::vector<std::pair<std::string, int64_t>> &sizes) {
  std::string text;
  if (auto read = readInput(source, text); !read) {
    std::cout << "tuning database: " << read.error().message << "\n";
    return;
  }
  if (std::error_code ec; !std::filesystem::exists(db, ec)) {
    std::cout << "tuning database: " << db << " does not exist (cake tune " << source << " writes it)\n";
    return;
  }
  const std::string ir = formats::hashText(text);
  std::map<std::string, int64_t> want(sizes.begin(), sizes.end());
  for (const auto &[name, value] : p.values) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec == std::errc() && end == value.data() + value.size())
      want.emplace(name, v);
  }
  const std::map<std::string, std::string> mine = bindingsOf(source, text, chosen);
  const nlohmann::ordered_json *best = nullptr, *chosenRun = nullptr;
  size_t runs = 0;
  const std::vector<nlohmann::ordered_json> entries = formats::readTuneDb(db); // best and chosenRun point into it
  for (const nlohmann::ordered_json &e : entries) {
    const auto &k = e["key"];
    // the sizes the library derives may hold more than the file's (the manifest's own): those a run bound
    // must agree, and every one it bound must be derived
    if (k.value("ir", "") != ir || !k["sizes"].is_object() || e.value("status", "") != "ok" || !e["ms"].is_number())
      continue;
    bool same = true;
    size_t compared = 0;
    for (const auto &[name, value] : k["sizes"].items())
      if (auto it = want.find(name); it != want.end()) {
        ++compared;
        same = same && value.is_number_integer() && value.get<int64_t>() == it->second;
      }
    if (!same || !compared)
      continue;
    ++runs;
    if (!best || e["ms"].get<double>() < (*best)["ms"].get<double>())
      best = &e;
    bool isChosen = k.value("rings", nlohmann::ordered_json::object()).empty() &&
                    k.value("groups", nlohmann::ordered_json::object()).empty();
    for (const auto &[name, value] : mine)
      isChosen = isChosen && k["params"].value(name, "") == value;
    if (isChosen && (!chosenRun || e.value("time", 0) > chosenRun->value("time", 0)))
      chosenRun = &e; // the newest run of it
  }
  auto label = [](const nlohmann::ordered_json &e) {
    std::string s;
    for (const auto &[name, value] : e["key"]["params"].items())
      s += (s.empty() ? "" : ", ") + name + " = " + value.get<std::string>();
    if (e["key"].contains("rings"))
      for (const auto &[name, value] : e["key"]["rings"].items())
        s += (s.empty() ? "" : ", ") + std::string("stages ") + name + " = " + std::to_string(value.get<int64_t>());
    if (e["key"].contains("groups"))
      for (const auto &[name, value] : e["key"]["groups"].items())
        s += (s.empty() ? "" : ", ") + std::string("group ") + name + " = " + std::to_string(value.get<int64_t>());
    return s.empty() ? std::string("the file as written") : s;
  };
  std::ostringstream ms;
  ms << std::setprecision(4);
  if (!runs) {
    std::cout << "tuning database (" << db << "): no run of " << source << " as it is now at these sizes (cake tune "
              << source << " --size ... measures them)\n";
    return;
  }
  std::cout << "tuning database (" << db << "): " << runs << " run" << (runs == 1 ? "" : "s") << " of " << source
            << " at these sizes; ";
  if (chosenRun)
    ms << "the chosen instantiation measured " << (*chosenRun)["ms"].get<double>() << " ms";
  else
    ms << "the chosen instantiation was not measured";
  ms << "; the fastest: " << label(*best) << ", " << (*best)["ms"].get<double>() << " ms";
  if (chosenRun == best || (chosenRun && (*chosenRun)["ms"] == (*best)["ms"]))
    ms << " (the chosen one)";
  else if (chosenRun) {
    // under 3%: the runs' noise as often as not (bench/results/tune_h200.md), and the tuner's own bar
    const double less = 100.0 * (1.0 - (*best)["ms"].get<double>() / (*chosenRun)["ms"].get<double>());
    ms << " (" << std::setprecision(2) << less << "% less than the chosen"
       << (less < 3 ? ": within 3%, no case for another choice)" : ": a case for the manifest's rules)");
  }
  std::cout << ms.str() << "\n";
}

} // namespace

int runDispatch(int argc, char **argv) {
  cxxopts::Options o("cake dispatch", "A kernel library's manifest: which instantiation its dispatcher chooses "
                                      "for a problem, and why.\n  cake dispatch explain MANIFEST --shape "
                                      "op=assign,dtype=bf16,B=1,N=4096,K=16384,D=64\n  cake dispatch list MANIFEST");
  o.add_options()("shape", "The problem: NAME=VALUE pairs, comma-separated (op, dtype, sizes)",
                  cxxopts::value<std::vector<std::string>>())(
      "sms", "The GPU's SM count (default: the H200's, which the rules were fitted on)", cxxopts::value<int>())(
      "cc", "The GPU's compute capability, 10 x major + minor (default: any)", cxxopts::value<int>())(
      "db", "explain: also what this tuning database measured at the problem", cxxopts::value<std::string>())(
      "tuned", "explain: also what the project's tuning database (.cake/tune.jsonl) measured at the problem")(
      "h,help", "Show this help")("action", "explain or list", cxxopts::value<std::string>())(
      "manifest", "The manifest (*.manifest.json)", cxxopts::value<std::string>());
  o.parse_positional({"action", "manifest"});
  o.positional_help("explain|list MANIFEST");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("action") || !args.count("manifest"))
    return usage("give an action (explain or list) and a manifest (see 'cake dispatch --help')");
  std::string action = args["action"].as<std::string>();
  if (action != "explain" && action != "list")
    return usage("unknown action '" + action + "' (expected explain or list)");
  SourceManager sm;
  auto manifest = formats::readManifest(sm, args["manifest"].as<std::string>());
  if (!manifest)
    return usage(manifest.error().message);
  const library::Manifest &m = *manifest;

  if (action == "list") {
    for (const library::Instance &i : m.instances) {
      std::string params;
      for (const sema::Binding &b : i.params)
        params += (params.empty() ? "" : ",") + b.name + "=" + b.value;
      std::cout << i.name << "\t" << m.sourcePath(i) << "\t"
                << (i.workload.empty() ? "-" : (m.dir.empty() ? "" : m.dir + "/") + i.workload) << "\t" << i.target
                << "\t" << library::kPadOf(m, i).value_or(0) << "\t" << (params.empty() ? "-" : params) << "\n";
    }
    return Success;
  }

  library::Problem p;
  if (args.count("shape"))
    for (const std::string &arg : args["shape"].as<std::vector<std::string>>()) {
      std::stringstream pairs(arg);
      for (std::string kv; std::getline(pairs, kv, ',');) {
        size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
          return usage("--shape takes NAME=VALUE pairs, not '" + kv + "'");
        p.values[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
    }
  if (p.values.empty())
    return usage("explain needs the problem: --shape op=...,dtype=...,B=...,...");
  p.values["SMS"] = std::to_string(args.count("sms") ? args["sms"].as<int>() : int(targetDesc(Target::SM90a).smCount));
  if (args.count("cc"))
    p.values["cc"] = std::to_string(args["cc"].as<int>());
  library::Decision d = library::dispatch(m, p);
  std::cout << m.path << ": " << p.describe() << "\n";
  for (const std::string &line : d.trace)
    std::cout << "  " << line << "\n";
  if (!d.chosen) {
    std::cout << d.why << "\n";
    return InputErrors;
  }
  std::cout << "chosen: " << d.chosen->name << " (" << m.sourcePath(*d.chosen) << ", " << d.chosen->covers << ")\n";
  // the sizes the library derives for the call (Entry::sizes)
  std::string error;
  auto sizes = library::sizesOf(m, *d.chosen, p, &error);
  if (!sizes) {
    std::cout << "sizes: " << error << "\n";
    return InputErrors;
  }
  if (!sizes->empty()) {
    std::cout << "sizes:";
    for (const auto &[name, value] : *sizes)
      std::cout << " " << name << " = " << value;
    std::cout << "\n";
  }
  if (args.count("db") || args.count("tuned")) {
    const std::string source = m.sourcePath(*d.chosen);
    std::string db = args.count("db") ? args["db"].as<std::string>() : formats::tuneDbPathFor(source);
    if (db.empty())
      return usage(source + " is in no project (no .git or .cake above it): give --db PATH");
    explainTuned(db, source, *d.chosen, p, *sizes);
  }
  return Success;
}

} // namespace cake::cli
