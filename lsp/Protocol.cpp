//===- Protocol.cpp - LSP's JSON: reading params, writing results ---------===//
#include "lsp/Protocol.h"

#include "formats/JsonRenderer.h"

namespace cake::lsp {

//===-- Params ------------------------------------------------------------===//

std::string documentUri(const json &params) {
  return field<std::string>(member(params, "textDocument", "params"), "uri", "params.textDocument");
}

Position positionField(const json &object, std::string_view key, std::string_view path) {
  const json &p = member(object, key, path);
  std::string where = std::string(path) + "." + std::string(key);
  return {field<uint32_t>(p, "line", where), field<uint32_t>(p, "character", where)};
}

Range rangeField(const json &object, std::string_view key, std::string_view path) {
  const json &r = member(object, key, path);
  std::string where = std::string(path) + "." + std::string(key);
  Position start = positionField(r, "start", where);
  return {start, positionField(r, "end", where)};
}

std::vector<ContentChange> contentChanges(const json &params) {
  const json &changes = member(params, "contentChanges", "params");
  if (!changes.is_array())
    throw LspError(ErrorCode::InvalidParams, "params.contentChanges must be an array");
  std::vector<ContentChange> out;
  for (size_t i = 0; i < changes.size(); ++i) {
    const json &c = changes[i];
    std::string path = "params.contentChanges[" + std::to_string(i) + "]";
    ContentChange change{std::nullopt, field<std::string>(c, "text", path)};
    if (c.contains("range"))
      change.range = rangeField(c, "range", path);
    out.push_back(std::move(change));
  }
  return out;
}

std::string argumentUri(const json &params, bool cudaToo) {
  json args = params.value("arguments", json::array());
  if (!args.is_array() || args.empty())
    throw LspError(ErrorCode::InvalidParams, "params.arguments[0] must name a document");
  const json &a = args[0];
  std::string uri = a.is_string() ? a.get<std::string>() : field<std::string>(a, "uri", "params.arguments[0]");
  // the commands (check, compile, run, cost, ...) read CAKE IR; a CUDA source gets its diagnostics only
  if (isCudaDocument(uri) && !cudaToo)
    throw LspError(ErrorCode::InvalidParams, "params.arguments[0]: '" + uri +
                                                 "' is a CUDA source: the commands work on CAKE IR files (a .cu "
                                                 "file gets the CUDA checker's diagnostics, with the cuda setting)");
  return uri;
}

RunOptions runOptions(const json &params) {
  json args = params.value("arguments", json::array());
  json o = args.is_array() && args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  RunOptions out;
  auto str = [&](const char *key) { return field<std::string>(o, key, "params.arguments[1]"); };
  auto num = [&](const char *key) { return field<double>(o, key, "params.arguments[1]"); };
  if (o.contains("workload"))
    out.workload = str("workload");
  if (o.contains("kernel"))
    out.kernel = str("kernel");
  if (o.contains("sizes")) {
    if (!o["sizes"].is_object())
      throw LspError(ErrorCode::InvalidParams, "params.arguments[1].sizes must be an object of integers");
    for (auto &[name, v] : o["sizes"].items()) {
      if (!v.is_number_integer() || v.get<int64_t>() < 1)
        throw LspError(ErrorCode::InvalidParams, "params.arguments[1].sizes." + name + " must be a positive integer");
      out.sizes[name] = v.get<int64_t>();
    }
  }
  if (o.contains("reps"))
    out.reps = num("reps");
  if (o.contains("warmup"))
    out.warmup = num("warmup");
  if (o.contains("timeout"))
    out.timeout = num("timeout");
  out.coldL2 = o.value("coldL2", false);
  return out;
}

TaskScoreOptions scoreOptions(const json &params) {
  json args = params.value("arguments", json::array());
  json o = args.is_array() && args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  const char *where = "params.arguments[1]";
  TaskScoreOptions out;
  out.task = field<std::string>(o, "task", where);
  if (o.contains("mode")) {
    std::string mode = field<std::string>(o, "mode", where);
    if (mode != "check" && mode != "score")
      throw LspError(ErrorCode::InvalidParams, "params.arguments[1].mode is \"check\" or \"score\"");
    out.score = mode == "score";
  }
  if (o.contains("seed")) {
    if (!o["seed"].is_number_unsigned())
      throw LspError(ErrorCode::InvalidParams, "params.arguments[1].seed must be a non-negative integer");
    out.seed = o["seed"].get<uint64_t>();
  }
  if (o.contains("heldout")) {
    if (!o["heldout"].is_number_integer() || o["heldout"].get<int64_t>() < 0 || o["heldout"].get<int64_t>() > 1000)
      throw LspError(ErrorCode::InvalidParams, "params.arguments[1].heldout must be an integer from 0 to 1000");
    out.heldout = int(o["heldout"].get<int64_t>());
  }
  if (o.contains("launch"))
    out.launch = field<std::string>(o, "launch", where);
  out.noTime = o.value("noTime", false);
  return out;
}

//===-- The head of a message -------------------------------------------------===//

namespace {

/// Records the top-level "id" and "method" of a message and its params'
/// "id", building nothing else (a SAX pass).
class HeadReader {
public:
  explicit HeadReader(MessageHead &head) : h_(head) {}

