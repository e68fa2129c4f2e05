//===- Check.cpp - The CUDA checker's one diagnostics path ----------------===//
#include "compiler/cuda/Check.h"

#include "compiler/cuda/Frontend.h"
#include "compiler/cuda/Rules.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace cake::cuda {

bool isCudaSource(std::string_view path) { return path.ends_with(".cu") || path.ends_with(".cuh"); }

std::string cacheDir() {
  if (const char *dir = std::getenv("CAKE_CACHE_DIR"); dir && *dir)
    return std::string_view(dir) == "off" ? "" : dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/cake";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/cake";
  return "";
}

namespace {

/// \p insert as an edit: its statement on a line of its own before the closing brace at \p before, indented one
/// level past the brace's line (or before the brace on its line when code precedes it there).
std::optional<Fix> insertion(const SourceManager &sm, FileId file, const Where &before, const Finding::Insert &insert) {
  if (!sm.hasText(file) || before.line == 0 || before.line > sm.lineCount(file))
    return std::nullopt;
  std::string_view line = sm.lineText(file, before.line);
  const uint32_t column = before.column ? before.column - 1 : 0;
  if (column >= line.size() || line[column] != '}')
    return std::nullopt;
  const uint32_t start = sm.lineStart(file, before.line);
  std::string_view lead = line.substr(0, column);
  Fix fix;
  fix.title = insert.title;
  if (lead.find_first_not_of(" \t") == std::string_view::npos)
    fix.edits.push_back({{file, start, start}, std::string(lead) + "  " + insert.statement + "\n"});
  else
    fix.edits.push_back({{file, start + column, start + column}, insert.statement + " "});
  return fix;
}

/// The compilation database's flags for \p path, then the caller's.
std::vector<std::string> flagsFor(const std::string &path, const CheckOptions &options) {
  std::vector<std::string> flags;
  if (options.compilationDatabase) {
    std::string from;
    flags = compileFlagsFor(path, *options.compilationDatabase, from);
  }
  flags.insert(flags.end(), options.clangFlags.begin(), options.clangFlags.end());
  return flags;
}

const char *kindName(EventKind k) {
  switch (k) {
#define KIND(x)                                                                                                        \
  case EventKind::x:                                                                                                   \
    return #x;
    KIND(MbarInit) KIND(FenceMbarInit) KIND(MbarArrive) KIND(MbarExpectTx) KIND(MbarWait) KIND(TmaLoad) KIND(BulkLoad)
    KIND(TmaStore) KIND(BulkCommit) KIND(BulkWait) KIND(FenceProxyAsync) KIND(CtaBarrier) KIND(NamedBarrier)
    KIND(WarpBarrier) KIND(SharedRead) KIND(SharedWrite) KIND(WgmmaMma) KIND(WgmmaCommit) KIND(WgmmaWait)
    KIND(TmemLoad) KIND(TmemWait) KIND(AccRead) KIND(LoopBegin) KIND(LoopEnd) KIND(BranchBegin) KIND(BranchElse) KIND(BranchEnd) KIND(Other)
#undef KIND
  }
  return "?";
}

} // namespace

std::optional<std::string> describeEvents(SourceManager &sm, FileId file, const CheckOptions &options) {
  ParseResult parsed = parseCuda(sm.name(file), std::string(sm.text(file)), options.arch,
                                 flagsFor(sm.name(file), options), options.cacheDir);
  if (!parsed.available)
    return std::nullopt;
  std::ostringstream os;
  auto at = [](const Where &w) {
    return (w.file.empty() ? "" : w.file + ":") + std::to_string(w.line) + ":" + std::to_string(w.column);
  };
  for (const KernelEvents &k : parsed.kernels) {
    os << "kernel " << k.name << " at " << at(k.at) << "\n";
    int depth = 1;
    for (const Event &e : k.events) {
      if (e.kind == EventKind::LoopEnd || e.kind == EventKind::BranchEnd || e.kind == EventKind::BranchElse)
        --depth;
      os << std::string(2 * std::max(depth, 0), ' ') << at(e.at) << " " << kindName(e.kind);
      if (e.kind != EventKind::BranchElse && e.kind != EventKind::BranchEnd && e.kind != EventKind::LoopEnd)
        os << " '" << e.text << "'";
      if (!e.via.empty())
        os << " via " << e.via;
      if (e.n >= 0)
        os << " n=" << e.n;
      if (e.threads != -1)
        os << " threads=" << (e.threads == -2 ? std::string("?") : std::to_string(e.threads));
      if (e.kind == EventKind::LoopBegin && !e.mayBeEmpty)
        os << " runs";
      if (!e.barrier.empty()) { // its variables' names, without the declarations' identities
        std::string shown;
        for (size_t i = 0; i < e.barrier.size(); ++i) {
          if (e.barrier[i] == '@')
            while (i + 1 < e.barrier.size() && std::isdigit(static_cast<unsigned char>(e.barrier[i + 1])))
              ++i;
          else
            shown += e.barrier[i];
        }
        os << " barrier=" << shown;
      }
      if (e.divergent)
        os << " divergent";
      if (e.kind == EventKind::BranchBegin && !e.object.empty())
        os << " fixed";
      if (e.oneLane)
        os << " one-lane";
      if (e.kind == EventKind::NamedBarrier) { // the threads that get here, as runs of one id: `id@first-last`
        os << " reach=";
        if (e.reach.empty())
          os << "?";
        for (size_t t = 0, shown = 0; t < e.reach.size(); ++t) {
          if (e.reach[t] < 0 || (t > 0 && e.reach[t - 1] == e.reach[t]))
            continue;
          size_t last = t;
          while (last + 1 < e.reach.size() && e.reach[last + 1] == e.reach[t])
            ++last;
          os << (shown++ ? "," : "") << e.reach[t] << "@" << t << "-" << last;
        }
      }
      os << "\n";
      if (e.kind == EventKind::LoopBegin || e.kind == EventKind::BranchBegin || e.kind == EventKind::BranchElse)
        ++depth;
    }
  }
  return os.str();
}

