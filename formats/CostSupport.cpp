//===- CostSupport.cpp - Calibration and results files ----------------------===//
#include "formats/CostSupport.h"

#include "compiler/driver/Tactics.h"
#include "formats/TuneDb.h"

#include "formats/Input.h"
#include "formats/Manifest.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

namespace cake::formats {
namespace {

using json = nlohmann::ordered_json;

/// The target whose GPU \p device names ("NVIDIA H200" -> sm_90a).
std::optional<Target> targetOfDevice(const std::string &device) {
  for (Target t : {Target::SM80, Target::SM90a, Target::SM100a})
    if (device.find(targetDesc(t).example) != std::string::npos)
      return t;
  return std::nullopt;
}

std::string lower(std::string s) {
  for (char &c : s)
    c = char(std::tolower(uint8_t(c)));
  return s;
}

} // namespace

Status readCalibration(const std::string &path, cost::Calibration &out) {
  std::string text;
  if (auto error = readJsonInput(path, text); !error)
    return error;
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Error(Error::InvalidArgument, path + ": not a JSON object");
  try {
    if (doc.value("version", 0) != 1)
      return Error(Error::InvalidArgument, path + ": a calibration file of version 1 is expected");
    std::string device = doc.value("device", std::string());
    out = cost::defaultCalibration(targetOfDevice(device).value_or(Target::SM90a));
    out.device = device;
    out.calibrated = doc.value("calibrated", false);
    out.smCount = doc.value("sm_count", out.smCount);
    out.dramBytesPerSecond = doc.value("dram_bytes_per_s", out.dramBytesPerSecond);
    out.l2BytesPerSecond = doc.value("l2_bytes_per_s", out.l2BytesPerSecond);
    out.tmaBytesPerSecondPerSm = doc.value("tma_bytes_per_s_per_sm", out.tmaBytesPerSecondPerSm);
    out.wgmmaFlopsPerSecondPerSm = doc.value("wgmma_flops_per_s_per_sm", out.wgmmaFlopsPerSecondPerSm);
    out.mmaSyncFlopsPerSecondPerSm = doc.value("mma_sync_flops_per_s_per_sm", out.mmaSyncFlopsPerSecondPerSm);
    out.tcgen05FlopsPerSecondPerSm = doc.value("tcgen05_flops_per_s_per_sm", out.tcgen05FlopsPerSecondPerSm);
    out.launchOverheadSeconds = doc.value("launch_overhead_s", out.launchOverheadSeconds);
    out.mbarrierRoundTripSeconds = doc.value("mbarrier_round_trip_s", out.mbarrierRoundTripSeconds);
    out.l2Bytes = doc.value("l2_bytes", out.l2Bytes);
    out.smemBytesPerSecondPerSm = doc.value("smem_bytes_per_s_per_sm", out.smemBytesPerSecondPerSm);
    out.memoryLatencySeconds = doc.value("memory_latency_s", out.memoryLatencySeconds);
    out.issueSecondsPerOp = doc.value("issue_s_per_op", out.issueSecondsPerOp);
    out.smClockHz = doc.value("sm_clock_hz", out.smClockHz);
    if (doc.contains("family_correction"))
      for (auto &[key, v] : doc["family_correction"].items())
        out.familyCorrection[key] = v.get<double>();
  } catch (const json::exception &e) {
    return Error(Error::InvalidArgument, path + ": " + e.what());
  }
  if (out.smCount < 1 || !(out.dramBytesPerSecond > 0) || !(out.tmaBytesPerSecondPerSm > 0))
    return Error(Error::InvalidArgument, path + ": sm_count, dram_bytes_per_s and tma_bytes_per_s_per_sm must be positive");
  // a negative (or not finite) rate would price work at negative or infinite time, a negative latency would
  // subtract: a silently wrong answer (issue #16). 0 is a unit the target lacks (tcgen05 on sm_90a).
  const std::pair<const char *, double> rates[] = {
      {"dram_bytes_per_s", out.dramBytesPerSecond},         {"l2_bytes_per_s", out.l2BytesPerSecond},
      {"tma_bytes_per_s_per_sm", out.tmaBytesPerSecondPerSm}, {"wgmma_flops_per_s_per_sm", out.wgmmaFlopsPerSecondPerSm},
      {"mma_sync_flops_per_s_per_sm", out.mmaSyncFlopsPerSecondPerSm},
      {"tcgen05_flops_per_s_per_sm", out.tcgen05FlopsPerSecondPerSm},
      {"smem_bytes_per_s_per_sm", out.smemBytesPerSecondPerSm}, {"sm_clock_hz", out.smClockHz},
      {"l2_bytes", out.l2Bytes}};
  for (const auto &[name, v] : rates)
    if (!(v >= 0) || !std::isfinite(v))
      return Error(Error::InvalidArgument, path + ": " + name + " must be a finite number, not negative");
  const std::pair<const char *, double> times[] = {{"launch_overhead_s", out.launchOverheadSeconds},
                                                   {"mbarrier_round_trip_s", out.mbarrierRoundTripSeconds},
                                                   {"memory_latency_s", out.memoryLatencySeconds},
                                                   {"issue_s_per_op", out.issueSecondsPerOp}};
  for (const auto &[name, v] : times)
    if (!(v >= 0) || !std::isfinite(v))
      return Error(Error::InvalidArgument, path + ": " + name + " must be a non-negative finite number of seconds");
  for (const auto &[family, v] : out.familyCorrection)
    if (!(v > 0) || !std::isfinite(v))
      return Error(Error::InvalidArgument,
                   path + ": family_correction[\"" + family + "\"] must be a positive finite factor");
  return Ok{};
}

std::string calibrationJson(const cost::Calibration &c) {
  json doc = {{"version", 1},
              {"device", c.device},
              {"calibrated", c.calibrated},
              {"sm_count", c.smCount},
              {"dram_bytes_per_s", c.dramBytesPerSecond},
              {"l2_bytes_per_s", c.l2BytesPerSecond},
              {"tma_bytes_per_s_per_sm", c.tmaBytesPerSecondPerSm},
              {"wgmma_flops_per_s_per_sm", c.wgmmaFlopsPerSecondPerSm},
              {"mma_sync_flops_per_s_per_sm", c.mmaSyncFlopsPerSecondPerSm},
              {"tcgen05_flops_per_s_per_sm", c.tcgen05FlopsPerSecondPerSm},
              {"launch_overhead_s", c.launchOverheadSeconds},
              {"mbarrier_round_trip_s", c.mbarrierRoundTripSeconds},
              {"l2_bytes", c.l2Bytes},
              {"smem_bytes_per_s_per_sm", c.smemBytesPerSecondPerSm},
              {"memory_latency_s", c.memoryLatencySeconds},
              {"issue_s_per_op", c.issueSecondsPerOp},
              {"sm_clock_hz", c.smClockHz},
              {"family_correction", json::object()}};
  for (auto &[key, v] : c.familyCorrection)
    doc["family_correction"][key] = v;
  return doc.dump(2) + "\n";
}

cost::Calibration calibrationFor(Target target, const std::optional<cost::Calibration> &given, std::string &note) {
  if (given && cost::describes(*given, target)) {
    note = "calibration of " + given->device;
    return *given;
  }
  std::string gpu = lower(std::string(targetDesc(target).example));
  for (std::string root : {std::string("."), std::string(CAKE_SOURCE_DIR)}) {
    std::string path = root + "/bench/calibration/" + gpu + ".json";
    cost::Calibration cal;
    if (std::filesystem::exists(path) && readCalibration(path, cal) && cost::describes(cal, target)) {
      note = (given ? given->device + " does not describe " + std::string(targetName(target)) + "; " : "") +
             "bench/calibration/" + gpu + ".json";
      return cal;
    }
  }
  note = (given ? given->device + " does not describe " + std::string(targetName(target)) + "; " : "") +
         "datasheet figures of the " + std::string(targetDesc(target).example);
  return cost::defaultCalibration(target);
}

namespace {

/// A tuning database as results: each run that passed and recorded its kernels' own times, one result per
/// kernel (its family: the kernel's, cost::kernelFamily), with the run's bindings and ring depths.
Status readTuneResults(const std::string &path, Results &out) {
  if (!std::filesystem::exists(path))
    return Error(Error::Io, path + ": no such file");
  for (const json &e : readTuneDb(path)) {
    const json &k = e["key"];
    if (e.value("status", "") != "ok" || !e.contains("kernels") || !e["kernels"].is_object() ||
        !k["sizes"].is_object())
      continue;
    if (out.device.empty())
      out.device = e.value("device", "");
    for (const auto &[kernel, ms] : e["kernels"].items()) {
      if (!ms.is_number())
        continue;
      ResultRun run;
      run.file = e.value("file", "");
      run.kernel = kernel;
      for (const auto &[name, value] : k["sizes"].items())
        if (value.is_number_integer())
          run.sizes[name] = value.get<int64_t>();
      if (k["params"].is_object())
        for (const auto &[name, value] : k["params"].items())
          if (value.is_string())
            run.params[name] = value.get<std::string>();
      if (k.contains("rings") && k["rings"].is_object())
        for (const auto &[name, value] : k["rings"].items())
          if (value.is_number_integer())
            run.rings[name] = value.get<int64_t>();
      run.medianMs = ms.get<double>();
      out.runs.push_back(std::move(run));
    }
  }
  return Ok{};
}

} // namespace

Status readResults(const std::string &path, Results &out) {
  if (std::filesystem::path(path).extension() == ".jsonl")
    return readTuneResults(path, out);
  std::string text;
  if (auto error = readJsonInput(path, text); !error)
    return error;
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array())
    return Error(Error::InvalidArgument, path + ": not a results file (a JSON object with \"runs\")");
  try {
    out.device = doc.value("device", std::string());
    out.commit = doc.value("commit", std::string());
    for (const json &r : doc["runs"]) {
      ResultRun run;
      run.file = r.value("file", std::string());
      run.kernel = r.value("kernel", std::string());
      run.instance = r.value("instance", std::string());
      run.family = r.value("family", std::string());
      run.problem = r.value("problem", run.family);
      if (r.contains("sizes"))
        for (auto &[k, v] : r["sizes"].items())
          run.sizes[k] = v.get<int64_t>();
      run.medianMs = r.value("median_ms", 0.0);
      run.ok = r.value("ok", true);
      run.bytes = r.value("bytes", 0.0);
      run.flops = r.value("flops", 0.0);
      run.count = r.value("count", 0.0);
      out.runs.push_back(std::move(run));
    }
  } catch (const json::exception &e) {
    return Error(Error::InvalidArgument, path + ": " + e.what());
  }
  return Ok{};
}

