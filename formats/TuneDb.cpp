//===- TuneDb.cpp - The tuning database -----------------------------------===//
#include "formats/TuneDb.h"

#include "formats/FailureLog.h"

#include <filesystem>
#include <fstream>

namespace cake::formats {

nlohmann::ordered_json tuneKey(const std::string &ir, const std::string &targets, const cost::Sizes &sizes,
                               const std::map<std::string, std::string> &params,
                               const std::map<std::string, int64_t> &rings, const std::string &run,
                               const std::map<std::string, int64_t> &groups) {
  nlohmann::ordered_json key = {{"ir", ir}, {"targets", targets}, {"sizes", sizes}, {"params", params}, {"run", run}};
  if (!rings.empty())
    key["rings"] = rings;
  if (!groups.empty())
    key["groups"] = groups;
  return key;
}

std::vector<nlohmann::ordered_json> readTuneDb(const std::string &path) {
  std::vector<nlohmann::ordered_json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::ordered_json::parse(line, nullptr, false); j.is_object() && j.contains("key") &&
                                                                       j["key"].is_object())
      out.push_back(std::move(j));
  return out;
}

std::string tuneDbPathFor(const std::string &file) {
  std::string dir = projectDataDir(file);
  return dir.empty() ? "" : (std::filesystem::path(dir) / "tune.jsonl").string();
}

} // namespace cake::formats
