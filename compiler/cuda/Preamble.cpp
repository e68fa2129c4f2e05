//===- Preamble.cpp - The includes of a .cu file, precompiled once --------===//
#include "compiler/cuda/Preamble.h"

#include "compiler/cuda/ClangSupport.h"

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/HeaderSearch.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/xxhash.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace cake::cuda::detail {
namespace {

/// The first line of a preamble's .deps; a cache of another format is rebuilt (2: the PCH's main file named by
/// the key, not by the first file checked).
constexpr const char *kMagic = "cake-cuda-preamble 2";
/// The cache keeps this many preambles (a ThunderKittens one is 37 MB); the least recently used go first.
constexpr size_t kKeep = 24;

struct Dep {
  std::string path;
  uintmax_t size = 0;
  int64_t mtime = 0;
};

int64_t mtimeOf(const fs::path &p, std::error_code &ec) {
  return static_cast<int64_t>(fs::last_write_time(p, ec).time_since_epoch().count());
}

std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

/// One `file` line: a file the preamble read, with its size and time.
void writeFile(std::ostream &out, const Dep &d) {
  out << "file\t" << d.size << "\t" << d.mtime << "\t" << d.path << "\n";
}

/// Whether the file of a `file` line's fields (after "file") is as it was.
bool fileUnchanged(std::istringstream &fields) {
  std::string size, mtime, path;
  std::getline(fields, size, '\t');
  std::getline(fields, mtime, '\t');
  std::getline(fields, path);
  std::error_code ec;
  uintmax_t now = fs::file_size(path, ec);
  return !ec && now == std::stoull(size) && mtimeOf(path, ec) == std::stoll(mtime) && !ec;
}

/// Reads `<key>.deps`: whether every file the preamble read is as it was, and the errors of its build.
bool stillValid(const fs::path &deps, std::vector<ParseResult::Error> &errors) {
  std::ifstream in(deps);
  std::string line;
  if (!std::getline(in, line) || line != kMagic)
    return false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    std::getline(fields, kind, '\t');
    if (kind == "file") {
      if (!fileUnchanged(fields))
        return false;
    } else if (kind == "error") {
      ParseResult::Error e;
      std::string l, c;
      std::getline(fields, l, '\t');
      std::getline(fields, c, '\t');
      std::getline(fields, e.at.file, '\t');
      std::getline(fields, e.message);
      e.at.line = static_cast<uint32_t>(std::stoul(l));
      e.at.column = static_cast<uint32_t>(std::stoul(c));
      errors.push_back(std::move(e));
    } else {
      return false;
    }
  }
  return true;
}

/// Generates the PCH into `output` and lists the files it read (those on disk: the shim and the preamble
/// itself are virtual).
class Build : public clang::GeneratePCHAction {
public:
  Build(std::string output, std::vector<ParseResult::Error> &errors, std::vector<Dep> &deps, bool &fatal,
        std::vector<std::string> &searchDirs)
      : output_(std::move(output)), errors_(errors), deps_(deps), fatal_(fatal), searchDirs_(searchDirs) {}

protected:
  bool BeginInvocation(clang::CompilerInstance &ci) override {
    ci.getFrontendOpts().OutputFile = output_;
    // ThunderKittens' headers have asm Clang rejects (`%clusterid.x`); their errors are kept with the preamble
    ci.getPreprocessorOpts().AllowPCHWithCompilerErrors = true;
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef in) override {
    ci.getDiagnostics().setClient(new Errors(errors_, fatal_), /*ShouldOwnClient=*/true);
    return clang::GeneratePCHAction::CreateASTConsumer(ci, in);
  }
  void EndSourceFileAction() override {
    clang::GeneratePCHAction::EndSourceFileAction();
    for (const clang::DirectoryLookup &d : getCompilerInstance().getPreprocessor().getHeaderSearchInfo().search_dir_range())
      if (d.getDirRef())
        searchDirs_.push_back(d.getName().str());
    const clang::SourceManager &sm = getCompilerInstance().getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) {
      std::error_code ec;
      fs::path p = fs::absolute(it->first.getName().str(), ec);
      Dep d{p.string(), fs::file_size(p, ec), 0};
      if (!ec)
        d.mtime = mtimeOf(p, ec);
      if (!ec)
        deps_.push_back(std::move(d));
    }
  }

private:
  struct Errors : ErrorsOnly {
    Errors(std::vector<ParseResult::Error> &out, bool &fatal) : ErrorsOnly(out), fatal_(fatal) {}
    void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
      fatal_ |= level == clang::DiagnosticsEngine::Fatal;
      ErrorsOnly::HandleDiagnostic(level, info);
    }
    bool &fatal_;
  };
  std::string output_;
  std::vector<ParseResult::Error> &errors_;
  std::vector<Dep> &deps_;
  bool &fatal_;
  std::vector<std::string> &searchDirs_;
};

