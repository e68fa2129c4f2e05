//===- CompilerLog.cpp - Parsing and mapping CUDA tool-chain logs ---------===//
//
// Part of CAKE. Text in, data out: ptxas reports, EDG front-end messages,
// #line and .loc maps, and their mapping to Diagnostics. No NVRTC, no GPU.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/Build.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cxxabi.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace cake::runner {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

/// Splits \p text into lines without their terminators ("\n" or "\r\n").
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos)
      break;
    pos = nl + 1;
  }
  return lines;
}

/// Parses a leading unsigned number of \p s; advances \p s past it.
std::optional<uint64_t> takeNumber(std::string_view &s) {
  s = trim(s);
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr == s.data())
    return std::nullopt;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return value;
}

/// The text between the first pair of single quotes after \p from.
std::string quoted(std::string_view s, size_t from = 0) {
  size_t open = s.find('\'', from);
  if (open == std::string_view::npos)
    return {};
  size_t close = s.find('\'', open + 1);
  if (close == std::string_view::npos)
    return {};
  return std::string(s.substr(open + 1, close - open - 1));
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The first \p word of C++ \p text outside comments at or after \p from
/// (string literals count: inline PTX lives in them; \p from must not be
/// inside a comment).
size_t findInCode(std::string_view text, std::string_view word, size_t from = 0) {
  for (size_t i = from; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string_view::npos)
        break;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i + 2);
      if (i == std::string_view::npos)
        break;
      ++i;
    } else if (text.compare(i, word.size(), word) == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

//===----------------------------------------------------------------------===//
// ptxas
//===----------------------------------------------------------------------===//

/// "N bytes stack frame, N bytes spill stores, N bytes spill loads".
void parseProperties(std::string_view s, PtxasFunction &f) {
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    auto n = takeNumber(item);
    if (!n)
      continue;
    item = trim(item);
    if (item == "bytes stack frame")
      f.stackFrame = *n;
    else if (item == "bytes spill stores")
      f.spillStores = *n;
    else if (item == "bytes spill loads")
      f.spillLoads = *n;
  }
}

/// "Used 40 registers, used 1 barriers, 1200 bytes cumulative stack size,
/// 1024 bytes smem, 352 bytes cmem[0], 8 bytes lmem".
void parseUsed(std::string_view s, PtxasFunction &f) {
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    if (startsWith(item, "Used ") || startsWith(item, "used "))
      item.remove_prefix(5);
    auto n = takeNumber(item);
    if (!n)
      continue;
    item = trim(item);
    if (item == "registers" || item == "register")
      f.registers = static_cast<int>(*n);
    else if (item == "barriers" || item == "barrier")
      f.barriers = static_cast<int>(*n);
    else if (item == "bytes cumulative stack size")
      f.cumulativeStack = *n;
    else if (item == "bytes smem")
      f.sharedBytes = *n;
    else if (item == "bytes lmem")
      f.localBytes = *n;
    else if (startsWith(item, "bytes cmem[")) {
      std::string_view bank = item.substr(11);
      if (auto b = takeNumber(bank))
        f.constantBanks[static_cast<int>(*b)] += *n;
    }
  }
}

PtxasFunction &functionNamed(PtxasReport &report, const std::string &name) {
  for (PtxasFunction &f : report.functions)
    if (f.name == name)
      return f;
  PtxasFunction f;
  f.name = name;
  f.demangled = name;
  if (startsWith(name, "_Z")) {
    int status = 0;
    std::unique_ptr<char, void (*)(void *)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && d)
      f.demangled = d.get();
  }
  report.functions.push_back(std::move(f));
  return report.functions.back();
}

/// "info    : text", "warning : text": the level word and the text.
bool splitLevel(std::string_view s, std::string_view &level, std::string_view &text) {
  s = trim(s);
  size_t word = 0;
  while (word < s.size() && std::isalpha(static_cast<unsigned char>(s[word])))
    ++word;
  level = s.substr(0, word);
  std::string_view rest = trim(s.substr(word));
  if (level.empty() || rest.empty() || rest.front() != ':')
    return false;
  text = trim(rest.substr(1));
  return true;
}

