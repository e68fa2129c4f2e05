//===- WorkspaceSymbols.cpp - workspace/symbol ----------------------------===//
//
// The module-level declarations (kernels, constants, compile-time
// parameters) of the open documents, then of the `*.cake` files under the
// workspace folders that are not open, read from disk and parsed (not
// checked: the parse is enough for names and ranges). The scan is bounded
// (kMaxWorkspaceFiles files of at most 1 MiB, regular files only: a FIFO
// would block the server, issue #16) and its parses are kept by path, size
// and modification time, so a second query reads no file again. A name
// matches when the query's characters appear in it in order, ignoring case
// ("gsw" matches gemm_sm90_ws); at most kMaxWorkspaceSymbols are returned.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"

#include "compiler/syntax/Parser.h"
#include "formats/Input.h"

#include <cctype>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

namespace cake::lsp {

using namespace syntax;

namespace {

// LSP SymbolKind values.
constexpr int kFunction = 12, kConstant = 14, kTypeParameter = 26;
constexpr uintmax_t kMaxFileBytes = 1u << 20;

bool matches(std::string_view name, std::string_view query) {
  size_t i = 0;
  for (char c : name)
    if (i < query.size() && std::tolower(static_cast<unsigned char>(c)) ==
                                std::tolower(static_cast<unsigned char>(query[i])))
      ++i;
  return i == query.size();
}

/// The module-level declarations of \p m, parsed from \p text (every one;
/// filtered later).
std::vector<SymbolInformation> declarations(const std::string &uri, const syntax::Module &m, std::string_view text,
                                            Encoding enc) {
  LineMap lines(text, enc);
  std::vector<SymbolInformation> out;
  auto add = [&](const Ident &name, int kind, SourceRange range) {
    if (!name.name.empty())
      out.push_back({name.name, kind, {uri, lines.range(range)}, ""});
  };
  std::function<void(const Block &)> items = [&](const Block &b) {
    for (const StmtPtr &s : b.stmts) {
      if (auto *k = dyn_cast<KernelDecl>(s.get()))
        add(k->name, kFunction, k->name.range);
      else if (auto *c = dyn_cast<ConstDecl>(s.get()))
        add(c->name, kConstant, c->name.range);
      else if (auto *p = dyn_cast<ParamDecl>(s.get()))
        add(p->name, kTypeParameter, p->name.range);
      else if (auto *i = dyn_cast<IfStmt>(s.get())) { // a top-level `if` on parameters
        for (const IfStmt *at = i; at; at = dyn_cast<IfStmt>(at->elseIf.get())) {
          items(at->thenBody);
          if (at->elseBody)
            items(*at->elseBody);
        }
      }
    }
  };
  items(m.items);
  return out;
}

std::vector<SymbolInformation> declarations(const std::string &uri, const std::string &text, Encoding enc) {
  SourceManager sm;
  FileId file = sm.addBuffer(uri, text);
  std::vector<Diagnostic> ignored;
  syntax::Module m = syntax::parse(sm, file, ignored);
  return declarations(uri, m, sm.text(file), enc);
}

/// Parsed files of the workspace, by path: kept while their size and
/// modification time stay the same.
struct CachedFile {
  bool read = false;
  Encoding enc = Encoding::UTF16;
  uintmax_t size = 0;
  std::filesystem::file_time_type mtime;
  std::vector<SymbolInformation> symbols;
};

std::map<std::string, CachedFile> &cache() {
  static std::map<std::string, CachedFile> files; // the main thread's (Features.h)
  return files;
}

/// The `*.cake` files under \p root, in path order, at most \p budget.
void cakeFiles(const std::string &root, size_t &budget, std::vector<std::filesystem::path> &out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  std::vector<fs::path> found;
  for (; !ec && it != end && budget > 0; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (name.starts_with(".") || name == "build" || name == "node_modules")
        it.disable_recursion_pending();
      continue;
    }
    if (name.ends_with(".cake") && it->is_regular_file(ec) && it->file_size(ec) <= kMaxFileBytes) {
      found.push_back(it->path());
      --budget;
    }
  }
  std::sort(found.begin(), found.end());
  out.insert(out.end(), found.begin(), found.end());
}

} // namespace

std::vector<SymbolInformation> workspaceSymbols(State &state, const std::string &query) {
  std::vector<SymbolInformation> out;
  auto take = [&](const std::vector<SymbolInformation> &symbols) {
    for (const SymbolInformation &s : symbols)
      if (out.size() < kMaxWorkspaceSymbols && matches(s.name, query))
        out.push_back(s);
  };
  std::set<std::string> open;
  for (const auto &[uri, doc] : state.docs.all()) {
    open.insert(uri);
    // the analysis's parse when there is one (the document's diagnostics were published from it)
    if (doc.analysis) {
      doc.analysis->completeTree();
      take(declarations(uri, doc.analysis->result.module, doc.analysis->text(), state.caps.encoding));
    } else
      take(declarations(uri, doc.text, state.caps.encoding));
  }
  size_t budget = kMaxWorkspaceFiles;
  std::vector<std::filesystem::path> files;
  for (const std::string &root : state.workspaceRoots)
    cakeFiles(root, budget, files);
  for (const std::filesystem::path &path : files) {
    if (out.size() >= kMaxWorkspaceSymbols)
      break;
    std::string uri = pathToUri(path.string());
    if (open.count(uri))
      continue;
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(path, ec);
    auto mtime = std::filesystem::last_write_time(path, ec);
    if (ec)
      continue;
    CachedFile &c = cache()[path.string()];
    if (!c.read || c.enc != state.caps.encoding || c.size != size || c.mtime != mtime) {
      std::string text;
      if (!formats::readInput(path.string(), text))
        continue;
      c = {true, state.caps.encoding, size, mtime, declarations(uri, text, state.caps.encoding)};
    }
    take(c.symbols);
  }
  return out;
}

} // namespace cake::lsp