/// Where header \p name would appear under \p dir: its deepest folder that exists now (creating the header, or
/// a folder on its way, changes that folder's time).
fs::path deepestExisting(const fs::path &dir, const std::string &name) {
  fs::path at = dir;
  std::error_code ec;
  for (const fs::path &part : fs::path(name).parent_path()) {
    if (!fs::is_directory(at / part, ec))
      break;
    at /= part;
  }
  return at;
}

/// A preamble that stopped at a header not found: the files it read, and for each header it could not find
/// (from Clang's "'NAME' file not found") the folder where it would appear under each search folder and the
/// folder of each file read (quoted includes), with their times. Valid while all of them are as they were.
void writeMissing(const fs::path &at, const std::vector<Dep> &read, const std::vector<ParseResult::Error> &errors,
                  std::vector<std::string> searchDirs) {
  std::vector<std::string> missing;
  for (const ParseResult::Error &e : errors)
    if (size_t q = e.message.find('\''), r = e.message.find("' file not found");
        q != std::string::npos && r != std::string::npos && r > q)
      missing.push_back(e.message.substr(q + 1, r - q - 1));
  if (missing.empty())
    return; // another fatal error: nothing to wait for, nothing kept
  for (const Dep &d : read)
    searchDirs.push_back(fs::path(d.path).parent_path().string());
  std::sort(searchDirs.begin(), searchDirs.end());
  searchDirs.erase(std::unique(searchDirs.begin(), searchDirs.end()), searchDirs.end());
  std::ofstream out(at);
  out << kMagic << "\n";
  for (const Dep &d : read)
    writeFile(out, d);
  std::error_code ec;
  for (const std::string &name : missing)
    for (const std::string &dir : searchDirs) {
      if (!fs::is_directory(dir, ec)) // the shim's virtual folder
        continue;
      fs::path where = deepestExisting(dir, name);
      out << "dir\t" << mtimeOf(where, ec) << "\t" << name << "\t" << dir << "\n";
    }
}

/// Whether the preamble of \p at still stops at the same missing headers (writeMissing).
bool stillMissing(const fs::path &at) {
  std::ifstream in(at);
  std::string line;
  if (!std::getline(in, line) || line != kMagic)
    return false;
  std::error_code ec;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind, a, b, c;
    std::getline(fields, kind, '\t');
    if (kind == "file") {
      if (!fileUnchanged(fields))
        return false;
      continue;
    }
    std::getline(fields, a, '\t');
    std::getline(fields, b, '\t');
    std::getline(fields, c);
    if (kind == "dir") {
      fs::path where = deepestExisting(c, b);
      if (mtimeOf(where, ec) != std::stoll(a) || ec || fs::exists(fs::path(c) / b, ec))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// Drops the least recently used preambles beyond kKeep.
void evict(const fs::path &dir) {
  std::vector<std::pair<int64_t, fs::path>> pchs;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".pch" || e.path().extension() == ".missing")
      pchs.emplace_back(mtimeOf(e.path(), ec), e.path());
  if (pchs.size() <= kKeep)
    return;
  std::sort(pchs.begin(), pchs.end());
  for (size_t i = 0; i + kKeep < pchs.size(); ++i) {
    fs::remove(fs::path(pchs[i].second).replace_extension(".pch"), ec);
    fs::remove(fs::path(pchs[i].second).replace_extension(".missing"), ec);
    fs::remove(fs::path(pchs[i].second).replace_extension(".deps"), ec);
    fs::remove(fs::path(pchs[i].second).replace_extension(".whole"), ec);
    fs::remove(fs::path(pchs[i].second).replace_extension(".faithful"), ec);
  }
}

} // namespace

