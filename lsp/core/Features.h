//===- Features.h - The language server's features -------------*- C++ -*-===//
//
// Part of CAKE. One file per feature under lsp/features/; each function takes
// the server state and plain parameters (a URI, a Position, a Range,
// options) and returns a plain result (lsp/core/Types.h), or throws
// LspError. They compute everything from DocumentStore::analyze, i.e. from
// the same checkSource as the CLI. None of them knows JSON: the protocol
// layer (lsp/Server.cpp, lsp/Protocol.cpp) reads their parameters from the
// request and writes their results into the reply.
//
// The functions that take a State run on the server's main thread, which
// owns the document store. The long ones (compile, run) take a Snapshot
// instead and may run on a worker thread; they report Progress and poll a
// CancelFlag.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cuda/Check.h"
#include "lsp/core/Documents.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <variant>

namespace cake::lsp {

/// The CUDA checker on .cu/.cuh documents (CudaDocuments.cpp), when the client opts in
/// (initializationOptions.cuda = {"enable": true, "arch": "sm_90a", "flags": [...]}): their diagnostics come
/// from `cake check FILE.cu`'s one path, computed on a worker (a check takes 0.3 s on a warm preamble, seconds
/// cold), the latest version's published; hover names the rule under the cursor. Other requests on them answer
/// nothing: clangd, beside this server, serves the C++.
struct CudaDocuments {
  bool enabled = false;
  cuda::CheckOptions options;
  struct Result {
    int64_t version = 0;
    std::vector<LspDiagnostic> diagnostics;
  };
  std::mutex mutex;                       ///< guards what follows (the jobs write, the main thread reads)
  std::map<std::string, int64_t> wanted;  ///< uri -> the version the latest job checks
  std::map<std::string, Result> results;  ///< uri -> the diagnostics last published
};

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
  bool codeActionDisabled = false;  ///< CodeAction.disabled (a refused tactic says why)
};

/// What the core asks of the client; the protocol layer implements it.
class Client {
public:
  virtual ~Client() = default;
  /// Sends workspace/applyEdit (fire and forget).
  virtual void applyEdit(const std::string &label, const WorkspaceEdit &edit) = 0;
};

/// Work-done progress of one request; the protocol layer sends it as
/// $/progress when the client gave a token, else it is dropped.
class Progress {
public:
  virtual ~Progress() = default;
  virtual void begin(const std::string &title) = 0;
  virtual void report(const std::string &message) = 0;
  virtual void end(const std::string &message) = 0;
};

/// Set by `$/cancelRequest` (from the reader thread), polled by long work.
using CancelFlag = std::shared_ptr<std::atomic<bool>>;

/// Throws RequestCancelled when \p cancel is set.
void throwIfCancelled(const CancelFlag &cancel);

struct State {
  DocumentStore docs;
  ClientCaps caps;
  CheckOptions check;
  Client *client = nullptr;
  bool allowWorkloadCommands = false; ///< initializationOptions.allowWorkloadCommands
  /// Where the rule pages' links point: `<rulesBaseUri><code>.md`
  /// (initializationOptions.rulesBaseUri); empty: the docs installed beside
  /// the binary (defaultRulesBaseUri), else no link.
  std::string rulesBaseUri;
  /// The folders of the workspace (initialize's workspaceFolders, else
  /// rootUri), as paths; workspace/symbol also reads the `*.cake` files
  /// under them.
  std::vector<std::string> workspaceRoots;
  /// The last semanticTokens/full (or /full/delta) result sent for each
  /// open document, which a delta request names by its resultId.
  std::map<std::string, SemanticTokens> tokensSent;
  CudaDocuments cuda;
};

// CudaDocuments.cpp
/// Whether \p uri names a CUDA source (.cu, .cuh): the CUDA checker's, never the CAKE IR front end's.
bool isCudaDocument(std::string_view uri);
/// The CUDA checker's diagnostics of \p text (the document \p uri) in the client's form; runs on any thread
/// (it reads only its arguments).
std::vector<LspDiagnostic> checkCudaDocument(const cuda::CheckOptions &options, const ClientCaps &caps,
                                             const std::string &rulesBaseUri, const std::string &uri,
                                             const std::string &text);
