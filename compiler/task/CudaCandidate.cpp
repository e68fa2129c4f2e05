//===- CudaCandidate.cpp - A `.cu` candidate's launch line and host code ---===//
#include "compiler/task/CudaCandidate.h"

#include "compiler/task/Expr.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace cake::task {
namespace {

constexpr std::string_view kMarker = "cake-task:";

Diagnostic finding(std::string code, SourceRange range, std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.range = range;
  d.message = std::move(message);
  return d;
}

/// Splits "a=b c=d(e, f)" at blanks outside parentheses.
std::vector<std::pair<std::string, size_t>> fields(std::string_view text, size_t base) {
  std::vector<std::pair<std::string, size_t>> out;
  int depth = 0;
  size_t start = std::string_view::npos;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (c == '(')
      ++depth;
    if (c == ')')
      --depth;
    bool blank = (std::isspace(uint8_t(c)) && depth <= 0) || i == text.size(); // the end closes an open field
    if (!blank && start == std::string_view::npos)
      start = i;
    if (blank && start != std::string_view::npos) {
      out.push_back({std::string(text.substr(start, i - start)), base + start});
      start = std::string_view::npos;
    }
  }
  return out;
}

/// "a,b(c,d),e" split at top-level commas; empty when the parentheses do not balance or an item is empty.
std::vector<std::string> commaList(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0)
      return {};
    if (c == ',' && depth == 0) {
      if (i == start)
        return {};
      out.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0)
    return {};
  return out;
}

bool isIdentStart(char c) { return std::isalpha(uint8_t(c)) || c == '_'; }
bool isIdent(char c) { return std::isalnum(uint8_t(c)) || c == '_'; }

/// The device-side functions of the CUDA runtime that a kernel may call
/// (programmatic dependent launch); every other cuda*/cu* API is host-side or
/// launches work (cudaLaunchDevice) the harness would not see.
const std::set<std::string_view> kDeviceApi = {"cudaGridDependencySynchronize",
                                               "cudaTriggerProgrammaticLaunchCompletion"};

} // namespace

