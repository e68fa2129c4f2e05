//===- TuneDb.h - The tuning database ---------------------------*- C++ -*-===//
//
// Part of CAKE (issue #21). `cake tune`'s measurements, one JSON object a line
// in <project>/.cake/tune.jsonl:
//   {"key": {"ir": HASH, "targets": "sm_90a,...", "sizes": {...}, "params": {...},
//            "run": "ARGS of cake run", ["rings": {NAME: depth}], ["groups": {KERNEL: raster group}]},
//    "file": PATH, "time": UNIX, "predicted_ms": X, "held": [the parameters -p held], "ms": Y,
//    "status": "ok" | ..., "message", "device"}
// Written by cake tune (cli/TuneCommand.cpp), read by it (a tune resumes, and
// learns each schedule's distance from the model) and by `cake dispatch
// explain --db` (what was measured at the problem the dispatcher chose for)
// and `cake evolve` (edits that repeatedly improved measured time: cli/EvolveTactics.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cost/Cost.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cake::formats {

/// The key of one measurement: the file's IR hash (hashText), its kernels' targets, the sizes, every
/// parameter's value, cake run's arguments, the depths of the rings written with a number (when the
/// file has such rings), and the raster group of each persistent kernel whose schedule names one (when
/// the tune searched them: the persistent tactic's).
nlohmann::ordered_json tuneKey(const std::string &ir, const std::string &targets, const cost::Sizes &sizes,
                               const std::map<std::string, std::string> &params,
                               const std::map<std::string, int64_t> &rings, const std::string &run,
                               const std::map<std::string, int64_t> &groups = {});

/// The database's entries in the order written (lines that are not an object with a key are skipped: a
/// line cut short by an interrupted tune costs that line only); empty when the file does not exist.
std::vector<nlohmann::ordered_json> readTuneDb(const std::string &path);

/// The database of the project holding \p file: projectDataDir(file)/tune.jsonl; "" in no project.
std::string tuneDbPathFor(const std::string &file);

/// Appends \p row to the database at \p path as one line, safe for concurrent writers (the workers of `cake
/// tune --gpus`, the shards of a cluster's tune on a shared folder): the file is opened for appending, locked
/// (flock, exclusive) and written in one call, so lines never interleave. False when it cannot be written.
bool appendTuneRow(const std::string &path, const nlohmann::ordered_json &row);

} // namespace cake::formats