Severity levelSeverity(std::string_view level) {
  if (level == "error" || level == "fatal")
    return Severity::Error;
  if (level == "warning")
    return Severity::Warning;
  return Severity::Remark;
}

void addMessage(PtxasReport &report, Severity severity, std::string_view text, std::string file = {},
                uint32_t line = 0) {
  PtxasMessage m;
  m.severity = severity;
  m.ptxFile = std::move(file);
  m.ptxLine = line;
  // "(C7508) Potential Performance Loss: ..."
  if (text.size() > 2 && text[0] == '(' && text[1] == 'C') {
    size_t close = text.find(')');
    if (close != std::string_view::npos) {
      m.id = std::string(text.substr(1, close - 1));
      text = trim(text.substr(close + 1));
    }
  }
  m.text = std::string(text);
  report.messages.push_back(std::move(m));
}

} // namespace

const PtxasFunction *PtxasReport::find(std::string_view name) const {
  for (const PtxasFunction &f : functions)
    if (f.name == name || f.demangled == name || baseName(f.name) == name)
      return &f;
  return nullptr;
}

std::vector<const PtxasFunction *> PtxasReport::entries() const {
  std::vector<const PtxasFunction *> out;
  for (const PtxasFunction &f : functions)
    if (f.entry)
      out.push_back(&f);
  return out;
}

PtxasReport parsePtxasLog(std::string_view log) {
  PtxasReport report;
  PtxasFunction *current = nullptr;
  for (std::string_view raw : splitLines(log)) {
    std::string_view line = trim(raw);
    // nvcc prints the properties line without the "ptxas ." prefix.
    if (std::isdigit(static_cast<unsigned char>(line.empty() ? 'x' : line.front())) &&
        line.find("bytes stack frame") != std::string_view::npos) {
      if (current)
        parseProperties(line, *current);
      continue;
    }
    if (!startsWith(line, "ptxas"))
      continue;
    std::string_view rest = trim(line.substr(5));
    if (startsWith(rest, ".")) { // "ptxas         .     0 bytes stack frame, ..."
      if (current)
        parseProperties(rest.substr(1), *current);
      continue;
    }
    std::string_view level, text;
    if (!splitLevel(rest, level, text)) {
      // "ptxas application ptx input, line 55; error   : Unknown modifier"
      // "ptxas /tmp/x.ptx, line 52; error   : ..."
      size_t at = rest.find(", line ");
      size_t semi = rest.find(';', at == std::string_view::npos ? 0 : at);
      if (at == std::string_view::npos || semi == std::string_view::npos)
        continue;
      std::string_view number = rest.substr(at + 7, semi - at - 7);
      auto n = takeNumber(number);
      if (!n || !splitLevel(rest.substr(semi + 1), level, text))
        continue;
      addMessage(report, levelSeverity(level), text, std::string(rest.substr(0, at)), static_cast<uint32_t>(*n));
      continue;
    }
    if (level != "info") {
      addMessage(report, levelSeverity(level), text);
      continue;
    }
    if (startsWith(text, "Compiling entry function ")) {
      current = &functionNamed(report, quoted(text));
      current->entry = true;
      size_t forAt = text.find(" for ");
      if (forAt != std::string_view::npos)
        current->arch = quoted(text, forAt);
    } else if (startsWith(text, "Function properties for ")) {
      current = &functionNamed(report, std::string(trim(text.substr(24))));
    } else if (startsWith(text, "Used ")) {
      if (current)
        parseUsed(text, *current);
    } else if (startsWith(text, "Compile time = ")) {
      if (current)
        current->compileTimeMs = std::strtod(std::string(text.substr(15)).c_str(), nullptr);
    } else if (text.find("bytes gmem") != std::string_view::npos && text.find(',') == std::string_view::npos) {
      std::string_view t = text;
      if (auto n = takeNumber(t))
        report.globalBytes = *n;
    } else if (text.find("Potential Performance Loss") != std::string_view::npos ||
               text.find("setmaxnreg") != std::string_view::npos) {
      addMessage(report, Severity::Remark, text);
    }
  }
  return report;
}