Expected<LaunchLine> readLaunchLine(const SourceManager &sm, FileId file, const Task &task, const std::string &arm) {
  const bool cake = arm == "cake";
  std::string_view text = sm.text(file);
  std::vector<Diagnostic> errors;
  LaunchLine out;
  size_t at = std::string_view::npos;
  for (size_t p = text.find(kMarker); p != std::string_view::npos; p = text.find(kMarker, p + 1)) {
    size_t lineBegin = text.rfind('\n', p);
    lineBegin = lineBegin == std::string_view::npos ? 0 : lineBegin + 1;
    std::string_view before = text.substr(lineBegin, p - lineBegin);
    size_t slash = before.find_first_not_of(" \t");
    if (slash == std::string_view::npos || before.substr(slash).find("//") != 0)
      continue;
    if (at != std::string_view::npos) {
      uint32_t b = uint32_t(p);
      return Error(Error::InvalidArgument, "two launch lines",
                   {finding("task.launch", {file, b, b + uint32_t(kMarker.size())},
                            "a second '// cake-task:' launch line; a candidate has one")});
    }
    at = p;
  }
  if (at == std::string_view::npos && cake)
    return out;
  if (at == std::string_view::npos)
    return Error(Error::InvalidArgument, "no launch line",
                 {finding("task.launch", {file, 0, 0},
                          "no launch line: a .cu candidate says how the harness launches it in a comment such as "
                          "'// cake-task: kernel=NAME grid=cdiv(N,128),cdiv(M,128) block=256 smem=0' (expressions "
                          "over the task's sizes: " +
                              [&] {
                                std::string s;
                                for (const std::string &n : sizeNames(task))
                                  s += (s.empty() ? "" : ", ") + n;
                                return s;
                              }() +
                              ")")});
  size_t end = text.find('\n', at);
  end = end == std::string_view::npos ? text.size() : end;
  size_t start = at + kMarker.size();
  out.range = {file, uint32_t(at), uint32_t(end)};
  std::vector<std::string> sizes = sizeNames(task);
  std::set<std::string> given;
  for (auto &[field, offset] : fields(text.substr(start, end - start), start)) {
    SourceRange r{file, uint32_t(offset), uint32_t(offset + field.size())};
    size_t eq = field.find('=');
    std::string key = field.substr(0, eq), value = eq == std::string::npos ? "" : field.substr(eq + 1);
    if (eq == std::string::npos || value.empty()) {
      errors.push_back(finding("task.launch", r, "'" + field + "': a launch field is KEY=VALUE"));
      continue;
    }
    if (!given.insert(key).second) {
      errors.push_back(finding("task.launch", r, "'" + key + "' is given twice"));
      continue;
    }
    if (key.starts_with("derive.") && key.size() > 7) {
      std::string name = key.substr(7);
      if (!isIdentStart(name[0]) || !std::all_of(name.begin(), name.end(), isIdent) ||
          std::binary_search(sizes.begin(), sizes.end(), name)) {
        errors.push_back(finding("task.launch", r, "'" + name + "' cannot be derived: it is not a name, or it is a size of "
                                                    "the task already"));
        continue;
      }
      auto names = exprNames(value);
      if (!names)
        errors.push_back(finding("task.launch", r, key + ": " + names.error().message));
      else
        for (const std::string &n : *names)
          if (!std::binary_search(sizes.begin(), sizes.end(), n))
            errors.push_back(finding("task.launch", r, key + ": '" + n + "' is not a size of task '" + task.name +
                                                          "' nor derived before"));
      out.derived.push_back({name, value});
      sizes.insert(std::upper_bound(sizes.begin(), sizes.end(), name), name);
      continue;
    }
    if (cake && key == "kernels") {
      out.kernels = commaList(value);
      if (out.kernels.empty())
        errors.push_back(finding("task.launch", r, "kernels='" + value + "' is not a list of kernel names"));
      continue;
    }
    if (cake) {
      errors.push_back(finding("task.launch", r, "unknown field '" + key + "' for a .cake candidate (kernels= and "
                                                 "derive.NAME= are known; the lowering plans the launch)"));
      continue;
    }
    if (key == "kernel") {
      if (!isIdentStart(value[0]) || !std::all_of(value.begin(), value.end(), isIdent))
        errors.push_back(finding("task.launch", r, "kernel='" + value + "' is not a kernel's name"));
      out.kernel = value;
      continue;
    }
    std::array<std::string, 3> *dims = key == "grid" ? &out.grid : key == "block" ? &out.block
                                       : key == "cluster"                      ? &out.cluster
                                                                               : nullptr;
    if (!dims && key != "smem") {
      errors.push_back(finding("task.launch", r,
                               "unknown launch field '" + key + "' (kernel, grid, block, cluster and smem are known)"));
      continue;
    }
    std::vector<std::string> parts = dims ? commaList(value) : std::vector<std::string>{value};
    if (parts.empty()) {
      errors.push_back(finding("task.launch", r, key + "='" + value + "': unbalanced parentheses or an empty dimension"));
      continue;
    }
    if (parts.size() > 3) {
      errors.push_back(finding("task.launch", r, key + " has at most three dimensions"));
      continue;
    }
    for (size_t i = 0; i < parts.size(); ++i) {
      auto names = exprNames(parts[i]);
      if (!names) {
        errors.push_back(finding("task.launch", r, key + ": " + names.error().message));
        continue;
      }
      for (const std::string &n : *names)
        if (!std::binary_search(sizes.begin(), sizes.end(), n))
          errors.push_back(finding("task.launch", r, key + ": '" + n + "' is not a size of task '" + task.name + "'"));
      if (dims)
        (*dims)[i] = parts[i];
      else
        out.smem = parts[i];
    }
  }
  for (const char *required : {"kernel", "grid", "block"})
    if (!cake && !given.count(required))
      errors.push_back(finding("task.launch", out.range, std::string("the launch line does not give '") + required + "'"));
  if (!errors.empty())
    return Error(Error::InvalidArgument, errors.front().message, std::move(errors));
  return out;
}

Expected<Sizes> deriveSizes(const LaunchLine &launch, const Sizes &sizes) {
  Sizes all = sizes;
  for (const auto &[name, text] : launch.derived) {
    auto v = evalExpr(text, all);
    if (!v)
      return Error(Error::InvalidArgument, "derive." + name + ": " + v.error().message);
    all[name] = *v;
  }
  return all;
}

