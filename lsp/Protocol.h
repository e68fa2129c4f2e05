//===- Protocol.h - LSP's JSON: reading params, writing results -*- C++ -*-===//
//
// Part of CAKE. The protocol layer's half of every feature: reading the
// request's params into the core's plain values (a URI, a Position, a
// Range, the options of a command), with InvalidParams errors that name the
// JSON path, and converting the core's results (lsp/core/Types.h,
// lsp/core/Features.h) into their LSP JSON. JSON lives here, in
// Server.cpp and in cli/ only; nothing under lsp/core/ or lsp/features/
// includes this header (tests/arch/check_lsp_core.py).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lsp/core/Error.h"
#include "lsp/core/Features.h"
#include "lsp/features/Cost.h"

#include <nlohmann/json.hpp>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace cake::lsp {

using json = nlohmann::json;

/// Reads params field \p key as type T; throws InvalidParams naming the JSON
/// path (e.g. "params.textDocument.uri") when it is missing or mistyped.
template <typename T> T field(const json &object, std::string_view key, std::string_view path) {
  std::string where = std::string(path) + "." + std::string(key);
  if (!object.is_object() || !object.contains(key))
    throw LspError(ErrorCode::InvalidParams, "missing " + where);
  const json &value = object.at(key);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts booleans and floats to integers; LSP integers are
    // integers, and its uintegers are not negative.
    if (!value.is_number_integer() || (std::is_unsigned_v<T> && value.is_number_integer() &&
                                       !value.is_number_unsigned() && value.get<int64_t>() < 0))
      throw LspError(ErrorCode::InvalidParams, "wrong type for " + where + " (expected " +
                                                   (std::is_unsigned_v<T> ? "a non-negative integer" : "an integer") +
                                                   ")");
    if constexpr (std::is_unsigned_v<T>)
      if (value.get<uint64_t>() > std::numeric_limits<T>::max())
        return std::numeric_limits<T>::max(); // a position far past the end clamps
  }
  try {
    return object.at(key).get<T>();
  } catch (const json::exception &) {
    throw LspError(ErrorCode::InvalidParams, "wrong type for " + where);
  }
}

/// params field \p key itself, not a copy (field<json> copies the subtree:
/// a didChange's text); throws InvalidParams as field does when it is
/// missing.
inline const json &member(const json &object, std::string_view key, std::string_view path) {
  if (!object.is_object() || !object.contains(key))
    throw LspError(ErrorCode::InvalidParams, "missing " + std::string(path) + "." + std::string(key));
  return object.find(key).value();
}

//===-- Params ------------------------------------------------------------===//

/// `params.textDocument.uri`.
std::string documentUri(const json &params);
/// The position at \p object[key] (path names \p object in errors).
Position positionField(const json &object, std::string_view key, std::string_view path);
/// The range at \p object[key].
Range rangeField(const json &object, std::string_view key, std::string_view path);
/// `params.contentChanges` of didChange.
std::vector<ContentChange> contentChanges(const json &params);
/// The document of a command: `params.arguments[0]`, a URI or {"uri": ...}.
std::string argumentUri(const json &params, bool cudaToo = false);
/// The options of cake.run / cake.bench, `params.arguments[1]`.
RunOptions runOptions(const json &params);
/// The options of cake.score, `params.arguments[1]`.
TaskScoreOptions scoreOptions(const json &params);

/// What the reader needs of a message before its turn (its cancels are
/// applied on arrival): read without building its tree, so that a burst of
/// edits is parsed once, in its turn (issue #16: 80,000 notifications).
struct MessageHead {
  bool valid = false;    ///< the text is JSON
  bool isObject = false; ///< the top level is an object
  bool hasId = false, hasMethod = false;
  json id;                           ///< the "id" when a string or an integer, else null
  std::optional<std::string> method; ///< the "method" when a string
  json paramsId;                     ///< params.id when params is an object with a scalar id, else null
};
MessageHead readMessageHead(std::string_view body);

/// A message whose strings hold bytes that are not UTF-8 or lone surrogate
/// escapes (\uD800), which a JSON parser refuses: parsed with those bytes
/// kept in its strings as they were (a lone surrogate as its generalized
/// UTF-8 form, ED A0 80 for \uD800), so that a document with them opens and
/// the checker reports them where they are (issue #16: the whole message
/// was refused with -32700 and the document never opened). nullopt when
/// the message is not JSON for another reason, or has nothing to repair.
std::optional<json> parseRepairingUtf8(std::string_view body);

//===-- Results -----------------------------------------------------------===//

void to_json(json &j, const Position &p);
void to_json(json &j, const Range &r);
void to_json(json &j, const Location &l);
void to_json(json &j, const Edit &e);
void to_json(json &j, const MarkupContent &m);
void to_json(json &j, const Hover &h);
void to_json(json &j, const CompletionItem &c);
void to_json(json &j, const CompletionList &c);
void to_json(json &j, const DocumentSymbol &s);
void to_json(json &j, const SymbolInformation &s);
void to_json(json &j, const SemanticTokensLegend &l);
void to_json(json &j, const SemanticTokens &t);
void to_json(json &j, const SemanticTokensDelta &d);
void to_json(json &j, const InlayHint &h);
void to_json(json &j, const DiagnosticFix &f);
void to_json(json &j, const LspDiagnostic &d);
void to_json(json &j, const WorkspaceEdit &e);
void to_json(json &j, const CodeAction &a);
void to_json(json &j, const PrepareRename &r);
void to_json(json &j, const SignatureHelp &h);
void to_json(json &j, const FoldingRange &f);
void to_json(json &j, const SelectionRange &r);
void to_json(json &j, const DocumentHighlight &h);
void to_json(json &j, const CodeLens &l);

json toJSON(const DocumentSymbols &symbols);
/// The commands' results, in the schemas of docs/lsp-extensions.md section
/// 5 (diagnostics in the CLI's JSON schema, formats/JsonRenderer.h).
json toJSON(const CheckReport &r);
json toJSON(const CostReport &r);
json toJSON(const ApplyFixReport &r);
json toJSON(const LoweredView &v);
json toJSON(const CompileReport &r);
json toJSON(const RunReport &r);
/// cake.score's reply: {uri, exitCode, ok, accepted, score, report} or {ok: false, message}.
json scoreToJSON(const RunReport &r);
json toJSON(const SelectReport &r);

/// The reader of `*.workload.json` files the core's cost estimates use
/// (features/Cost.h).
std::optional<WorkloadFile> readWorkload(const std::string &text);

} // namespace cake::lsp