//===----------------------------------------------------------------------===//
// Front end (EDG)
//===----------------------------------------------------------------------===//

namespace {

/// "k.cake(7): error: text" -> message header; false for other lines.
bool parseHeader(std::string_view line, FrontEndMessage &m) {
  // The file name may contain '(' (rarely); the location is the first
  // "(digits): " whose digits are all digits.
  size_t search = 0;
  while (true) {
    size_t open = line.find('(', search);
    if (open == std::string_view::npos || open == 0)
      return false;
    size_t close = line.find("): ", open);
    if (close == std::string_view::npos)
      return false;
    std::string_view digits = line.substr(open + 1, close - open - 1);
    bool allDigits = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!allDigits) {
      search = open + 1;
      continue;
    }
    std::string_view rest = line.substr(close + 3);
    size_t colon = rest.find(": ");
    if (colon == std::string_view::npos)
      return false;
    std::string_view kind = rest.substr(0, colon);
    std::string_view number;
    if (size_t hash = kind.find(" #"); hash != std::string_view::npos) {
      number = kind.substr(hash + 2);
      kind = kind.substr(0, hash);
    }
    if (kind == "error" || kind == "catastrophic error" || kind == "internal error" || kind == "fatal error" ||
        kind == "command-line error")
      m.severity = Severity::Error;
    else if (kind == "warning")
      m.severity = Severity::Warning;
    else if (kind == "remark")
      m.severity = Severity::Remark;
    else
      return false;
    m.file = std::string(line.substr(0, open));
    m.line = static_cast<uint32_t>(std::strtoul(std::string(digits).c_str(), nullptr, 10));
    m.number = std::string(number);
    m.text = std::string(trim(rest.substr(colon + 2)));
    return true;
  }
}

bool isCaretLine(std::string_view line) {
  size_t caret = line.find('^');
  if (caret == std::string_view::npos)
    return false;
  for (size_t i = 0; i < line.size(); ++i)
    if (i != caret && line[i] != ' ' && line[i] != '\t')
      return false;
  return true;
}

} // namespace

std::vector<FrontEndMessage> parseFrontEndLog(std::string_view log) {
  std::vector<FrontEndMessage> out;
  std::vector<std::string_view> lines = splitLines(log);
  for (size_t i = 0; i < lines.size(); ++i) {
    FrontEndMessage m;
    if (!parseHeader(lines[i], m))
      continue;
    // The block: indented lines up to a blank line or the next header.
    std::vector<std::string_view> block;
    size_t j = i + 1;
    for (; j < lines.size() && !trim(lines[j]).empty(); ++j) {
      FrontEndMessage next;
      if (parseHeader(lines[j], next))
        break;
      block.push_back(lines[j]);
    }
    size_t caretAt = block.size();
    for (size_t k = 0; k < block.size(); ++k)
      if (isCaretLine(block[k])) {
        caretAt = k;
        break;
      }
    for (size_t k = 0; k < block.size(); ++k) {
      if (caretAt < block.size() && k + 1 == caretAt) {
        std::string_view src = block[k];
        // The front end indents its copy of the line by two spaces.
        size_t indent = startsWith(src, "  ") ? 2 : 0;
        m.sourceLine = std::string(src.substr(indent));
        m.caret = static_cast<int>(block[caretAt].find('^')) - static_cast<int>(indent);
        if (m.caret < 0)
          m.caret = -1;
      } else if (k != caretAt) {
        m.notes.push_back(std::string(trim(block[k])));
      }
    }
    out.push_back(std::move(m));
    i = j - 1;
  }
  return out;
}