Expected<LaunchDimsAt> evalLaunch(const LaunchLine &launch, const Sizes &sizes) {
  LaunchDimsAt out;
  auto one = [&](const std::string &what, const std::string &text, int64_t limit) -> Expected<uint32_t> {
    auto v = evalExpr(text, sizes);
    if (!v)
      return Error(Error::InvalidArgument, "launch line, " + what + ": " + v.error().message);
    if (*v < (what == "smem" ? 0 : 1) || *v > limit)
      return Error(Error::InvalidArgument, "launch line, " + what + " = " + text + " is " + std::to_string(*v) +
                                               " at " + sizesText(sizes) + ", outside [" +
                                               (what == "smem" ? "0" : "1") + ", " + std::to_string(limit) + "]");
    return uint32_t(*v);
  };
  const char *axes = "xyz";
  for (int i = 0; i < 3; ++i) {
    // the driver's own limits on a launch (cuLaunchKernel)
    auto g = one(std::string("grid ") + axes[i], launch.grid[i], i == 0 ? 2147483647 : 65535);
    auto b = one(std::string("block ") + axes[i], launch.block[i], i == 2 ? 64 : 1024);
    auto c = one(std::string("cluster ") + axes[i], launch.cluster[i], 16);
    if (!g)
      return g.takeError();
    if (!b)
      return b.takeError();
    if (!c)
      return c.takeError();
    out.grid[i] = *g, out.block[i] = *b, out.cluster[i] = *c;
  }
  auto s = one("smem", launch.smem, 1 << 30);
  if (!s)
    return s.takeError();
  out.smem = *s;
  return out;
}

std::vector<Diagnostic> hostCodeFindings(const SourceManager &sm, FileId file) {
  std::string_view t = sm.text(file);
  std::vector<Diagnostic> out;
  auto report = [&](size_t b, size_t e, const std::string &message) {
    if (out.size() < 20)
      out.push_back(finding("task.host-code", {file, uint32_t(b), uint32_t(e)}, message));
  };
  const std::string why = "; the harness loads only the kernels and launches them itself (its stream, its events, "
                          "its timer), so a candidate's host code would never run";
  bool lineStart = true;
  for (size_t i = 0; i < t.size();) {
    char c = t[i];
    if (c == '\n') {
      lineStart = true;
      ++i;
      continue;
    }
    if (std::isspace(uint8_t(c))) {
      ++i;
      continue;
    }
    if (lineStart && c == '#') { // #include and #pragma lines are skipped; a #define's text is scanned (a macro can
                                 // hide a launch)
      size_t word = t.find_first_not_of(" \t", i + 1);
      if (word != std::string_view::npos && (t.substr(word, 7) == "include" || t.substr(word, 6) == "pragma")) {
        while (i < t.size() && t[i] != '\n')
          i += (t[i] == '\\' && i + 1 < t.size()) ? 2 : 1;
        continue;
      }
      lineStart = false;
      ++i;
      continue;
    }
    lineStart = false;
    if (t.substr(i, 2) == "//") {
      i = t.find('\n', i);
      i = i == std::string_view::npos ? t.size() : i;
      continue;
    }
    if (t.substr(i, 2) == "/*") {
      size_t e = t.find("*/", i + 2);
      i = e == std::string_view::npos ? t.size() : e + 2;
      continue;
    }
    if (std::isdigit(uint8_t(c))) { // a number, with its digit separators (1'000) and suffixes
      while (i < t.size() && (std::isalnum(uint8_t(t[i])) || t[i] == '.' ||
                              (t[i] == '\'' && i + 1 < t.size() && std::isalnum(uint8_t(t[i + 1])))))
        ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      for (++i; i < t.size() && t[i] != c && t[i] != '\n'; ++i)
        if (t[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    if (t.substr(i, 3) == "<<<") {
      report(i, i + 3, "a kernel launch ('<<<') in a task candidate" + why);
      i += 3;
      continue;
    }
    if (isIdentStart(c)) {
      size_t b = i;
      while (i < t.size() && isIdent(t[i]))
        ++i;
      std::string_view word = t.substr(b, i - b);
      size_t next = t.find_first_not_of(" \t\r\n", i);
      bool call = next != std::string_view::npos && t[next] == '(';
      bool api = (word.size() > 4 && word.starts_with("cuda") && std::isupper(uint8_t(word[4]))) ||
                 (word.size() > 2 && word.starts_with("cu") && std::isupper(uint8_t(word[2])) && call);
      if (api && !kDeviceApi.count(word))
        report(b, i, "'" + std::string(word) + "' is a CUDA " + (word.starts_with("cuda") ? "runtime" : "driver") +
                         " API name in a task candidate" + why);
      else if (word == "main" && call)
        report(b, i, "a 'main' function in a task candidate" + why);
      continue;
    }
    ++i;
  }
  return out;
}

} // namespace cake::task