std::optional<std::vector<Diagnostic>> checkFile(SourceManager &sm, FileId file, const CheckOptions &options) {
  const std::string text(sm.text(file));
  ParseResult parsed = parseCuda(sm.name(file), text, options.arch, flagsFor(sm.name(file), options), options.cacheDir);
  if (!parsed.available)
    return std::nullopt;
  // a header's findings are located in it: its text joins the SourceManager once
  // named as the user named the file: a header under the working folder relative to it (a precompiled
  // preamble records absolute names)
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string() + "/";
  std::map<std::string, FileId> headers;
  auto fileOf = [&](const Where &w) -> FileId {
    if (w.file.empty())
      return file;
    auto [it, added] = headers.try_emplace(w.file);
    if (added) {
      std::ifstream in(w.file, std::ios::binary);
      std::ostringstream contents;
      contents << in.rdbuf();
      std::string name = !ec && w.file.starts_with(cwd) ? w.file.substr(cwd.size()) : w.file;
      it->second = in ? sm.addBuffer(name, contents.str()) : sm.addStandIn(name, w.line);
    }
    return it->second;
  };
  auto range = [&](const Where &w) {
    FileId f = fileOf(w);
    if (w.line == 0 || !sm.hasText(f))
      return SourceRange{f, w.line ? sm.lineStart(f, w.line) : 0, w.line ? sm.lineStart(f, w.line) : 0};
    std::string_view t = sm.text(f);
    uint32_t b = sm.lineStart(f, w.line) + (w.column ? w.column - 1 : 0), e = b;
    while (e < t.size() && t[e] != '\n')
      ++e;
    while (e > b && (t[e - 1] == ' ' || t[e - 1] == '\r'))
      --e;
    return SourceRange{f, std::min<uint32_t>(b, uint32_t(t.size())), std::min<uint32_t>(e, uint32_t(t.size()))};
  };
  std::vector<Diagnostic> out;
  // one diagnostic per code, place and message: a header's error repeats in no instantiation, a kernel
  // template's instantiations share their lines
  std::set<std::tuple<std::string, std::string, uint32_t, uint32_t, std::string>> seen;
  for (const ParseResult::Error &e : parsed.errors) {
    if (!seen.insert({"cuda.error", e.at.file, e.at.line, e.at.column, e.message}).second)
      continue;
    Diagnostic d;
    d.code = "cuda.error";
    d.severity = Severity::Error;
    d.range = range(e.at);
    d.message = "clang (CUDA device mode) cannot parse this: " + e.message;
    out.push_back(std::move(d));
  }
  for (const KernelEvents &k : parsed.kernels)
    for (const Finding &f : checkKernel(k)) {
      if (!seen.insert({f.code, f.at.file, f.at.line, f.at.column, ""}).second)
        continue;
      Diagnostic d;
      d.code = f.code;
      d.severity = f.decided ? Severity::Error : Severity::Note;
      d.range = range(f.at);
      d.message = f.message;
      for (const Finding::Note &n : f.notes)
        d.notes.push_back({range(n.at), n.message});
      if (f.fix && f.fix->before.line)
        if (std::optional<Fix> fix = insertion(sm, fileOf(f.fix->before), f.fix->before, *f.fix))
          d.fixes.push_back(std::move(*fix));
      out.push_back(std::move(d));
    }
  sortDiagnostics(out);
  return out;
}

} // namespace cake::cuda
