//===- CostSupport.h - Calibration and results files for cost/calibrate -*- C++ -*-===//
//
// Part of CAKE. The JSON side of the cost model, shared by `cake cost` and
// `cake calibrate` (and the language server's hover): reading and writing
// calibration files (bench/calibration/*.json), reading measured results
// (written by `cake bench`), and estimating a results run from its file.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cost/Validate.h"
#include "compiler/driver/Check.h"

#include "diagnostics/Expected.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace cake::formats {

/// Reads a calibration file; an error is one sentence.
Status readCalibration(const std::string &path, cost::Calibration &out);
/// The calibration file as JSON text.
std::string calibrationJson(const cost::Calibration &cal);

/// The calibration for \p target: \p given when it describes the target's
/// GPU, else the repository's bench/calibration/<gpu>.json when present,
/// else the target's datasheet figures. \p note says which, in words.
cost::Calibration calibrationFor(Target target, const std::optional<cost::Calibration> &given, std::string &note);

/// One run of a results file.
struct ResultRun {
  std::string file, kernel, family, problem;
  std::string instance; ///< the manifest instantiation of a file with parameters ("" = its defaults)
  std::map<std::string, std::string> params; ///< or the parameters bound directly (a tuning database's runs)
  std::map<std::string, int64_t> rings;       ///< ring depths the stages tactic rewrote (a tuning database's)
  cost::Sizes sizes;
  double medianMs = 0;
  bool ok = true;
  double bytes = 0, flops = 0, count = 0; ///< microbenchmarks
};
struct Results {
  std::string device, commit;
  std::vector<ResultRun> runs;
};
/// A results file (`cake bench`'s), or a tuning database (a .jsonl: `cake tune`'s runs, one result per kernel
/// of each run that passed and recorded the kernels' own times).
Status readResults(const std::string &path, Results &out);

/// A checked .cake file, kept alive for its model.
struct CheckedFile {
  SourceManager sm;
  FileId file;
  CheckResult check;
};
/// Reads and checks \p path (as given, else relative to the source tree); an
/// Io or Source error when it cannot be read or has errors.
/// With \p instance, the manifest beside the file names the instantiation
/// checked (formats/Manifest.h); with \p params, they are bound directly; else
/// a file with parameters takes its defaults. \p rings: depths the stages
/// tactic writes first (a tuning database's runs of rewritten depths).
[[nodiscard]] Expected<std::unique_ptr<CheckedFile>> checkCakeFile(const std::string &path,
                                                                   const std::string &instance = "",
                                                                   const std::map<std::string, std::string> &params = {},
                                                                   const std::map<std::string, int64_t> &rings = {});

/// Estimates every run of \p results (each file checked once) with the
/// calibration for its target, \p withCorrections or without them.
std::vector<cost::Run> estimateRuns(const Results &results, const std::optional<cost::Calibration> &given,
                                    bool withCorrections);

} // namespace cake::formats