  bool null() { return value(json()); }
  bool boolean(bool b) { return value(json(b)); }
  bool number_integer(json::number_integer_t n) { return value(json(n)); }
  bool number_unsigned(json::number_unsigned_t n) { return value(json(n)); }
  bool number_float(json::number_float_t, const std::string &) { return value(json()); } // never an id
  bool string(json::string_t &s) {
    if (depth_ == 1 && key1_ == "method") {
      h_.hasMethod = true;
      h_.method = s;
      return true;
    }
    return value(json(s));
  }
  bool binary(json::binary_t &) { return value(json()); }
  bool key(json::string_t &k) {
    if (depth_ == 1)
      key1_ = k;
    else if (depth_ == 2 && inParams_)
      key2_ = k;
    return true;
  }
  bool start_object(std::size_t) {
    if (depth_ == 0)
      h_.isObject = true;
    else if (depth_ == 1 && key1_ == "params") {
      inParams_ = true;
      h_.paramsId = json();
    }
    return open();
  }
  bool start_array(std::size_t) { return open(); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) { return false; }

private:
  /// A structured value is never an id.
  bool open() {
    value(json());
    ++depth_;
    return true;
  }
  bool close() {
    if (--depth_ == 1)
      inParams_ = false;
    return true;
  }
  bool value(json v) {
    if (depth_ == 1 && key1_ == "id") {
      h_.hasId = true;
      h_.id = v.is_string() || v.is_number_integer() ? std::move(v) : json();
    } else if (depth_ == 1 && key1_ == "method") {
      h_.hasMethod = true;
      h_.method.reset();
    } else if (depth_ == 1 && key1_ == "params") {
      h_.paramsId = json(); // params that are not an object name no request
    } else if (depth_ == 2 && inParams_ && key2_ == "id") {
      h_.paramsId = std::move(v);
    }
    return true;
  }