Expected<std::unique_ptr<CheckedFile>> checkCakeFile(const std::string &path, const std::string &instance,
                                                     const std::map<std::string, std::string> &params,
                                                     const std::map<std::string, int64_t> &rings) {
  std::string where = path;
  if (!std::filesystem::exists(where) && std::filesystem::exists(std::string(CAKE_SOURCE_DIR) + "/" + path))
    where = std::string(CAKE_SOURCE_DIR) + "/" + path;
  std::string text;
  if (auto e = readInput(where, text); !e)
    return e.takeError();
  for (const auto &[ring, depth] : rings) {
    auto r = applyTactic(path, text, "stages", {{"ring", ring}, {"to", std::to_string(depth)}});
    if (!r)
      return r.takeError();
    text = std::move(r->text);
  }
  auto f = std::make_unique<CheckedFile>();
  f->file = f->sm.addBuffer(path, std::move(text));
  CheckOptions options;
  if (!params.empty()) {
    sema::Instantiation inst;
    for (const auto &[name, value] : params)
      inst.bindings.push_back({name, value, std::nullopt});
    options.instantiations.push_back(std::move(inst));
    f->check = checkSource(f->sm, f->file, options);
  } else if (!instance.empty()) {
    std::vector<std::string> errors;
    const library::Instance *found = nullptr;
    std::vector<library::Manifest> manifests = manifestsFor(f->sm, where, errors);
    for (const library::Manifest &m : manifests)
      if (const library::Instance *i = m.instance(instance); i && !instancesOf(m, where).empty())
        found = i;
    if (!found)
      return Error(Error::InvalidArgument, "no manifest beside " + path + " lists the instantiation '" + instance +
                                               "'" + (errors.empty() ? std::string() : " (" + errors.front() + ")"));
    options.instantiations.push_back(found->instantiation());
    f->check = checkSource(f->sm, f->file, options);
  } else {
    f->check = checkSource(f->sm, f->file, options);
  }
  if (!f->check.model || countErrors(f->check.diagnostics))
    return Error(Error::Source, path + " has errors (run cake check)", f->check.diagnostics);
  return f;
}