std::optional<Preamble> preamble(const std::string &path, const std::string &text, const std::vector<std::string> &args,
                                 const std::vector<std::pair<std::string, std::string>> &shim,
                                 const std::string &cacheDir) {
  if (cacheDir.empty())
    return std::nullopt;
  clang::LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CUDA = true;
  clang::PreambleBounds bounds = clang::Lexer::ComputePreamble(text, lang);
  if (bounds.Size == 0)
    return std::nullopt;
  Preamble p;
  p.text = text.substr(0, bounds.Size);
  std::error_code ec;
  fs::path file = fs::absolute(path, ec);
  // the key: everything that shapes the PCH
  std::string key = CLANG_VERSION_STRING "\n" + file.parent_path().string() + "\n";
  for (const std::string &a : args)
    key += a + "\n";
  for (const auto &[name, content] : shim)
    key += name + "\n" + content + "\n";
  key += p.text;
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(llvm::xxh3_64bits(key)));
  // the PCH records its main file's name, a virtual file beside the checked one (quoted includes are found from
  // there): named by the key, not by the file, so that every file of the folder with this preamble reuses it (a
  // name of the first file's broke the second's parse: tests/lit/cuda/preamble.test, two files one preamble)
  p.header = (file.parent_path() / (".cake-preamble-" + std::string(hex) + ".cuh")).string();
  fs::path dir = fs::path(cacheDir) / "cuda-preamble";
  fs::create_directories(dir, ec);
  if (ec)
    return std::nullopt;
  fs::path pch = dir / (std::string(hex) + ".pch"), deps = dir / (std::string(hex) + ".deps");
  p.pch = pch.string();
  if (fs::exists(pch, ec) && stillValid(deps, p.errors)) {
    if (fs::exists(fs::path(pch).replace_extension(".whole"), ec))
      return std::nullopt; // its files parse whole (parseWholeFromNowOn)
    fs::last_write_time(pch, fs::file_time_type::clock::now(), ec); // recently used
    p.reused = true;
    return p;
  }
  if (stillMissing(fs::path(pch).replace_extension(".missing")))
    return std::nullopt; // it stops at a header that is still not there (writeMissing)
  fs::remove(fs::path(pch).replace_extension(".whole"), ec); // a rebuilt preamble is tried again
  fs::remove(fs::path(pch).replace_extension(".faithful"), ec);
  p.errors.clear();
  // built beside its final name and renamed into place: two checks building the same preamble do not collide
  const std::string suffix = ".tmp" + std::to_string(getpid());
  std::vector<Dep> read;
  std::vector<std::string> searchDirs;
  bool fatal = false;
  bool ran = clang::tooling::runToolOnCodeWithArgs(
      std::make_unique<Build>(pch.string() + suffix, p.errors, read, fatal, searchDirs), p.text, args, p.header,
      "/usr/lib/llvm-19/bin/clang++", std::make_shared<clang::PCHContainerOperations>(), shim);
  // not kept after a fatal error: Clang parses on past a header not found, diagnostics suppressed, and the file
  // is parsed whole; what is kept is why (missingEntry), so that the next check does not build it again
  if (fatal) {
    fs::remove(pch.string() + suffix, ec);
    writeMissing(fs::path(pch).replace_extension(".missing"), read, p.errors, searchDirs);
    evict(dir);
    return std::nullopt;
  }
  if (!ran && p.errors.empty()) {
    fs::remove(pch.string() + suffix, ec);
    return std::nullopt;
  }
  if (!fs::exists(pch.string() + suffix, ec))
    return std::nullopt;
  {
    std::ofstream out(deps.string() + suffix);
    out << kMagic << "\n";
    for (const Dep &d : read)
      writeFile(out, d);
    for (const ParseResult::Error &e : p.errors)
      out << "error\t" << e.at.line << "\t" << e.at.column << "\t" << oneLine(e.at.file) << "\t"
          << oneLine(e.message) << "\n";
    if (!out)
      return std::nullopt;
  }
  fs::rename(deps.string() + suffix, deps, ec);
  fs::rename(pch.string() + suffix, pch, ec);
  if (ec)
    return std::nullopt;
  evict(dir);
  return p;
}

namespace {

/// One error as a line of a .faithful file.
std::string errorLine(const ParseResult::Error &e) {
  return std::to_string(e.at.line) + "\t" + std::to_string(e.at.column) + "\t" + oneLine(e.at.file) + "\t" +
         oneLine(e.message);
}

} // namespace

bool knownFaithful(const Preamble &p, const std::vector<ParseResult::Error> &errors) {
  std::ifstream in(fs::path(p.pch).replace_extension(".faithful"));
  if (!in)
    return false;
  std::set<std::string> seen;
  for (std::string line; std::getline(in, line);)
    seen.insert(line);
  return std::all_of(errors.begin(), errors.end(), [&](const ParseResult::Error &e) { return seen.count(errorLine(e)); });
}

void markFaithful(const Preamble &p, const std::vector<ParseResult::Error> &errors) {
  const fs::path file = fs::path(p.pch).replace_extension(".faithful");
  const std::string temporary = file.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    for (const ParseResult::Error &e : errors)
      out << errorLine(e) << "\n";
    if (!out)
      return;
  }
  std::error_code ec;
  fs::rename(temporary, file, ec);
}

void parseWholeFromNowOn(const Preamble &p) {
  std::ofstream(fs::path(p.pch).replace_extension(".whole")) << "parse whole\n";
}

std::string withoutPreamble(const std::string &text, const Preamble &p) {
  std::string out = text;
  for (size_t i = 0; i < p.text.size() && i < out.size(); ++i)
    if (out[i] != '\n' && out[i] != '\r')
      out[i] = ' ';
  return out;
}

} // namespace cake::cuda::detail