/// Hover on a CUDA document: the rule of the diagnostic under \p position (its code, title and page).
std::optional<Hover> cudaHover(State &state, const std::string &uri, Position position);

// Diagnostics.cpp
/// LSP diagnostics of a document, in the form the client supports.
std::vector<LspDiagnostic> lspDiagnostics(State &state, const std::string &uri);

/// The rule pages beside the running binary, found at run time: `file://`
/// of the first of `<exe>/../share/doc/cake/rules/`, `<exe>/../docs/rules/`
/// (a build folder inside the source tree) that exists; "" when none does.
std::string defaultRulesBaseUri();
/// The link of rule \p code's page, or "" when there is none to point at.
std::string rulePageUri(const State &state, const std::string &code);

// CodeActions.cpp
/// The quick fixes of the findings that touch \p range, then the tactics
/// (compiler/driver/Tactics.h) that apply where it lies, as refactorings
/// titled with the cost model's predicted change: one stage more or fewer on
/// a ring, each other value of a parameter's domain on its declaration, the
/// other unrollings on a loop's header. A
/// tactic the result refuses is sent disabled, with the reason, to a client
/// that supports it, else left out. \p only: the kinds asked for (a kind
/// matches its prefixes, "refactor" takes "refactor.rewrite"); empty: all.
std::vector<CodeAction> codeActions(State &state, const std::string &uri, Range range,
                                    const std::vector<std::string> &only = {});
/// A WorkspaceEdit applying \p fixes' edits to \p uri.
WorkspaceEdit workspaceEdit(State &state, const std::string &uri, const std::vector<Fix> &fixes);

// Formatting.cpp
std::vector<Edit> formatting(State &state, const std::string &uri);

/// textDocument/rangeFormatting: the edits of `cake fmt` that fall in the
/// lines of \p range (the formatter prints whole files; its output is
/// compared with the text line by line and only the changed lines inside
/// the range are replaced).
std::vector<Edit> rangeFormatting(State &state, const std::string &uri, Range range);

// Hover.cpp
std::optional<Hover> hover(State &state, const std::string &uri, Position position);

// DocumentSymbols.cpp
DocumentSymbols documentSymbols(State &state, const std::string &uri);

// Definition.cpp
std::optional<Location> definition(State &state, const std::string &uri, Position position);

// References.cpp
std::vector<Location> references(State &state, const std::string &uri, Position position, bool includeDeclaration);

// Rename.cpp
/// textDocument/prepareRename: the name at \p position when it is a
/// declaration of the file or a use of one; throws RequestFailed with the
/// reason otherwise (a keyword, an operation, a number, a clause).
PrepareRename prepareRename(State &state, const std::string &uri, Position position);
/// textDocument/rename: every occurrence of the symbol at \p position
/// renamed to \p newName. Throws RequestFailed (with the reason) when the
/// name is not an identifier, is a keyword or reserved, or would collide
/// with or capture another name: the renamed text is analyzed again and
/// every reference must still resolve to the same declaration.
WorkspaceEdit rename(State &state, const std::string &uri, Position position, const std::string &newName);

// DocumentHighlights.cpp
std::vector<DocumentHighlight> documentHighlights(State &state, const std::string &uri, Position position);

// WorkspaceSymbols.cpp
/// The kernels, constants and compile-time parameters of the open documents
/// and of the `*.cake` files under State::workspaceRoots (at most
/// kMaxWorkspaceFiles files of at most 1 MiB; hidden folders, build/ and
/// node_modules/ skipped), whose names contain \p query as a
/// case-insensitive subsequence; at most kMaxWorkspaceSymbols of them.
inline constexpr size_t kMaxWorkspaceSymbols = 500, kMaxWorkspaceFiles = 2000;
std::vector<SymbolInformation> workspaceSymbols(State &state, const std::string &query);

