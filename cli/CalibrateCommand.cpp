//===- CalibrateCommand.cpp - `cake calibrate` -------------------------------===//
//
// `cake calibrate --from RESULTS.json [--calibration IN] -o OUT.json`: refits
// the per-family corrections (geometric mean of measured / predicted, the
// predictions made without corrections) and writes the calibration file,
// logging the runs mispredicted past the threshold after the refit.
// `cake calibrate --micro RESULTS.json [--calibration IN] -o OUT.json`: fits
// the machine numbers from microbenchmark runs (family "micro.*" with
// "bytes", "flops" or "count").
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "formats/CostSupport.h"
#include "formats/Input.h"
#include "cli/Options.h"

#include <cmath>
#include <cxxopts.hpp>
#include <iostream>

namespace cake::cli {
namespace {

int fail(const std::string &message, int code) {
  return reportFailure("cake calibrate", message, code);
}

int fitFamilies(const Results &results, cost::Calibration cal, bool haveBase, double threshold,
                const std::string &out) {
  std::optional<cost::Calibration> given;
  if (haveBase)
    given = cal;
  std::vector<cost::Run> runs = estimateRuns(results, given, false);
  auto fitted = cost::fitCorrections(runs);
  if (fitted.empty())
    return fail("no run has both a measurement and a prediction", InputErrors);
  if (!haveBase || !cost::describes(cal, Target::SM90a)) {
    // start from the calibration the runs were estimated with
    std::string note;
    for (const ResultRun &r : results.runs) {
      if (auto f = checkCakeFile(r.file, r.instance, r.params, r.rings); f)
        for (const sema::Kernel &k : (*f)->check.model->kernels)
          if (k.decl->name.name == r.kernel) {
            cal = calibrationFor(k.target, given, note);
            break;
          }
      break;
    }
  }
  if (!results.device.empty())
    cal.device = results.device;
  for (auto &[key, factor] : fitted) {
    cal.familyCorrection[key] = factor;
    std::cerr << "family " << key << ": correction " << factor << "\n";
  }
  cal.calibrated = true;
  for (const cost::Run &r : runs) {
    if (!r.predicted || !r.ok || r.measuredSeconds <= 0)
      continue;
    double corrected = *r.predicted * cal.familyCorrection[r.key];
    double error = corrected / r.measuredSeconds - 1;
    if (std::fabs(error) > threshold)
      std::cerr << "misprediction: " << r.kernel << " (" << r.family << ") measured " << r.measuredSeconds * 1e3
                << " ms, predicted " << corrected * 1e3 << " ms (" << std::lround(error * 100) << "%)\n";
  }
  if (auto error = writeFileAtomically(out, calibrationJson(cal)); !error)
    return fail(error.error().message, UsageError);
  return Success;
}

int fitMicrobenchmarks(const Results &results, cost::Calibration cal, const std::string &out) {
  std::vector<cost::MicroRun> micro;
  for (const ResultRun &r : results.runs)
    if (r.family.starts_with("micro.") && r.ok)
      micro.push_back({r.family, r.medianMs / 1e3, r.bytes, r.flops, r.count});
  if (!results.device.empty())
    cal.device = results.device;
  auto log = cost::fitMicro(micro, cal);
  if (log.empty())
    return fail("no microbenchmark run (family micro.*) with bytes, flops or a time", InputErrors);
  for (const std::string &line : log)
    std::cerr << line << "\n";
  if (auto error = writeFileAtomically(out, calibrationJson(cal)); !error)
    return fail(error.error().message, UsageError);
  return Success;
}

} // namespace

int runCalibrate(int argc, char **argv) {
  cxxopts::Options o("cake calibrate", "Fit the cost model's calibration from measured results.");
  o.add_options()("from", "Results of kernels: refit the per-family corrections", cxxopts::value<std::string>())(
      "micro", "Results of microbenchmarks: fit the machine numbers", cxxopts::value<std::string>())(
      "calibration", "The calibration to start from (default: the target's)", cxxopts::value<std::string>())(
      "o,output", "The calibration file to write", cxxopts::value<std::string>())(
      "threshold", "Log runs mispredicted past this error", cxxopts::value<double>()->default_value("0.25"))(
      "h,help", "Show this help");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("output") || args.count("from") == args.count("micro"))
    return fail("one of --from or --micro, and -o OUT.json, are needed", UsageError);
  cost::Calibration cal = cost::defaultCalibration(Target::SM90a);
  bool haveBase = args.count("calibration") > 0;
  if (haveBase)
    if (auto error = readCalibration(args["calibration"].as<std::string>(), cal); !error)
      return fail(error.error().message, UsageError);
  Results results;
  std::string path = args.count("from") ? args["from"].as<std::string>() : args["micro"].as<std::string>();
  if (auto error = readResults(path, results); !error)
    return fail(error.error().message, UsageError);
  std::string out = args["output"].as<std::string>();
  return args.count("from") ? fitFamilies(results, cal, haveBase, args["threshold"].as<double>(), out)
                            : fitMicrobenchmarks(results, cal, out);
}

} // namespace cake::cli
