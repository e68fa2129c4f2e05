//===- CostCommand.cpp - `cake cost` ----------------------------------------===//
//
// `cake cost FILE.cake --size M=...`: the cost model's estimate of one kernel
// at one shape (time, bottleneck, fraction of the floor, per-role and
// per-operation breakdown), as text or JSON.
// `cake cost --validate RESULTS.json`: every measured run re-estimated and
// compared (median error, Spearman per family, top-1 regret per shape,
// calibration targets); exits 1 when an acceptance threshold fails.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "formats/CostSupport.h"
#include "cli/Options.h"

#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

namespace cake::cli {
namespace {

using json = nlohmann::ordered_json;

int fail(const std::string &message, int code) {
  return reportFailure("cake cost", message, code);
}

std::string fmt(const char *format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

/// 1.234 ms, 56.7 us, 890 ns.
std::string duration(double s) {
  if (s >= 1e-3)
    return fmt("%.3f ms", s * 1e3);
  if (s >= 1e-6)
    return fmt("%.2f us", s * 1e6);
  return fmt("%.0f ns", s * 1e9);
}

std::string bytes(double b) {
  if (b >= 1e9)
    return fmt("%.2f GB", b / 1e9);
  if (b >= 1e6)
    return fmt("%.2f MB", b / 1e6);
  if (b >= 1e3)
    return fmt("%.1f kB", b / 1e3);
  return fmt("%.0f B", b);
}

std::string sizesText(const cost::Sizes &sizes) {
  std::string s;
  for (auto &[k, v] : sizes)
    s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

json estimateJson(const CheckedFile &f, const sema::Kernel &k, const cost::Sizes &sizes, const cost::Estimate &e,
                  const std::string &note) {
  json out;
  out["version"] = 1;
  out["kernel"] = k.decl->name.name;
  out["target"] = std::string(targetName(k.target));
  out["sizes"] = sizes;
  out["calibration"] = note;
  out["predicted_ms"] = e.seconds ? json(*e.seconds * 1e3) : json(nullptr);
  out["bottleneck"] = std::string(cost::bottleneckName(e.bottleneck));
  out["floor_ms"] = e.floorSeconds * 1e3;
  out["fraction_of_floor"] = e.fractionOfFloor;
  out["flops"] = e.flops;
  out["bytes"] = {{"unique", e.uniqueBytes}, {"dram", e.dramBytes}, {"loaded", e.loadedBytes}};
  out["tiles"] = e.tiles;
  out["ctas"] = e.ctas;
  out["waves"] = e.waves;
  out["tail_efficiency"] = e.tailEfficiency;
  out["tile_us"] = e.secondsPerTile * 1e6;
  out["fill_us"] = e.fillSeconds * 1e6;
  out["family"] = e.family;
  out["correction"] = e.correction;
  out["in_domain"] = e.inDomain;
  out["domain"] = e.domain;
  out["reasons"] = e.reasons;
  out["roles"] = json::array();
  for (const cost::RoleCost &r : e.roles)
    out["roles"].push_back({{"role", r.name},
                            {"tile_us", r.secondsPerTile * 1e6},
                            {"stage_us", r.stageSeconds * 1e6},
                            {"stages_per_tile", r.stagesPerTile},
                            {"bound", std::string(cost::bottleneckName(r.bound))}});
  out["ops"] = json::array();
  for (const cost::OpCost &o : e.ops) {
    LineColumn lc = f.sm.lineColumn(o.range.file, o.range.begin);
    out["ops"].push_back({{"op", o.op},
                          {"role", o.role},
                          {"line", lc.line},
                          {"column", lc.column},
                          {"resource", std::string(cost::bottleneckName(o.resource))},
                          {"count", o.count},
                          {"bytes", o.bytes},
                          {"flops", o.flops},
                          {"tile_us", o.seconds * 1e6}});
  }
  return out;
}

void printEstimate(const CheckedFile &f, const sema::Kernel &k, const cost::Sizes &sizes, const cost::Estimate &e,
                   const std::string &note) {
  std::cout << k.decl->name.name << " (" << targetName(k.target) << ") at " << sizesText(sizes) << " [" << note
            << "]\n";
  if (!e.seconds) {
    std::cout << "no estimate: outside the model\n";
    for (const std::string &r : e.reasons)
      std::cout << "  - " << r << "\n";
    return;
  }
  std::cout << "predicted " << duration(*e.seconds) << ", bound by " << cost::bottleneckName(e.bottleneck)
            << "; floor " << duration(e.floorSeconds) << ", " << fmt("%.1f%%", 100 * e.fractionOfFloor)
            << " of the floor\n";
  std::cout << "tiles " << e.tiles << " on " << e.ctas << " CTAs: " << fmt("%.2f", e.waves) << " waves (tail "
            << fmt("%.1f%%", 100 * e.tailEfficiency) << "), " << duration(e.secondsPerTile) << " per tile, fill "
            << duration(e.fillSeconds) << "\n";
  std::cout << "bytes: unique " << bytes(e.uniqueBytes) << ", DRAM " << bytes(e.dramBytes) << " (L2 reuse), loaded "
            << bytes(e.loadedBytes) << "; " << fmt("%.3g", e.flops) << " flops\n";
  std::cout << "roles (per tile):\n";
  for (const cost::RoleCost &r : e.roles)
    std::cout << "  " << r.name << ": " << duration(r.secondsPerTile) << ", stage " << duration(r.stageSeconds)
              << " x " << r.stagesPerTile << ", bound by " << cost::bottleneckName(r.bound) << "\n";
  std::cout << "ops (per tile):\n";
  for (const cost::OpCost &o : e.ops) {
    if (o.resource == cost::Bottleneck::Issue)
      continue;
    LineColumn lc = f.sm.lineColumn(o.range.file, o.range.begin);
    std::cout << "  " << lc.line << ":" << lc.column << " " << o.op << " (" << o.role << "): " << duration(o.seconds)
              << " on " << cost::bottleneckName(o.resource)
              << (o.flops > 0 ? ", " + fmt("%.3g", o.flops) + " flops" : ", " + bytes(o.bytes)) << "\n";
  }
  std::cout << "domain: " << e.domain << (e.inDomain ? "" : " (outside the calibrated domain)") << "\n";
  for (const std::string &r : e.reasons)
    std::cout << "  - " << r << "\n";
}

int runValidate(const std::string &path, const std::optional<cost::Calibration> &given, bool asJson,
                const cost::Thresholds &t) {
  Results results;
  if (auto error = readResults(path, results); !error)
    return fail(error.error().message, UsageError);
  std::vector<cost::Run> runs = estimateRuns(results, given, true);
  cost::Validation v = cost::validate(runs, t);
  if (asJson) {
    json out = {{"version", 1},
                {"results", path},
                {"pairs", v.pairs},
                {"skipped", v.skipped},
                {"median_error", v.medianError},
                {"spearman", v.spearman},
                {"points", v.points},
                {"max_regret", v.maxRegret},
                {"mean_regret", v.meanRegret},
                {"shapes", json::array()},
                {"calibration_targets", json::array()},
                {"failures", v.failures},
                {"pass", v.failures.empty()}};
    for (const cost::ShapeRegret &s : v.regrets)
      out["shapes"].push_back(
          {{"shape", s.group}, {"variants", s.variants}, {"chosen", s.chosen}, {"best", s.best}, {"regret", s.regret}});
    for (size_t i : v.targets)
      out["calibration_targets"].push_back({{"kernel", runs[i].kernel},
                                            {"family", runs[i].family},
                                            {"sizes", runs[i].sizes},
                                            {"measured_ms", runs[i].measuredSeconds * 1e3},
                                            {"predicted_ms", *runs[i].predicted * 1e3}});
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << path << ": " << v.pairs << " pairs (" << v.skipped << " skipped)\n";
    for (const cost::Run &r : runs)
      if (!r.predicted)
        std::cout << "  skipped " << r.kernel << " " << sizesText(r.sizes) << ": " << r.why << "\n";
    std::cout << "median |predicted/measured - 1|: " << fmt("%.1f%%", 100 * v.medianError) << "\n";
    for (auto &[family, n] : v.points)
      std::cout << "spearman " << family << ": "
                << (v.spearman.count(family) ? fmt("%.3f", v.spearman[family]) : std::string("n/a")) << " (" << n
                << " points)\n";
    std::cout << "top-1 regret over " << v.regrets.size() << " shapes: max " << fmt("%.1f%%", 100 * v.maxRegret)
              << ", mean " << fmt("%.1f%%", 100 * v.meanRegret) << "\n";
    for (const cost::ShapeRegret &s : v.regrets)
      if (s.regret > 0)
        std::cout << "  " << s.group << ": chose " << s.chosen << ", best " << s.best << " ("
                  << fmt("%.1f%%", 100 * s.regret) << ")\n";
    std::cout << "calibration targets (error > " << fmt("%.0f%%", 100 * t.mispredict) << "): " << v.targets.size()
              << "\n";
    for (size_t i : v.targets)
      std::cout << "  " << runs[i].kernel << " " << sizesText(runs[i].sizes) << ": measured "
                << duration(runs[i].measuredSeconds) << ", predicted " << duration(*runs[i].predicted) << "\n";
    std::cout << (v.failures.empty() ? "PASS" : "FAIL") << "\n";
    for (const std::string &f : v.failures)
      std::cout << "  - " << f << "\n";
  }
  return v.failures.empty() ? Success : InputErrors;
}

} // namespace

int runCost(int argc, char **argv) {
  cxxopts::Options o("cake cost", "Estimate a kernel's time with the analytic cost model, or validate the model "
                                  "against measured results (exit 1 when a threshold fails).");
  o.add_options()("size", "Bind a size symbol: NAME=VALUE (repeat)", cxxopts::value<std::vector<std::string>>())(
      "k,kernel", "The kernel (default: the only one)", cxxopts::value<std::string>())(
      "calibration", "Calibration file (default: bench/calibration/<gpu>.json, else datasheet figures)",
      cxxopts::value<std::string>())("validate", "Validate against a results file", cxxopts::value<std::string>())(
      "threshold", "With --validate: error that makes a run a calibration target",
      cxxopts::value<double>()->default_value("0.25"))(
      "format", "Output format: text or json", cxxopts::value<std::string>()->default_value("text"))(
      "instance", "The manifest's instantiation NAME of a file with parameters (docs/libraries.md)",
      cxxopts::value<std::string>())("h,help", "Show this help")("file", "Input file", cxxopts::value<std::string>());
  o.parse_positional({"file"});
  o.positional_help("FILE.cake");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json")
    return fail("--format is text or json", UsageError);
  std::optional<cost::Calibration> given;
  if (args.count("calibration")) {
    given.emplace();
    if (auto error = readCalibration(args["calibration"].as<std::string>(), *given); !error)
      return fail(error.error().message, UsageError);
  }
  if (args.count("validate")) {
    cost::Thresholds t;
    t.mispredict = args["threshold"].as<double>();
    return runValidate(args["validate"].as<std::string>(), given, format == "json", t);
  }
  if (!args.count("file"))
    return fail("a FILE.cake (or --validate RESULTS.json) is needed", UsageError);
  std::string sizeError;
  auto sizeList = sizeArgs(args, "size", sizeError);
  if (!sizeList)
    return fail(sizeError, UsageError);
  cost::Sizes sizes(sizeList->begin(), sizeList->end());
  auto checked = checkCakeFile(args["file"].as<std::string>(),
                               args.count("instance") ? args["instance"].as<std::string>() : "");
  if (!checked)
    return fail(checked.error().message, InputErrors);
  const std::unique_ptr<CheckedFile> &f = *checked;
  const auto &kernels = f->check.model->kernels;
  std::string name = args.count("kernel") ? args["kernel"].as<std::string>()
                     : kernels.size() == 1 ? kernels[0].decl->name.name
                                           : "";
  const sema::Kernel *k = nullptr;
  for (const sema::Kernel &candidate : kernels)
    if (candidate.decl->name.name == name)
      k = &candidate;
  if (!k) {
    std::string names;
    for (const sema::Kernel &candidate : kernels)
      names += (names.empty() ? "" : ", ") + candidate.decl->name.name;
    return fail(name.empty() ? "which kernel? the file has " + std::to_string(kernels.size()) + " (" + names +
                                   "): name one with --kernel"
                             : "which kernel? '" + name + "' is not a kernel of the file; it has " + names,
                UsageError);
  }
  std::string note;
  cost::Calibration cal = calibrationFor(k->target, given, note);
  cost::Estimate e = cost::estimate(*k, sizes, cal);
  if (format == "json")
    std::cout << estimateJson(*f, *k, sizes, e, note).dump(2) << "\n";
  else
    printEstimate(*f, *k, sizes, e, note);
  return e.seconds ? Success : InputErrors;
}

} // namespace cake::cli