std::vector<std::string> unlocatedErrors(std::string_view log) {
  std::vector<std::string> out;
  for (std::string_view raw : splitLines(log)) {
    std::string_view line = trim(raw);
    std::string_view body = line;
    if (startsWith(body, "nvrtc: "))
      body.remove_prefix(7);
    if (startsWith(body, "nvcc fatal") || startsWith(body, "nvcc error") || startsWith(body, "error:") ||
        startsWith(body, "error :") || startsWith(body, "fatal error") || startsWith(body, "catastrophic error") ||
        startsWith(body, "command-line error"))
      out.emplace_back(line);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// #line and .loc
//===----------------------------------------------------------------------===//

LineMap::LineMap(std::string_view source) {
  std::vector<std::string_view> lines = splitLines(source);
  std::string file;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view s = trim(lines[i]);
    if (!startsWith(s, "#"))
      continue;
    s = trim(s.substr(1));
    if (startsWith(s, "line") && (s.size() == 4 || !isIdentChar(s[4])))
      s = s.substr(4);
    else if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())))
      continue;
    auto n = takeNumber(s);
    if (!n)
      continue;
    s = trim(s);
    if (startsWith(s, "\"")) {
      // A C string: \" \\ and octal escapes (the lowering writes file names so).
      std::string name;
      size_t k = 1;
      for (; k < s.size() && s[k] != '"'; ++k) {
        if (s[k] != '\\' || k + 1 >= s.size()) {
          name += s[k];
        } else if (std::isdigit(static_cast<unsigned char>(s[k + 1]))) {
          int v = 0, digits = 0;
          while (digits < 3 && k + 1 < s.size() && s[k + 1] >= '0' && s[k + 1] <= '7')
            v = v * 8 + (s[++k] - '0'), ++digits;
          name += static_cast<char>(v);
        } else {
          name += s[++k];
        }
      }
      if (k < s.size())
        file = std::move(name);
    }
    directives_.push_back({static_cast<uint32_t>(i + 1), static_cast<uint32_t>(*n), file});
  }
}

LineMap::Location LineMap::map(uint32_t generatedLine) const {
  auto it = std::upper_bound(directives_.begin(), directives_.end(), generatedLine,
                             [](uint32_t g, const Directive &d) { return g <= d.at; });
  if (it == directives_.begin())
    return {{}, generatedLine};
  const Directive &d = *std::prev(it);
  return {d.file, d.line + (generatedLine - d.at - 1)};
}

PtxLocMap::PtxLocMap(std::string_view ptx) {
  std::vector<std::string_view> lines = splitLines(ptx);
  std::vector<std::pair<uint32_t, std::array<uint32_t, 3>>> raw;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view s = trim(lines[i]);
    if (startsWith(s, ".file")) {
      s = s.substr(5);
      auto index = takeNumber(s);
      size_t open = s.find('"');
      size_t close = open == std::string_view::npos ? open : s.find('"', open + 1);
      if (index && close != std::string_view::npos)
        files_[static_cast<int>(*index)] = std::string(s.substr(open + 1, close - open - 1));
    } else if (startsWith(s, ".loc")) {
      s = s.substr(4);
      auto file = takeNumber(s), line = takeNumber(s), column = takeNumber(s);
      if (file && line)
        raw.push_back({static_cast<uint32_t>(i + 1),
                       {static_cast<uint32_t>(*file), static_cast<uint32_t>(*line),
                        column ? static_cast<uint32_t>(*column) : 0u}});
    }
  }
  // .file directives come after the code: resolve names once all are known.
  for (auto &[at, loc] : raw) {
    auto f = files_.find(static_cast<int>(loc[0]));
    locs_.push_back({at, {f == files_.end() ? std::string() : f->second, loc[1], loc[2]}});
  }
}

