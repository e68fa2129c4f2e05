//===- DispatchCommand.cpp - `cake dispatch` ------------------------------===//
//
// A kernel library's manifest from the command line (docs/libraries.md):
//   cake dispatch explain MANIFEST --shape op=assign,dtype=bf16,B=1,N=4096,K=16384,D=64 [--sms 132]
//     which instantiation the library's dispatcher chooses and why, rule by rule (the same
//     library::dispatch libcake_kmeans runs, so the answers agree);
//   cake dispatch list MANIFEST
//     the instantiations, one per line: name, source, workload, target, kPad, parameters.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/target/Target.h"
#include "formats/Manifest.h"

#include <iostream>
#include <sstream>

namespace cake::cli {

namespace {

int usage(const std::string &message) {
  std::cerr << "cake dispatch: " << message << "\n";
  return UsageError;
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
  return Success;
}

} // namespace cake::cli
