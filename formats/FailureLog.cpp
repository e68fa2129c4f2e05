//===- FailureLog.cpp - The project's log of outcomes ---------------------===//
#include "formats/FailureLog.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

namespace cake::formats {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string hashText(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text)
    h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string logPathFor(const std::string &file) {
  if (const char *env = std::getenv("CAKE_LOG"); env && *env)
    return std::string(env) == "0" ? std::string() : std::string(env);
  std::string dir = projectDataDir(file);
  return dir.empty() ? dir : (fs::path(dir) / "log.jsonl").string();
}

std::string projectDataDir(const std::string &file) {
  std::error_code ec;
  fs::path parent = file == "-" ? fs::path() : fs::path(file).parent_path();
  fs::path dir = fs::absolute(parent.empty() ? fs::path(".") : parent, ec).lexically_normal();
  if (ec)
    return {};
  if (dir.filename().empty()) // "/work/main/" after normalizing "./."
    dir = dir.parent_path();
  for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
    if (fs::exists(d / ".git", ec) || fs::exists(d / ".cake", ec))
      return (d / ".cake").string();
    if (d == d.parent_path())
      break;
  }
  return {}; // a file of no project: no project log (a .cake folder of its own would capture every folder below)
}

Status appendEvent(const std::string &path, const LogEvent &e) {
  json j = {{"time", e.time},   {"command", e.command}, {"stage", e.stage},       {"file", e.file},
            {"ir", e.irHash},   {"errors", e.errors},   {"warnings", e.warnings}, {"ok", e.ok}};
  if (!e.kernel.empty())
    j["kernel"] = e.kernel;
  if (!e.instance.empty())
    j["instance"] = e.instance;
  if (!e.sizes.empty())
    j["sizes"] = e.sizes;
  if (e.ms)
    j["ms"] = *e.ms;
  if (!e.device.empty())
    j["device"] = e.device;
  if (!e.args.empty())
    j["args"] = e.args;
  if (!e.cwd.empty())
    j["cwd"] = e.cwd;
  std::string line = j.dump() + "\n";
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error(Error::Io, "cannot open the log " + path);
  ssize_t n = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size()))
    return Error(Error::Io, "cannot append to the log " + path);
  return Ok{};
}

Expected<std::vector<LogEvent>> readLog(const std::string &path, size_t *skipped) {
  std::vector<LogEvent> out;
  if (skipped)
    *skipped = 0;
  std::ifstream in(path);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec))
      return out;
    return Error(Error::Io, "cannot read the log " + path);
  }
  auto strings = [](const json &j, const char *key) {
    std::vector<std::string> v;
    if (j.contains(key) && j[key].is_array())
      for (const json &x : j[key])
        if (x.is_string())
          v.push_back(x.get<std::string>());
    return v;
  };
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("file") || !j["file"].is_string() || !j.contains("ok") ||
        !j["ok"].is_boolean()) {
      if (skipped && !line.empty())
        ++*skipped;
      continue;
    }
    LogEvent e;
    e.time = j.value("time", "");
    e.command = j.value("command", "");
    e.stage = j.value("stage", "");
    e.file = j["file"].get<std::string>();
    e.irHash = j.value("ir", "");
    e.errors = strings(j, "errors");
    e.warnings = strings(j, "warnings");
    e.ok = j["ok"].get<bool>();
    e.kernel = j.value("kernel", "");
    e.instance = j.value("instance", "");
    if (j.contains("sizes") && j["sizes"].is_object())
      for (auto it = j["sizes"].begin(); it != j["sizes"].end(); ++it)
        if (it.value().is_number_integer())
          e.sizes[it.key()] = it.value().get<int64_t>();
    if (j.contains("ms") && j["ms"].is_number())
      e.ms = j["ms"].get<double>();
    e.device = j.value("device", "");
    e.args = strings(j, "args");
    e.cwd = j.value("cwd", "");
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<bool> fixedByNext(const std::vector<LogEvent> &events) {
  std::vector<bool> fixed(events.size(), false);
  std::map<std::string, size_t> lastFailure; // file -> the failing event awaiting its next change
  for (size_t i = 0; i < events.size(); ++i) {
    const LogEvent &e = events[i];
    auto it = lastFailure.find(e.file);
    if (it != lastFailure.end() && events[it->second].irHash != e.irHash) {
      fixed[it->second] = e.ok;
      lastFailure.erase(it);
    }
    if (!e.ok)
      lastFailure[e.file] = i;
  }
  return fixed;
}

std::string irPathFor(const std::string &log, const std::string &hash) {
  return (fs::path(log).parent_path() / "ir" / (hash + ".cake")).string();
}

Status keepIr(const std::string &log, const std::string &hash, std::string_view text) {
  std::string path = irPathFor(log, hash);
  std::error_code ec;
  if (fs::exists(path, ec))
    return Ok{};
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())))
      return Error(Error::Io, "cannot write " + tmp);
  }
  fs::rename(tmp, path, ec); // atomic: a reader sees the whole text or none
  if (ec)
    return Error(Error::Io, "cannot write " + path);
  return Ok{};
}

bool isToolFinding(std::string_view code) { return code.starts_with("ptxas."); }

std::vector<std::string> findingsOf(const LogEvent &e) {
  std::vector<std::string> out = e.errors;
  for (const std::string &w : e.warnings)
    if (isToolFinding(w))
      out.push_back(w);
  return out;
}

void logOutcome(std::string_view command, const std::string &path, std::string_view ir,
                const std::vector<Diagnostic> &found, std::string stage, const RunDetails &run) {
  if (path == "-")
    return;
  std::string log = logPathFor(path);
  if (log.empty())
    return;
  LogEvent e;
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  e.time = buf;
  e.command = std::string(command);
  e.file = path;
  e.irHash = hashText(ir);
  std::set<std::string> errors, warnings;
  for (const Diagnostic &d : found)
    if (!d.code.empty())
      (d.severity == Severity::Error ? errors : warnings).insert(d.code);
  e.errors.assign(errors.begin(), errors.end());
  e.warnings.assign(warnings.begin(), warnings.end());
  e.ok = errors.empty();
  if (stage.empty())
    stage = std::any_of(errors.begin(), errors.end(), [](const std::string &c) { return c.starts_with("lower."); })
                ? "lower"
                : "static";
  e.stage = std::move(stage);
  static_cast<RunFields &>(e) = run;
  if (!run.args.empty() || command == "build") {
    std::error_code ec;
    e.cwd = fs::current_path(ec).string();
  }
  if (!e.ok)
    e.ms.reset();
  // a failing IR (or one the tool chain found wanting) is kept beside the log, for `cake evolve` to reduce
  if (!e.ok || std::any_of(e.warnings.begin(), e.warnings.end(), [](const std::string &w) { return isToolFinding(w); }))
    (void)keepIr(log, e.irHash, ir);
  (void)appendEvent(run.eventPath.empty() ? log : run.eventPath, e);
}

bool forwardEvents(const std::string &eventPath, const std::string &log) {
  auto events = readLog(eventPath);
  std::error_code ec;
  fs::remove(eventPath, ec);
  if (!events || events->empty())
    return false;
  for (const LogEvent &e : *events)
    (void)appendEvent(log, e);
  return true;
}

} // namespace cake::formats