PtxLocMap::Location PtxLocMap::map(uint32_t ptxLine) const {
  auto it = std::upper_bound(locs_.begin(), locs_.end(), ptxLine,
                             [](uint32_t l, const auto &entry) { return l < entry.first; });
  if (it == locs_.begin())
    return {};
  return std::prev(it)->second;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

std::string baseName(std::string_view symbol) {
  std::string name(symbol);
  if (startsWith(symbol, "_Z")) {
    int status = 0;
    std::unique_ptr<char, void (*)(void *)> d(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && d)
      name = d.get();
  }
  // "void ns::k<int>(float*, int)" -> "k": cut the parameters and template
  // arguments, then the qualifiers and a return type.
  int depth = 0;
  size_t end = name.size();
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<')
      ++depth;
    else if (name[i] == '>')
      --depth;
    else if (name[i] == '(' && depth == 0) {
      end = i;
      break;
    }
  }
  name.resize(end);
  if (!name.empty() && name.back() == '>') {
    depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == '>')
        ++depth;
      else if (name[i] == '<' && --depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  size_t colon = name.rfind("::");
  if (colon != std::string::npos)
    name = name.substr(colon + 2);
  size_t space = name.rfind(' ');
  if (space != std::string::npos)
    name = name.substr(space + 1);
  return name;
}

uint32_t findKernelLine(std::string_view source, std::string_view symbol) {
  std::string name = baseName(symbol);
  if (name.empty())
    return 0;
  uint32_t fallback = 0;
  for (size_t at = source.find(name); at != std::string_view::npos; at = source.find(name, at + 1)) {
    if (at > 0 && isIdentChar(source[at - 1]))
      continue;
    size_t after = at + name.size();
    if (after < source.size() && isIdentChar(source[after]))
      continue;
    size_t k = after;
    while (k < source.size() && std::isspace(static_cast<unsigned char>(source[k])))
      ++k;
    if (k >= source.size() || (source[k] != '(' && source[k] != '<'))
      continue;
    // The declaration's specifiers: back to the previous ';', '{' or '}'.
    size_t start = source.find_last_of(";{}", at);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view head = source.substr(start, at - start);
    uint32_t line = static_cast<uint32_t>(std::count(source.begin(), source.begin() + at, '\n') + 1);
    if (head.find("__global__") != std::string_view::npos)
      return line;
    if (!fallback && head.find("__device__") != std::string_view::npos)
      fallback = line;
  }
  return fallback;
}

//===----------------------------------------------------------------------===//
// LogMapper
//===----------------------------------------------------------------------===//

FileId LogMapper::resolve(const std::string &name, uint32_t minLines) {
  if (auto it = aliases_.find(name); it != aliases_.end())
    return it->second;
  if (auto it = resolved_.find(name); it != resolved_.end()) {
    FileId id = it->second;
    if (sm_.hasText(id) || sm_.lineCount(id) >= minLines)
      return id;
    return resolved_[name] = sm_.addStandIn(name, minLines); // a later line of a stand-in
  }
  FileId id = sm_.findBuffer(name);
  if (!id.valid()) {
    std::error_code ec;
    fs::path path(name);
    std::vector<std::string> candidates;
    fs::path absolute = fs::absolute(path, ec).lexically_normal();
    if (!ec)
      candidates.push_back(absolute.string());
    fs::path cwd = fs::current_path(ec);
    if (!ec && path.is_absolute()) {
      fs::path relative = path.lexically_normal().lexically_relative(cwd);
      if (!relative.empty() && !startsWith(relative.string(), ".."))
        candidates.push_back(relative.string());
    }
    for (const std::string &c : candidates)
      if ((id = sm_.findBuffer(c)).valid())
        break;
  }
  if (!id.valid() && loader_)
    if (auto text = loader_(name))
      id = sm_.addBuffer(name, std::move(*text));
  if (!id.valid())
    id = sm_.addStandIn(name, minLines);
  resolved_[name] = id;
  return id;
}

SourceRange LogMapper::lineRange(FileId file, uint32_t line, uint32_t column) const {
  uint32_t start = sm_.lineStart(file, line);
  if (!sm_.hasText(file) || line == 0 || line > sm_.lineCount(file))
    return {file, start, start};
  std::string_view text = sm_.lineText(file, line);
  if (column > 0 && column - 1 < text.size()) {
    size_t b = column - 1, e = b + 1;
    if (isIdentChar(text[b]))
      while (e < text.size() && isIdentChar(text[e]))
        ++e;
    return {file, start + static_cast<uint32_t>(b), start + static_cast<uint32_t>(e)};
  }
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
    --e;
  return {file, start + static_cast<uint32_t>(b), start + static_cast<uint32_t>(e)};
}

SourceRange LogMapper::locate(const std::string &file, uint32_t line, uint32_t column) {
  if (file.empty() || line == 0)
    return {};
  return lineRange(resolve(file, line), line, column);
}

SourceRange LogMapper::locateGenerated(FileId cuda, uint32_t generatedLine) {
  if (!cuda.valid() || generatedLine == 0)
    return {};
  LineMap map(sm_.text(cuda));
  LineMap::Location loc = map.map(generatedLine);
  if (loc.file.empty())
    return lineRange(cuda, loc.line);
  return locate(loc.file, loc.line);
}

SourceRange LogMapper::narrow(SourceRange range, std::string_view word) const {
  if (!range.valid() || word.empty() || !sm_.hasText(range.file))
    return range;
  LineColumn lc = sm_.lineColumn(range.file, range.begin);
  std::string_view line = sm_.lineText(range.file, lc.line);
  uint32_t start = sm_.lineStart(range.file, lc.line);
  for (size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1)) {
    bool before = at > 0 && isIdentChar(line[at - 1]);
    bool after = at + word.size() < line.size() && isIdentChar(line[at + word.size()]);
    if (!before && !after)
      return {range.file, start + static_cast<uint32_t>(at), start + static_cast<uint32_t>(at + word.size())};
  }
  return range;
}