// SignatureHelp.cpp
/// The characters after which clients should ask for signature help.
std::vector<std::string> signatureTriggers();
/// The operation whose argument list holds \p position, with the active
/// parameter from the commas before it; nullopt outside an operation call.
std::optional<SignatureHelp> signatureHelp(State &state, const std::string &uri, Position position);

// FoldingRanges.cpp
std::vector<FoldingRange> foldingRanges(State &state, const std::string &uri);

// SelectionRanges.cpp
std::vector<SelectionRange> selectionRanges(State &state, const std::string &uri,
                                            const std::vector<Position> &positions);

// CodeLens.cpp
/// "run", "compile" and the cost estimate above each kernel.
std::vector<CodeLens> codeLenses(State &state, const std::string &uri);

// Completion.cpp
/// The characters after which clients should ask for completion.
std::vector<std::string> completionTriggers();
/// The most items a completion list holds; a longer one is cut to the items
/// that start with the word typed and marked isIncomplete.
inline constexpr size_t kMaxCompletionItems = 1000;
CompletionList completion(State &state, const std::string &uri, Position position);

// SemanticTokens.cpp
/// The token types and modifiers, for the initialize result.
SemanticTokensLegend semanticTokensLegend();
/// The whole document's tokens, with a resultId; remembered in
/// State::tokensSent for a later delta.
SemanticTokens semanticTokens(State &state, const std::string &uri);
/// The tokens that begin in \p range (no resultId).
SemanticTokens semanticTokensRange(State &state, const std::string &uri, Range range);
/// The edits from the result \p previousResultId to the current tokens, or
/// all of them (with a fresh resultId) when that is not the last result
/// sent for the document.
std::variant<SemanticTokens, SemanticTokensDelta> semanticTokensDelta(State &state, const std::string &uri,
                                                                      const std::string &previousResultId);

// InlayHints.cpp
std::vector<InlayHint> inlayHints(State &state, const std::string &uri, Range range);

//===-- Commands (Commands.cpp, Lowered.cpp) ----------------------------------===//

/// The commands the server offers, for the initialize result.
std::vector<std::string> commandNames();
/// The commands that run on a worker thread (compile, run, bench): they may
/// take seconds to minutes, and must not hold up hovers and diagnostics.
bool isLongCommand(const std::string &command);

/// cake.check: the document's analysis, whose diagnostics the protocol layer
/// renders in the CLI's JSON schema.
struct CheckReport {
  std::string uri;
  std::shared_ptr<const Analysis> analysis;
};
CheckReport checkCommand(State &state, const std::string &uri, Progress &progress);

/// cake.applyFix: the first fix-it of every diagnostic whose edits do not
/// overlap an earlier one, sent to the client with workspace/applyEdit.
struct ApplyFixReport {
  size_t applied = 0;
  WorkspaceEdit edit;
};
ApplyFixReport applyFixCommand(State &state, const std::string &uri);

/// cake.selectInstantiation: the instantiation \p name (one the document's
/// manifest has for it; "" = the first, its default) becomes the one the
/// model describes. Throws InvalidParams naming the known ones for another
/// name.
struct SelectReport {
  std::string uri;
  std::string instantiation;               ///< as selected ("" = the first)
  std::vector<std::string> instantiations; ///< the manifest's names for the document, in its order
  std::string note;                        ///< "instantiation tiny_d32: D = 32"; empty without parameters
};
SelectReport selectInstantiationCommand(State &state, const std::string &uri, const std::string &name);

/// cake.cost (the cost lens's command): the cost model's estimate of kernel
/// \p kernel ("" = the document's first) at the sizes the hover uses. The
/// protocol layer returns it as JSON and shows `summary` to the user.
/// Throws InvalidParams for a kernel the document does not have.
struct CostReport {
  std::string uri, kernel;
  std::optional<double> seconds;   ///< nullopt: outside the model (reasons)
  std::string bottleneck;
  double floorSeconds = 0, fractionOfFloor = 0;
  std::string sizes, calibration;  ///< the notes the hover shows
  std::vector<std::string> reasons;
  std::string summary;             ///< one line: "gemm: cost ≈ 2.31 ms, dram bound (...)"
};
CostReport costCommand(State &state, const std::string &uri, const std::string &kernel);

