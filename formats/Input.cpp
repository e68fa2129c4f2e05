//===- Input.cpp - Reading source files for the CLI -----------------------===//
#include "formats/Input.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  if (path == "-") {
    // A closed standard input reads as empty through std::cin, which made
    // `cake check - <&-` a clean empty file, exit 0 (issue #16).
    if (::fcntl(STDIN_FILENO, F_GETFD) == -1)
      return Error(Error::Io, std::string("<stdin>: cannot read: ") + std::strerror(errno));
    return readStream(std::cin, "<stdin>", text);
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error(Error::Io, path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Error(Error::Io, path + ": cannot open: " + std::strerror(errno));
  return readStream(in, path, text);
}

Status writeFileAtomically(const std::string &path, const std::string &text) {
  namespace fs = std::filesystem;
  // A symlinked source is written through: the link stays a link, its target
  // gets the text (issue #16: replacing the link made it a regular file). A
  // path that does not exist yet is simply created.
  std::error_code missing;
  fs::path target = path;
  if (fs::is_symlink(path, missing)) {
    std::error_code ec;
    target = fs::canonical(path, ec);
    if (ec)
      return Error(Error::Io, path + ": cannot resolve the link: " + ec.message());
  }
  struct stat st {};
  bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return Error(Error::Io, path + ": not a regular file");
  // The temporary is created exclusively in the target's directory with a
  // name of our own (mkstemp: O_CREAT | O_EXCL, so a planted file or link
  // there is never followed), then renamed over the target: a reader sees the
  // old text or the new one, never half of it.
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string tmp = (dir / ".cake-write-XXXXXX").string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return Error(Error::Io, path + ": cannot create a temporary file in " + dir.string() + ": " +
                                std::strerror(errno));
  auto fail = [&](const std::string &what) -> Status {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return Error(Error::Io, path + ": " + what + ": " + std::strerror(err));
  };
  // The file keeps its mode (a 0600 file stays 0600); a new one gets 0644
  // less the umask, as a plain create would.
  mode_t mode = exists ? (st.st_mode & 07777) : 0666;
  if (!exists) {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  if (::fchmod(fd, mode) != 0)
    return fail("cannot set the mode");
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail("cannot write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    return fail("cannot write");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error(Error::Io, path + ": cannot write: " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error(Error::Io, path + ": cannot replace: " + std::strerror(err));
  }
  return Ok{};
}

bool jsonNestedDeeperThan(std::string_view json, int limit) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (char c : json) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Status readJsonInput(const std::string &path, std::string &text) {
  if (auto read = readInput(path, text); !read)
    return read;
  if (jsonNestedDeeperThan(text))
    return Error(Error::InvalidArgument,
                 path + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  return Ok{};
}

} // namespace cake::formats