SourceRange LogMapper::kernelRange(FileId cuda, std::string_view symbol) {
  if (!cuda.valid())
    return {};
  uint32_t line = findKernelLine(sm_.text(cuda), symbol);
  if (!line)
    return {};
  return narrow(locateGenerated(cuda, line), baseName(symbol));
}

std::vector<Diagnostic> LogMapper::mapFrontEnd(std::string_view log) {
  std::vector<Diagnostic> out;
  std::vector<FrontEndMessage> messages = parseFrontEndLog(log);
  // Stand-ins are made once, with the largest line any message names.
  std::map<std::string, uint32_t> maxLine;
  for (const FrontEndMessage &m : messages)
    maxLine[m.file] = std::max(maxLine[m.file], m.line);
  for (const auto &[file, line] : maxLine)
    resolve(file, line);

  for (const FrontEndMessage &m : messages) {
    FileId file = resolve(m.file, m.line);
    uint32_t column = 0;
    if (m.caret >= 0 && sm_.hasText(file) && m.line <= sm_.lineCount(file)) {
      std::string_view actual = sm_.lineText(file, m.line);
      std::string_view printed = m.sourceLine;
      if (actual == printed) {
        column = static_cast<uint32_t>(m.caret) + 1;
      } else if (trim(actual) == trim(printed) && !trim(printed).empty()) {
        // Same text, different indentation (tabs expanded): keep the offset
        // from the first non-blank character.
        size_t printedIndent = printed.find(trim(printed).front());
        size_t actualIndent = actual.find(trim(actual).front());
        if (static_cast<size_t>(m.caret) >= printedIndent)
          column = static_cast<uint32_t>(m.caret - printedIndent + actualIndent) + 1;
      }
    }
    Diagnostic d;
    d.code = m.severity == Severity::Error ? "cuda.error" : "cuda.warning";
    d.severity = m.severity;
    d.range = lineRange(file, m.line, column);
    d.message = m.text;
    if (!m.number.empty())
      d.message += " (#" + m.number + ")";
    for (const std::string &n : m.notes) {
      Note note{{}, n};
      // "detected during instantiation of ... at line 9"
      size_t at = n.rfind(" at line ");
      if (at != std::string::npos) {
        std::string_view rest = std::string_view(n).substr(at + 9);
        if (auto line = takeNumber(rest); line && trim(rest).empty())
          note.range = lineRange(resolve(m.file, static_cast<uint32_t>(*line)), static_cast<uint32_t>(*line));
      }
      d.notes.push_back(std::move(note));
    }
    out.push_back(std::move(d));
  }
  for (const std::string &e : unlocatedErrors(log))
    out.push_back({"cuda.error", Severity::Error, {}, e, {}, {}});
  return out;
}