/// A document lowered by the pipeline (compiler/pipeline/Pipeline.h); owns the source
/// manager its diagnostics point into.
struct LoweredDocument;

/// One kernel's launch plan (cake/viewLowered).
struct KernelPlan {
  struct TensorMap {
    std::string param;
    std::vector<uint32_t> box;
    uint32_t swizzle = 0;
  };
  std::string name, target;
  uint32_t block = 0, dynamicShared = 0;
  std::vector<TensorMap> tensorMaps;
};

/// The diagnostics that stopped a lowering or a build, with their sources.
struct Findings {
  std::shared_ptr<const SourceManager> sm;
  std::vector<Diagnostic> diagnostics;
};

/// cake/viewLowered: ok with the CUDA source and plans, or the findings.
struct LoweredView {
  std::string uri;
  bool ok = false;
  std::string source;
  std::vector<KernelPlan> kernels;
  Findings findings; ///< when !ok
};
LoweredView viewLowered(const Snapshot &doc, const CheckOptions &check, const std::string &kernel);

/// cake.compile: lowered and built with NVRTC; `built` is false when the
/// lowering failed (then only the findings are set).
struct CompileReport {
  struct Kernel {
    std::string name;
    int registers = -1;
    uint64_t spillStores = 0, spillLoads = 0, stackFrame = 0, sharedStatic = 0;
  };
  std::string uri;
  bool ok = false, built = false;
  std::string tool, target;
  std::vector<Kernel> kernels;
  Findings findings; ///< the lowering's or the tool chain's diagnostics
};
CompileReport compileDocument(const Snapshot &doc, const CheckOptions &check, Progress &progress,
                              const CancelFlag &cancel);

/// Options of cake.run / cake.bench (params.arguments[1]).
struct RunOptions {
  std::optional<std::string> workload, kernel;
  std::map<std::string, int64_t> sizes;
  std::optional<double> reps, warmup, timeout;
  bool coldL2 = false;
  /// A workload whose oracle is a "command" runs that program; only when the
  /// client enabled it (initializationOptions.allowWorkloadCommands).
  bool allowWorkloadCommands = false;
};

/// cake.run / cake.bench: `cake run` as a child on a private copy of the
/// text (a file with parameters: the selected instantiation's values as
/// `--param`). `report` is the child's JSON report as text (the protocol layer
/// parses it); ok when the child succeeded and printed one.
/// What a `cake run` child said, through its --report file (never its
/// stdout): the protocol layer reads the JSON (ok, status, message, ...).
struct RunReport {
  std::string uri;
  int exitCode = -1;
  std::string report;  ///< the --report file's text; empty when the child wrote none
  std::string message; ///< why there is no report (timeout, not started)
};
/// Throws RequestCancelled (and the child is killed, with its children)
/// when \p cancel is set while it runs.
RunReport runDocument(const Snapshot &doc, const RunOptions &options, bool bench, Progress &progress,
                      const CancelFlag &cancel);

/// Options of cake.score (params.arguments[1]): the task (a shipped task's
/// name, or a task file or folder, relative to the document's folder), check
/// (the public shapes) or score (with held-out shapes), and `cake task`'s options.
struct TaskScoreOptions {
  std::string task;
  bool score = false; ///< `cake task score`, else `cake task check`
  std::optional<uint64_t> seed;
  std::optional<int> heldout;
  std::optional<std::string> launch;
  bool noTime = false;
};

/// cake.score: `cake task check|score TASK FILE` as a child on a private copy
/// of the document (a .cake or a .cu file), its --report read back: the same
/// report the CLI writes (docs/tasks.md). Cancellable as cake.run is.
RunReport scoreDocument(const Snapshot &doc, const TaskScoreOptions &options, Progress &progress,
                        const CancelFlag &cancel);

} // namespace cake::lsp
