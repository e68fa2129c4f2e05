//===- TuneDb.cpp - The tuning database -----------------------------------===//
#include "formats/TuneDb.h"

#include "formats/FailureLog.h"

#include <cerrno>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/file.h>
#include <unistd.h>

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

bool appendTuneRow(const std::string &path, const nlohmann::ordered_json &row) {
  std::error_code ec;
  if (const auto dir = std::filesystem::path(path).parent_path(); !dir.empty())
    std::filesystem::create_directories(dir, ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return false;
  const std::string line = row.dump() + "\n";
  bool ok = ::flock(fd, LOCK_EX) == 0;
  for (size_t done = 0; ok && done < line.size();) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    ok = n > 0;
    done += ok ? static_cast<size_t>(n) : 0;
  }
  ::flock(fd, LOCK_UN);
  return ::close(fd) == 0 && ok;
}

std::string tuneDbPathFor(const std::string &file) {
  std::string dir = projectDataDir(file);
  return dir.empty() ? "" : (std::filesystem::path(dir) / "tune.jsonl").string();
}

} // namespace cake::formats