void LogMapper::locateUnlined(Diagnostic &d, std::string_view text, FileId cuda, std::string_view cudaText) {
  // "Register allocation failed with register count of '232'": the count is
  // a setmaxnreg budget, so the role that asked for it (its setmaxnreg_inc<N>
  // or _dec<N> in the generated code, whose #line names the role).
  std::string_view key = "register count of '";
  if (size_t at = text.find(key); at != std::string_view::npos) {
    std::string_view rest = text.substr(at + key.size());
    if (auto n = takeNumber(rest)) {
      std::string count = std::to_string(*n);
      // setmaxnreg_inc<232>() or the raw "setmaxnreg.inc.sync.aligned.u32 232;"
      auto namesCount = [&](std::string_view line) {
        for (size_t at = line.find(count); at != std::string_view::npos; at = line.find(count, at + 1)) {
          bool before = at > 0 && std::isdigit(static_cast<unsigned char>(line[at - 1]));
          size_t after = at + count.size();
          if (!before && (after == line.size() || !std::isdigit(static_cast<unsigned char>(line[after]))))
            return true;
        }
        return false;
      };
      for (size_t pos = findInCode(cudaText, "setmaxnreg"); pos != std::string_view::npos;
           pos = findInCode(cudaText, "setmaxnreg", pos + 1)) {
        size_t eol = cudaText.find('\n', pos);
        if (!namesCount(cudaText.substr(pos, eol == std::string_view::npos ? eol : eol - pos)))
          continue;
        auto line = static_cast<uint32_t>(std::count(cudaText.begin(), cudaText.begin() + pos, '\n') + 1);
        d.range = locateGenerated(cuda, line);
        d.notes.push_back({{}, "ptxas names no kernel: this is the role whose register budget is " +
                                   std::to_string(*n) + " (setmaxnreg); the code it runs needs more"});
        return;
      }
    }
  }
  // "... for the function 'gemm_sm90_ws'": that kernel.
  std::string_view fn = "function '";
  if (size_t at = text.find(fn); at != std::string_view::npos) {
    size_t end = text.find('\'', at + fn.size());
    if (end != std::string_view::npos)
      d.range = kernelRange(cuda, text.substr(at + fn.size(), end - at - fn.size()));
  }
}

