//===- Types.h - The language server's results, as plain C++ ---*- C++ -*-===//
//
// Part of CAKE. What the features of lsp/features/ take and return: LSP's
// structures (positions, ranges, hovers, completion items, symbols, tokens,
// hints, edits) as plain structs, without JSON. The protocol layer
// (lsp/Protocol.h) converts them to and from the wire; nothing here knows
// how they are spelled there. Empty optional fields (an empty tooltip, no
// fixes) are left out of the JSON.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cake::lsp {

/// Position encoding of `character` offsets.
enum class Encoding { UTF16, UTF8 };

/// 0-based line and character (in the encoding's units).
struct Position {
  uint32_t line = 0, character = 0;
  bool operator==(const Position &) const = default;
};

struct Range {
  Position start, end;
  bool operator==(const Range &) const = default;
};

struct Location {
  std::string uri;
  Range range;
};

/// An LSP TextEdit (named apart from cake::TextEdit, the byte-range fix-it).
struct Edit {
  Range range;
  std::string newText;
};

/// One entry of didChange's contentChanges: the whole text when range is
/// empty.
struct ContentChange {
  std::optional<Range> range;
  std::string text;
};

/// Markdown or plain text, as the client asked.
struct MarkupContent {
  bool markdown = false;
  std::string value;
};

struct Hover {
  MarkupContent contents;
  Range range;
};

struct CompletionItem {
  std::string label;
  int kind = 0; ///< LSP CompletionItemKind
  std::string detail;
  std::string insertText; ///< empty: the label
  std::optional<MarkupContent> documentation;
};

struct CompletionList {
  bool isIncomplete = false;
  std::vector<CompletionItem> items;
};

struct DocumentSymbol {
  std::string name;
  int kind = 0; ///< LSP SymbolKind
  std::string detail;
  Range range, selectionRange;
  std::vector<DocumentSymbol> children;
};

/// The flat form for clients without hierarchical document symbols.
struct SymbolInformation {
  std::string name;
  int kind = 0;
  Location location;
  std::string containerName; ///< empty: none
};

using DocumentSymbols = std::variant<std::vector<DocumentSymbol>, std::vector<SymbolInformation>>;

struct SemanticTokensLegend {
  std::vector<std::string> tokenTypes, tokenModifiers;
};

/// The relative encoding of the spec: 5 integers per token.
struct SemanticTokens {
  std::string resultId; ///< empty: none (a range result)
  std::vector<uint32_t> data;
};

/// Replaces deleteCount integers of the previous result's data at start.
struct SemanticTokensEdit {
  uint32_t start = 0, deleteCount = 0;
  std::vector<uint32_t> data;
};

/// textDocument/semanticTokens/full/delta: the edits from the result named
/// by previousResultId to this one.
struct SemanticTokensDelta {
  std::string resultId;
  std::vector<SemanticTokensEdit> edits;
};

struct InlayHint {
  Position position;
  std::string label, tooltip;
  int kind = 0; ///< 1 type, 2 parameter, 0: none
  bool paddingLeft = false, paddingRight = false;
};

/// A fix-it of a diagnostic, in the client's positions (`data.fixes`).
struct DiagnosticFix {
  std::string title;
  std::vector<Edit> edits;
  bool preferred = true; ///< machine-applicable (Fix::preferred)
};

struct RelatedInformation {
  Location location;
  std::string message;
};

/// An LSP diagnostic (named apart from cake::Diagnostic).
struct LspDiagnostic {
  Range range;
  int severity = 1;
  std::string code;
  std::string source = "cake";
  std::string message;
  std::string codeDescription; ///< href of the rule's page; empty: none
  std::vector<DiagnosticFix> fixes;
  std::vector<RelatedInformation> related;
};

/// Edits of one document; `documentChanges` (with the version) when the
/// client supports it, else `changes`.
struct WorkspaceEdit {
  std::string uri;
  int64_t version = 0;
  bool documentChanges = false;
  std::vector<Edit> edits;
};

struct CodeAction {
  std::string title;
  std::string kind;
  std::vector<LspDiagnostic> diagnostics;
  bool isPreferred = false;
  WorkspaceEdit edit;
  /// Why it cannot be applied (CodeAction.disabled.reason; then no edit), or "".
  std::string disabled;
};


/// textDocument/prepareRename: the range of the name and the name itself.
struct PrepareRename {
  Range range;
  std::string placeholder;
};

/// One signature of textDocument/signatureHelp (an operation of the primitive
/// table), its parameters as labels of the signature string.
struct SignatureInformation {
  std::string label; ///< `tma.load(src: global view, dst: shared view, ...)`
  std::string documentation;
  /// Each parameter's [begin, end) in label (ASCII: bytes are UTF-16 units).
  std::vector<std::pair<uint32_t, uint32_t>> parameters;
};

struct SignatureHelp {
  std::vector<SignatureInformation> signatures;
  uint32_t activeSignature = 0;
  std::optional<uint32_t> activeParameter; ///< none: past the last parameter
};

/// textDocument/foldingRange: whole lines; kind "comment", "region" or "".
struct FoldingRange {
  uint32_t startLine = 0, endLine = 0;
  std::string kind;
};

/// textDocument/selectionRange: a range and the ranges around it, innermost
/// first (parent chain flattened: ranges[0] is the innermost).
struct SelectionRange {
  std::vector<Range> ranges;
};

/// textDocument/documentHighlight; kind 1 text, 2 read, 3 write.
struct DocumentHighlight {
  Range range;
  int kind = 1;
};

/// A command as LSP spells it: title, command id, arguments. Arguments are
/// the document's URI and, when set, an object naming the kernel.
struct Command {
  std::string title, command;
  std::string uri;
  std::string kernel; ///< empty: no options argument
};

/// textDocument/codeLens.
struct CodeLens {
  Range range;
  Command command;
};

} // namespace cake::lsp