std::vector<cost::Run> estimateRuns(const Results &results, const std::optional<cost::Calibration> &given,
                                    bool withCorrections) {
  std::map<std::string, std::unique_ptr<CheckedFile>> files;
  std::map<std::string, std::string> errors;
  std::vector<cost::Run> out;
  for (const ResultRun &r : results.runs) {
    cost::Run run;
    run.file = r.file;
    run.kernel = r.kernel;
    run.family = r.family;
    run.problem = r.problem;
    run.sizes = r.sizes;
    run.measuredSeconds = r.medianMs / 1e3;
    run.ok = r.ok;
    std::string key = r.file + (r.instance.empty() ? "" : "@" + r.instance);
    for (const auto &[name, value] : r.params)
      key += " " + name + "=" + value;
    for (const auto &[name, depth] : r.rings)
      key += " stages " + name + "=" + std::to_string(depth);
    if (!files.count(key)) {
      auto checked = checkCakeFile(r.file, r.instance, r.params, r.rings);
      errors[key] = checked ? std::string() : checked.error().message;
      files[key] = checked ? std::move(*checked) : nullptr;
    }
    const CheckedFile *f = files[key].get();
    const sema::Kernel *k = nullptr;
    if (f)
      for (const sema::Kernel &candidate : f->check.model->kernels)
        if (candidate.decl->name.name == r.kernel)
          k = &candidate;
    if (!k) {
      run.why = f ? "no kernel '" + r.kernel + "' in " + key : errors[key];
      out.push_back(std::move(run));
      continue;
    }
    std::string note;
    cost::Calibration cal = calibrationFor(k->target, given, note);
    if (!withCorrections)
      cal.familyCorrection.clear();
    run.key = cost::familyKey(r.family.empty() ? cost::kernelFamily(r.kernel) : r.family, k->target);
    cost::Estimate e = cost::estimate(*k, r.sizes, cal, r.family);
    run.predicted = e.seconds;
    for (const sema::Ring &ring : k->rings)
      run.sharedBytes += double(ring.stageBytes().value_or(0) * ring.stages.value_or(1));
    for (const sema::Buffer &b : k->buffers)
      run.sharedBytes += double(b.type.bytes().value_or(0));
    if (!e.seconds)
      run.why = e.reasons.empty() ? "outside the model" : e.reasons.back();
    out.push_back(std::move(run));
  }
  return out;
}

} // namespace cake::formats
