//===- Input.cpp - Reading source files for the CLI -----------------------===//
#include "cli/Input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cake::cli {
namespace {

std::optional<std::string> readStream(std::istream &in, const std::string &path, std::string &text) {
  text.clear();
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes)
      return path + ": input larger than " + std::to_string(kMaxInputBytes >> 20) + " MiB";
  }
  if (in.bad())
    return path + ": read error: " + std::strerror(errno);
  return std::nullopt;
}

} // namespace

std::optional<std::string> readInput(const std::string &path, std::string &text) {
  if (path == "-")
    return readStream(std::cin, "<stdin>", text);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return path + ": is a directory";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return path + ": cannot open: " + std::strerror(errno);
  return readStream(in, path, text);
}

std::optional<std::string> writeFileAtomically(const std::string &path, const std::string &text) {
  std::string tmp = path + ".cake-fmt.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())))
      return tmp + ": cannot write: " + std::strerror(errno);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return path + ": cannot replace: " + ec.message();
  }
  return std::nullopt;
}

} // namespace cake::cli
