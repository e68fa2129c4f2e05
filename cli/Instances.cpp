//===- Instances.cpp - Which instantiations a command works on ------------===//
#include "cli/Instances.h"

#include "compiler/driver/Check.h"
#include "compiler/syntax/Parser.h"
#include "formats/Manifest.h"

#include <random>

namespace cake::cli {

void addInstanceOptions(cxxopts::Options &o, bool forCheck) {
  o.add_options("Instantiation")(
      "p,param", "Bind a parameter of the file: NAME=VALUE (repeat)", cxxopts::value<std::vector<std::string>>())(
      "instance", "Use the manifest's instantiation NAME", cxxopts::value<std::string>())(
      "manifest", "The library manifest (default: the *.manifest.json beside the file that lists it)",
      cxxopts::value<std::string>());
  if (forCheck)
    o.add_options("Instantiation")("all-instantiations",
                                   "Check every instantiation the parameters' domains and requires allow")(
        "sample-instantiations", "Check N of those, chosen at random (seeded: the same N every run)",
        cxxopts::value<size_t>());
}

namespace {

/// The most instantiations --all-instantiations checks.
constexpr size_t kMaxInstantiations = 4096;

Error usage(const std::string &message) { return Error(Error::InvalidArgument, message); }

} // namespace

Expected<std::vector<sema::Instantiation>> instantiationsFor(const cxxopts::ParseResult &args, SourceManager &sm,
                                                             const std::string &path, FileId file, bool forCheck,
                                                             std::optional<library::Manifest> *manifestOut) {
  std::vector<sema::Instantiation> out;
  const bool all = forCheck && args.count("all-instantiations"), sample = forCheck && args.count("sample-instantiations");
  const bool params = args.count("param"), named = args.count("instance");
  if (int(all) + int(sample) + int(params || named) > 1)
    return usage("choose one of --param/--instance, --all-instantiations and --sample-instantiations");
  if (params && named)
    return usage("--param and --instance both choose the instantiation; give one");
  if (params) {
    sema::Instantiation inst;
    for (const std::string &b : args["param"].as<std::vector<std::string>>()) {
      size_t eq = b.find('=');
      if (eq == std::string::npos || eq == 0)
        return usage("--param takes NAME=VALUE, not '" + b + "'");
      for (const sema::Binding &earlier : inst.bindings)
        if (earlier.name == b.substr(0, eq))
          return usage("--param " + earlier.name + " is given twice (" + earlier.value + " and " + b.substr(eq + 1) +
                       ")");
      inst.bindings.push_back({b.substr(0, eq), b.substr(eq + 1), std::nullopt});
    }
    out.push_back(std::move(inst));
    return out;
  }
  if (all || sample) {
    std::vector<Diagnostic> diags;
    syntax::Module m = syntax::parse(sm, file, diags);
    if (countErrors(diags))
      return out; // checkSource reports the syntax errors
    bool truncated = false;
    out = sema::allInstantiations(m, kMaxInstantiations, &truncated);
    if (truncated && all)
      return usage("the parameters allow more than " + std::to_string(kMaxInstantiations) +
                   " instantiations; use --sample-instantiations N");
    if (sample) {
      size_t n = args["sample-instantiations"].as<size_t>();
      if (n == 0)
        return usage("--sample-instantiations takes a count of at least 1");
      std::mt19937_64 rng(0x5eed);
      std::shuffle(out.begin(), out.end(), rng);
      if (out.size() > n)
        out.resize(n);
    }
    return out;
  }
  if (path == "-")
    return named ? Expected<std::vector<sema::Instantiation>>(usage("--instance needs a file path and its manifest"))
                 : out;
  // a manifest: named, or found beside the file
  std::vector<library::Manifest> manifests;
  if (args.count("manifest")) {
    auto m = formats::readManifest(sm, args["manifest"].as<std::string>());
    if (!m)
      return m.takeError();
    manifests.push_back(std::move(*m));
  } else if (named || forCheck) {
    std::vector<std::string> errors;
    manifests = formats::manifestsFor(sm, path, errors);
    if (!errors.empty() && manifests.empty())
      return Error(Error::InvalidArgument, errors.front());
  }
  for (library::Manifest &m : manifests) {
    std::vector<const library::Instance *> mine = formats::instancesOf(m, path);
    if (named) {
      const library::Instance *i = m.instance(args["instance"].as<std::string>());
      if (!i)
        continue;
      if (std::find(mine.begin(), mine.end(), i) == mine.end())
        return usage("instantiation '" + i->name + "' of " + m.path + " is of " + m.sourcePath(*i) + ", not " + path);
      out.push_back(i->instantiation());
    } else {
      for (const library::Instance *i : mine)
        out.push_back(i->instantiation());
    }
    if (!out.empty()) {
      if (manifestOut)
        *manifestOut = std::move(m);
      return out;
    }
  }
  if (named) {
    std::string known;
    for (const library::Manifest &m : manifests)
      for (const library::Instance *i : formats::instancesOf(m, path))
        known += (known.empty() ? "" : ", ") + i->name;
    return usage("no manifest lists an instantiation '" + args["instance"].as<std::string>() + "' of " + path +
                 (known.empty() ? std::string(" (none lists this file)") : " (its instantiations: " + known + ")"));
  }
  return out;
}

} // namespace cake::cli
