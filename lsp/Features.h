//===- Features.h - The language server's features -------------*- C++ -*-===//
//
// Part of CAKE. One file per feature under lsp/features/; each function takes
// the server state and the request's params and returns the result (or
// throws LspError). They compute everything from DocumentStore::analyze, i.e.
// from the same checkSource as the CLI.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lsp/Documents.h"

#include <functional>

namespace cake::lsp {

/// What the client can do, from `initialize`.
struct ClientCaps {
  Encoding encoding = Encoding::UTF16;
  bool relatedInformation = false; ///< else notes are sent as separate hints
  bool codeDescription = false;
  bool markdownHover = false;
  bool documentChanges = false;    ///< WorkspaceEdit.documentChanges
  bool workDoneProgress = false;
  bool pullDiagnostics = false;
  bool hierarchicalSymbols = false; ///< DocumentSymbol[] rather than SymbolInformation[]
};

struct State {
  DocumentStore docs;
  ClientCaps caps;
  CheckOptions check;
  std::function<void(const std::string &method, json params)> notify;
  /// Sends a request to the client (e.g. workspace/applyEdit); fire and forget.
  std::function<void(const std::string &method, json params)> request;
};

/// The document URI of `params.textDocument.uri`.
std::string documentUri(const json &params);

// Diagnostics.cpp
/// LSP diagnostics of a document, in the form the client supports.
json lspDiagnostics(State &state, const std::string &uri);
/// textDocument/diagnostic (pull).
json pullDiagnostics(State &state, const json &params);

// CodeActions.cpp
json codeActions(State &state, const json &params);
/// A WorkspaceEdit applying \p fixes' edits to \p uri.
json workspaceEdit(State &state, const std::string &uri, const std::vector<Fix> &fixes);

// Formatting.cpp
json formatting(State &state, const json &params);

// Commands.cpp
/// The commands the server offers, for the initialize result.
json commandNames();
json executeCommand(State &state, const json &params);

// Hover.cpp
json hover(State &state, const json &params);

// DocumentSymbols.cpp
json documentSymbols(State &state, const json &params);

// Definition.cpp
json definition(State &state, const json &params);

// References.cpp
json references(State &state, const json &params);

// Completion.cpp
/// The characters after which clients should ask for completion.
json completionTriggers();
json completion(State &state, const json &params);

// SemanticTokens.cpp
/// The token types and modifiers, for the initialize result.
json semanticTokensLegend();
json semanticTokens(State &state, const json &params);

// InlayHints.cpp
json inlayHints(State &state, const json &params);

// Lowered.cpp
/// cake/viewLowered: the generated CUDA of a kernel (not available yet).
json viewLowered(State &state, const json &params);
/// cake.compile: lower and build with NVRTC (Lowered.cpp).
json compileDocument(State &state, const std::string &uri);

} // namespace cake::lsp
