//===- Input.cpp - Reading source files for the CLI -----------------------===//
#include "formats/Input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cake::formats {
namespace {

Status readStream(std::istream &in, const std::string &path, std::string &text) {
  text.clear();
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxInputBytes)
      return Error(Error::Io, path + ": input larger than " + std::to_string(kMaxInputBytes >> 20) + " MiB");
  }
  if (in.bad())
    return Error(Error::Io, path + ": read error: " + std::strerror(errno));
  return Ok{};
}

} // namespace

Status readInput(const std::string &path, std::string &text) {
  if (path == "-")
    return readStream(std::cin, "<stdin>", text);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error(Error::Io, path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error(Error::Io, path + ": cannot open: " + std::strerror(errno));
  return readStream(in, path, text);
}

Status writeFileAtomically(const std::string &path, const std::string &text) {
  std::string tmp = path + ".cake-fmt.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())))
      return Error(Error::Io, tmp + ": cannot write: " + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Error(Error::Io, path + ": cannot replace: " + ec.message());
  }
  return Ok{};
}

} // namespace cake::formats