std::vector<Diagnostic> LogMapper::mapPtxas(const PtxasReport &report, std::string_view ptx, FileId cuda) {
  std::vector<Diagnostic> out;
  PtxLocMap locs(ptx);
  std::string_view cudaText = cuda.valid() ? sm_.text(cuda) : std::string_view();

  size_t errors = 0;
  for (const PtxasMessage &m : report.messages)
    errors += m.severity == Severity::Error && m.text.find("aborted due to errors") == std::string::npos;

  // The first setmaxnreg of the generated code, where ptxas's notes about
  // it (which name no function) are placed.
  SourceRange setmaxnregAt;
  if (size_t at = findInCode(cudaText, "setmaxnreg"); at != std::string_view::npos)
    setmaxnregAt = narrow(
        locateGenerated(cuda, static_cast<uint32_t>(std::count(cudaText.begin(), cudaText.begin() + at, '\n') + 1)),
        "setmaxnreg");

  for (const PtxasMessage &m : report.messages) {
    std::string text = m.text;
    std::string id = m.id.empty() ? "" : " (" + m.id + ")";
    if (m.severity == Severity::Error && errors > 0 && text.find("aborted due to errors") != std::string::npos)
      continue; // the summary of errors already reported
    if (text.find("Registers are spilled to local memory") != std::string::npos)
      continue; // reported per function from the properties below
    Diagnostic d;
    d.severity = m.severity == Severity::Error ? Severity::Error : Severity::Warning;
    if (text.find("setmaxnreg") != std::string::npos && m.severity != Severity::Error) {
      d.code = "ptxas.setmaxnreg";
      d.range = setmaxnregAt;
      size_t ignored = text.find("'setmaxnreg' ignored");
      if (ignored != std::string::npos) {
        std::string reason(trim(std::string_view(text).substr(ignored + 20)));
        if (!reason.empty() && (reason.front() == ';' || reason.front() == ':'))
          reason = std::string(trim(std::string_view(reason).substr(1)));
        if (!reason.empty() && reason.back() == '.')
          reason.pop_back();
        d.message = "ptxas ignored setmaxnreg" + (reason.empty() ? std::string() : ": " + reason) + id;
      } else {
        d.message = "ptxas: " + text + id;
      }
      d.notes.push_back({{}, "ptxas names no kernel; this is the first setmaxnreg of the generated code"});
      out.push_back(std::move(d));
      continue;
    }
    d.code = m.severity == Severity::Error ? "cuda.error" : "cuda.warning";
    d.message = "ptxas: " + text + id;
    // "wgmma.mma_async instructions are serialized due to REASON in (for) the function 'K'" (C7510-C7520): the
    // pipeline the schedule was written for runs one MMA at a time; its own code, at the kernel it names
    const std::string_view serialized = "wgmma.mma_async instructions are serialized due to ";
    if (size_t at = text.find(serialized); at != std::string::npos && m.severity != Severity::Error) {
      std::string reason = text.substr(at + serialized.size());
      std::string kernel;
      for (const std::string fn : {" in the function '", " for the function '"})
        if (size_t f = reason.find(fn); f != std::string::npos && kernel.empty()) {
          size_t end = reason.find('\'', f + fn.size());
          kernel = baseName(reason.substr(f + fn.size(), end == std::string::npos ? std::string::npos : end - f - fn.size()));
          reason.resize(f);
        }
      d.code = "ptxas.wgmma-serialized";
      d.message = "ptxas serializes the wgmma pipeline" + (kernel.empty() ? std::string() : " of kernel '" + kernel + "'") +
                  ": " + std::string(trim(reason)) + id;
    }
    if (m.ptxLine == 0)
      locateUnlined(d, text, cuda, cudaText);
    if (m.ptxLine > 0) {
      PtxLocMap::Location loc = locs.map(m.ptxLine);
      if (!loc.file.empty()) {
        // The .loc column counts in the generated line, which a #line
        // directive may have mapped to a different text: lines only.
        d.range = locate(loc.file, loc.line);
        d.notes.push_back({{}, "at line " + std::to_string(m.ptxLine) + " of the PTX"});
      } else {
        d.message += " (" + m.ptxFile + ", line " + std::to_string(m.ptxLine) + ")";
      }
    }
    out.push_back(std::move(d));
  }

  for (const PtxasFunction &f : report.functions) {
    if (!f.spills())
      continue;
    Diagnostic d;
    d.code = "ptxas.spill";
    d.severity = Severity::Warning;
    std::string name = baseName(f.name);
    d.message = std::string(f.entry ? "kernel '" : "function '") + name +
                "' spills registers to local memory: " + std::to_string(f.spillStores) + " bytes stored, " +
                std::to_string(f.spillLoads) + " bytes loaded";
    std::string detail;
    if (f.registers >= 0)
      detail = std::to_string(f.registers) + " registers";
    if (f.stackFrame)
      detail += (detail.empty() ? "" : ", ") + std::to_string(f.stackFrame) + "-byte stack frame";
    if (!detail.empty())
      d.message += " (" + detail + ")";
    d.range = kernelRange(cuda, f.name);
    out.push_back(std::move(d));
  }
  return out;
}

LogMapper::Loader fileLoader(std::vector<std::string> dirs) {
  return [dirs = std::move(dirs)](const std::string &name) -> std::optional<std::string> {
    std::vector<fs::path> candidates{fs::path(name)};
    if (fs::path(name).is_relative())
      for (const std::string &d : dirs)
        candidates.push_back(fs::path(d) / name);
    for (const fs::path &p : candidates) {
      std::error_code ec;
      if (!fs::is_regular_file(p, ec))
        continue;
      std::ifstream in(p, std::ios::binary);
      if (!in)
        continue;
      std::ostringstream ss;
      ss << in.rdbuf();
      return ss.str();
    }
    return std::nullopt;
  };
}

} // namespace cake::runner