  MessageHead &h_;
  int depth_ = 0;
  bool inParams_ = false;
  std::string key1_, key2_;
};

} // namespace

MessageHead readMessageHead(std::string_view body) {
  MessageHead head;
  HeadReader reader(head);
  head.valid = json::sax_parse(body, &reader);
  return head;
}

//===-- Messages that are not UTF-8 ----------------------------------------===//

namespace {

// While such a message is parsed, private-use code points of plane 16 stand
// in for what a JSON parser refuses: U+10FE80..U+10FEFF for a byte 0x80..0xFF
// that is not part of a UTF-8 character, U+10F000..U+10F7FF for a lone
// surrogate escape \uD800..\uDFFF. A message that holds code points from
// U+10F000 on itself is not repaired (its placeholders would be ambiguous).
constexpr uint32_t kBytePlaceholder = 0x10FE00, kSurrogatePlaceholder = 0x10F000, kFirstPlaceholder = 0x10F000;

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) { // a surrogate too: its generalized (WTF-8) form
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// The value of the four hex digits at \p s[i], or -1.
int hex4(std::string_view s, size_t i) {
  if (i + 4 > s.size())
    return -1;
  int v = 0;
  for (size_t k = i; k < i + 4; ++k) {
    char c = s[k];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

/// The placeholders of the strings in \p j turned back into the bytes
/// they stand for.
void restorePlaceholders(json &j) {
  if (j.is_array() || j.is_object()) {
    for (json &v : j)
      restorePlaceholders(v);
    return;
  }
  if (!j.is_string())
    return;
  std::string &s = j.get_ref<std::string &>();
  if (s.find("\xF4\x8F") == std::string::npos)
    return;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    size_t n = utf8Character(s, i, &cp); // the parser's output is UTF-8
    if (n == 4 && cp >= kSurrogatePlaceholder && cp < kSurrogatePlaceholder + 0x800)
      appendUtf8(out, 0xD800 + (cp - kSurrogatePlaceholder));
    else if (n == 4 && cp >= kBytePlaceholder + 0x80 && cp <= kBytePlaceholder + 0xFF)
      out += static_cast<char>(cp - kBytePlaceholder);
    else
      out.append(s, i, std::max<size_t>(n, 1));
    i += std::max<size_t>(n, 1);
  }
  s = std::move(out);
}

} // namespace

std::optional<json> parseRepairingUtf8(std::string_view body) {
  std::string out;
  out.reserve(body.size() + 64);
  bool inString = false, repaired = false;
  for (size_t i = 0; i < body.size();) {
    auto c = static_cast<unsigned char>(body[i]);
    if (c == '"' || (!inString && c < 0x80)) {
      inString ^= c == '"';
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (inString && c == '\\') {
      int u = i + 1 < body.size() && body[i + 1] == 'u' ? hex4(body, i + 2) : -1;
      if (u >= 0xD800 && u <= 0xDBFF && i + 7 < body.size() && body[i + 6] == '\\' && body[i + 7] == 'u') {
        int low = hex4(body, i + 8);
        if (low >= 0xDC00 && low <= 0xDFFF) { // a surrogate pair
          if (0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00) >= static_cast<int>(kFirstPlaceholder))
            return std::nullopt;
          out.append(body.substr(i, 12));
          i += 12;
          continue;
        }
      }
      if (u >= 0xD800 && u <= 0xDFFF) { // a lone surrogate
        appendUtf8(out, kSurrogatePlaceholder + (u - 0xD800));
        repaired = true;
        i += 6;
        continue;
      }
      size_t n = u >= 0 ? 6 : 2; // another escape, copied (a malformed one fails the parse)
      out.append(body.substr(i, n));
      i += n;
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    if (size_t n = utf8Character(body, i, &cp)) {
      if (cp >= kFirstPlaceholder)
        return std::nullopt;
      out.append(body.substr(i, n));
      i += n;
      continue;
    }
    if (!inString)
      return std::nullopt; // not JSON
    appendUtf8(out, kBytePlaceholder + c);
    repaired = true;
    ++i;
  }
  if (!repaired)
    return std::nullopt;
  json m = json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (m.is_discarded())
    return std::nullopt;
  restorePlaceholders(m);
  return m;
}

//===-- Results -----------------------------------------------------------===//

void to_json(json &j, const Position &p) { j = {{"line", p.line}, {"character", p.character}}; }
void to_json(json &j, const Range &r) { j = {{"start", r.start}, {"end", r.end}}; }
void to_json(json &j, const Location &l) { j = {{"uri", l.uri}, {"range", l.range}}; }
void to_json(json &j, const Edit &e) { j = {{"range", e.range}, {"newText", e.newText}}; }

void to_json(json &j, const MarkupContent &m) {
  j = {{"kind", m.markdown ? "markdown" : "plaintext"}, {"value", m.value}};
}

void to_json(json &j, const Hover &h) { j = {{"contents", h.contents}, {"range", h.range}}; }

void to_json(json &j, const CompletionItem &c) {
  j = {{"label", c.label}, {"kind", c.kind}, {"detail", c.detail}};
  if (!c.insertText.empty())
    j["insertText"] = c.insertText;
  if (c.documentation)
    j["documentation"] = *c.documentation;
}

void to_json(json &j, const CompletionList &c) { j = {{"isIncomplete", c.isIncomplete}, {"items", c.items}}; }

void to_json(json &j, const DocumentSymbol &s) {
  j = {{"name", s.name},
       {"kind", s.kind},
       {"detail", s.detail},
       {"range", s.range},
       {"selectionRange", s.selectionRange},
       {"children", json::array()}};
  for (const DocumentSymbol &c : s.children)
    j["children"].push_back(c);
}

void to_json(json &j, const SymbolInformation &s) {
  j = {{"name", s.name}, {"kind", s.kind}, {"location", s.location}};
  if (!s.containerName.empty())
    j["containerName"] = s.containerName;
}

void to_json(json &j, const SemanticTokensLegend &l) {
  j = {{"tokenTypes", l.tokenTypes}, {"tokenModifiers", l.tokenModifiers}};
}

void to_json(json &j, const SemanticTokens &t) {
  j = {{"data", t.data}};
  if (!t.resultId.empty())
    j["resultId"] = t.resultId;
}

void to_json(json &j, const SemanticTokensDelta &d) {
  j = {{"resultId", d.resultId}, {"edits", json::array()}};
  for (const SemanticTokensEdit &e : d.edits)
    j["edits"].push_back({{"start", e.start}, {"deleteCount", e.deleteCount}, {"data", e.data}});
}

void to_json(json &j, const InlayHint &h) {
  j = {{"position", h.position}, {"label", h.label}, {"tooltip", h.tooltip}};
  if (h.kind)
    j["kind"] = h.kind;
  if (h.paddingLeft)
    j["paddingLeft"] = true;
  if (h.paddingRight)
    j["paddingRight"] = true;
}

void to_json(json &j, const DiagnosticFix &f) {
  j = {{"title", f.title}, {"edits", f.edits}, {"preferred", f.preferred}};
}

void to_json(json &j, const LspDiagnostic &d) {
  j = {{"range", d.range}, {"severity", d.severity}, {"code", d.code}, {"source", d.source}, {"message", d.message}};
  if (!d.codeDescription.empty())
    j["codeDescription"] = {{"href", d.codeDescription}};
  if (!d.fixes.empty())
    j["data"] = {{"fixes", d.fixes}};
  if (!d.related.empty()) {
    json related = json::array();
    for (const RelatedInformation &r : d.related)
      related.push_back({{"location", r.location}, {"message", r.message}});
    j["relatedInformation"] = std::move(related);
  }
}

void to_json(json &j, const WorkspaceEdit &e) {
  json edits = e.edits.empty() ? json::array() : json(e.edits);
  if (e.documentChanges)
    j = {{"documentChanges",
          json::array({{{"textDocument", {{"uri", e.uri}, {"version", e.version}}}, {"edits", std::move(edits)}}})}};
  else
    j = {{"changes", {{e.uri, std::move(edits)}}}};
}

void to_json(json &j, const CodeAction &a) {
  j = {{"title", a.title}, {"kind", a.kind}, {"diagnostics", a.diagnostics}, {"isPreferred", a.isPreferred}};
  if (a.disabled.empty())
    j["edit"] = a.edit;
  else
    j["disabled"] = {{"reason", a.disabled}};
}

void to_json(json &j, const PrepareRename &r) { j = {{"range", r.range}, {"placeholder", r.placeholder}}; }

void to_json(json &j, const SignatureHelp &h) {
  json signatures = json::array();
  for (const SignatureInformation &s : h.signatures) {
    json parameters = json::array();
    for (const auto &[begin, end] : s.parameters)
      parameters.push_back({{"label", {begin, end}}});
    signatures.push_back({{"label", s.label}, {"documentation", s.documentation}, {"parameters", parameters}});
  }
  j = {{"signatures", signatures}, {"activeSignature", h.activeSignature}};
  if (h.activeParameter) // left out past the last parameter (null trips clients such as Neovim 0.9)
    j["activeParameter"] = *h.activeParameter;
}

void to_json(json &j, const FoldingRange &f) {
  j = {{"startLine", f.startLine}, {"endLine", f.endLine}};
  if (!f.kind.empty())
    j["kind"] = f.kind;
}

void to_json(json &j, const SelectionRange &r) {
  // ranges are innermost first; LSP nests them outward through `parent`
  j = json();
  for (auto it = r.ranges.rbegin(); it != r.ranges.rend(); ++it) {
    json node = {{"range", *it}};
    if (!j.is_null())
      node["parent"] = std::move(j);
    j = std::move(node);
  }
}

void to_json(json &j, const DocumentHighlight &h) { j = {{"range", h.range}, {"kind", h.kind}}; }

void to_json(json &j, const CodeLens &l) {
  json arguments = json::array();
  if (!l.command.uri.empty())
    arguments.push_back(l.command.uri);
  if (!l.command.kernel.empty())
    arguments.push_back({{"kernel", l.command.kernel}});
  j = {{"range", l.range},
       {"command", {{"title", l.command.title}, {"command", l.command.command}, {"arguments", arguments}}}};
}

json toJSON(const DocumentSymbols &symbols) {
  return std::visit(
      [](const auto &list) {
        json out = json::array();
        for (const auto &s : list)
          out.push_back(s);
        return out;
      },
      symbols);
}

namespace {

/// Diagnostics in the CLI's schema (`cake check --format json`), plus uri.
json findingsJson(const SourceManager &sm, const std::vector<Diagnostic> &diagnostics, const std::string &uri) {
  json out = diagnosticsToJson(sm, diagnostics);
  out["uri"] = uri;
  return out;
}

} // namespace

json toJSON(const CheckReport &r) {
  return findingsJson(r.analysis->sm, r.analysis->result.diagnostics, r.uri);
}

json toJSON(const CostReport &r) {
  return {{"uri", r.uri},
          {"kernel", r.kernel},
          {"predicted_ms", r.seconds ? json(*r.seconds * 1e3) : json(nullptr)},
          {"bottleneck", r.bottleneck},
          {"floor_ms", r.floorSeconds * 1e3},
          {"fraction_of_floor", r.fractionOfFloor},
          {"sizes", r.sizes},
          {"calibration", r.calibration},
          {"reasons", r.reasons},
          {"summary", r.summary}};
}

json toJSON(const ApplyFixReport &r) { return {{"applied", r.applied}, {"edit", r.edit}}; }

json toJSON(const SelectReport &r) {
  return {{"uri", r.uri}, {"instantiation", r.instantiation}, {"instantiations", r.instantiations}, {"note", r.note}};
}

json toJSON(const LoweredView &v) {
  if (!v.ok) {
    json out = findingsJson(*v.findings.sm, v.findings.diagnostics, v.uri);
    out["ok"] = false;
    return out;
  }
  json kernels = json::array();
  for (const KernelPlan &k : v.kernels) {
    json maps = json::array();
    for (const KernelPlan::TensorMap &m : k.tensorMaps)
      maps.push_back({{"param", m.param}, {"box", m.box}, {"swizzle", m.swizzle}});
    kernels.push_back({{"name", k.name},
                       {"target", k.target},
                       {"block", k.block},
                       {"dynamicShared", k.dynamicShared},
                       {"tensorMaps", maps}});
  }
  return {{"uri", v.uri}, {"ok", true}, {"language", "cuda"}, {"source", v.source}, {"kernels", kernels}};
}

json toJSON(const CompileReport &r) {
  json out = findingsJson(*r.findings.sm, r.findings.diagnostics, r.uri);
  out["ok"] = r.ok;
  if (!r.built)
    return out;
  out["tool"] = r.tool;
  out["target"] = r.target;
  json kernels = json::array();
  for (const CompileReport::Kernel &k : r.kernels)
    kernels.push_back({{"name", k.name},
                       {"registers", k.registers},
                       {"spillStores", k.spillStores},
                       {"spillLoads", k.spillLoads},
                       {"stackFrame", k.stackFrame},
                       {"sharedStatic", k.sharedStatic}});
  out["kernels"] = kernels;
  return out;
}

json scoreToJSON(const RunReport &r) {
  json out = {{"uri", r.uri}, {"exitCode", r.exitCode}};
  json report = r.report.empty() ? json() : json::parse(r.report, nullptr, false);
  if (!report.is_object() || !report.contains("accepted")) {
    out["ok"] = false;
    out["message"] = report.is_object() ? report.value("message", "cake task failed")
                     : r.report.empty() ? r.message
                                        : "cake task wrote a report that is not a JSON object";
    out["noGpu"] = report.is_object() && report.value("status", "") == "no-gpu";
    return out;
  }
  out["ok"] = true; // the candidate was scored: accepted or not, the report says why
  out["accepted"] = report["accepted"];
  out["score"] = report["score"];
  out["report"] = std::move(report);
  return out;
}

json toJSON(const RunReport &r) {
  json out = {{"uri", r.uri}, {"exitCode", r.exitCode}};
  json report = r.report.empty() ? json() : json::parse(r.report, nullptr, false);
  if (!report.is_object()) {
    out["ok"] = false;
    out["message"] = r.report.empty() ? r.message : "cake run wrote a report that is not a JSON object";
    out["noGpu"] = false;
  } else if (r.exitCode == 0 && report.value("ok", false)) {
    out["ok"] = true;
    out["report"] = std::move(report);
  } else {
    out["ok"] = false;
    out["message"] = report.value("message", "the run failed (exit " + std::to_string(r.exitCode) + ")");
    out["noGpu"] = report.value("status", "") == "no-gpu";
    if (report.contains("diagnostics"))
      out["diagnostics"] = report["diagnostics"];
    if (report.contains("time_ms"))
      out["report"] = std::move(report); // timed, but the check failed
  }
  return out;
}

std::optional<WorkloadFile> readWorkload(const std::string &text) {
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("sizes") || !doc["sizes"].is_object())
    return std::nullopt;
  WorkloadFile out;
  if (doc.contains("kernel"))
    out.kernel = doc["kernel"].is_string() ? doc["kernel"].get<std::string>() : ""; // "" matches no kernel
  for (auto &[key, v] : doc["sizes"].items())
    if (v.is_number_integer())
      out.sizes[key] = v.get<int64_t>();
  return out;
}

} // namespace cake::lsp
