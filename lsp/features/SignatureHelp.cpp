//===- SignatureHelp.cpp - textDocument/signatureHelp ---------------------===//
//
// The signature of the operation whose argument list holds the cursor, from
// its row of the primitive table (compiler/sema/Ops.def, through
// sema::signature: `tma.load(src: global view, dst: shared view,
// multicast?: int, barrier?: barrier)`), the same text hover shows. It works
// on the line being typed, which usually does not parse: the text before the
// cursor is lexed (so strings and comments do not count), the innermost open
// `(` that follows a dotted name is the call, and the commas at its depth
// give the active parameter; an argument written `name = ` activates that
// option. A ring's operations (`ab.commit(`) are found through the kernel's
// rings. Nothing outside an operation's parentheses, or in a clause's
// (`regs(`).
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include "compiler/syntax/Lexer.h"

#include <algorithm>

namespace cake::lsp {

using namespace syntax;

namespace {

struct Open {
  size_t token;       ///< index of the bracket token
  Tok kind;           ///< LParen, LBracket or LBrace
  uint32_t commas = 0;
  size_t argStart;    ///< first token of the current argument
};

/// The parameters of \p label (`name(a: x, b?: y, ...)`): [begin, end) of
/// each, the variadic ", ..." kept with the operand before it.
std::vector<std::pair<uint32_t, uint32_t>> parameterSpans(const std::string &label) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  size_t open = label.find('('), close = label.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close <= open + 1)
    return out;
  size_t at = open + 1;
  while (at < close) {
    size_t comma = label.find(", ", at);
    size_t end = comma == std::string::npos || comma > close ? close : comma;
    if (label.compare(at, 3, "...") == 0 && !out.empty())
      out.back().second = static_cast<uint32_t>(end);
    else
      out.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(end)});
    at = end + 2;
  }
  return out;
}

} // namespace

std::vector<std::string> signatureTriggers() { return {"(", ","}; }

std::optional<SignatureHelp> signatureHelp(State &state, const std::string &uri, Position position) {
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  SourceManager sm;
  FileId file = sm.addBuffer("prefix", std::string(a.text().substr(0, at.offset)));
  std::vector<Diagnostic> ignored;
  LexedFile lexed = lex(sm, file, ignored);
  std::string_view text = sm.text(file);
  const std::vector<Token> &toks = lexed.tokens;
  std::vector<Open> stack;
  for (size_t i = 0; i < toks.size() && toks[i].kind != Tok::Eof; ++i) {
    Tok k = toks[i].kind;
    if (k == Tok::LParen || k == Tok::LBracket || k == Tok::LBrace)
      stack.push_back({i, k, 0, i + 1});
    else if ((k == Tok::RParen || k == Tok::RBracket || k == Tok::RBrace) && !stack.empty())
      stack.pop_back();
    else if (k == Tok::Comma && !stack.empty()) {
      ++stack.back().commas;
      stack.back().argStart = i + 1;
    }
  }
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    if (it->kind == Tok::LBrace)
      return std::nullopt; // a block: the call, if any, is inside it
    if (it->kind != Tok::LParen || it->token == 0 || toks[it->token - 1].kind != Tok::Identifier)
      continue; // an index or a grouping parenthesis
    // The dotted callee before the '('.
    size_t first = it->token - 1;
    while (first >= 2 && toks[first - 1].kind == Tok::Dot && toks[first - 2].kind == Tok::Identifier)
      first -= 2;
    std::string spelled;
    for (size_t t = first; t < it->token; ++t)
      spelled += std::string(toks[t].text(text));
    const sema::OpInfo *op = sema::findOp(spelled);
    if (!op && it->token - first == 3) // `ab.commit(`: a ring of the kernel
      if (const sema::Kernel *k = modelKernelAt(a, at.offset);
          k && k->ring(std::string(toks[first].text(text))))
        op = sema::findRingOp(toks[first + 2].text(text));
    if (!op)
      return std::nullopt; // a clause (`regs(`) or a name that is no operation
    SignatureInformation sig{sema::signature(*op, spelled), std::string(op->summary) + ".", {}};
    sig.parameters = parameterSpans(sig.label);
    std::vector<std::string_view> operands = listNames(op->operands), options = listNames(op->options);
    std::optional<uint32_t> active;
    if (it->commas < operands.size() || op->operands.ends_with("..."))
      active = std::min<uint32_t>(it->commas, operands.empty() ? 0 : operands.size() - 1);
    else if (it->commas < operands.size() + options.size())
      active = it->commas; // past the operands: the options, in order
    // `name = ...` names its option, wherever it is written.
    size_t s = it->argStart;
    if (s + 1 < toks.size() && toks[s].kind == Tok::Identifier && toks[s + 1].kind == Tok::Assign)
      for (std::string_view want : {toks[s].text(text), std::string_view("*")}) // `*`: any name
        if (auto o = std::find(options.begin(), options.end(), want); o != options.end()) {
          active = static_cast<uint32_t>(operands.size() + (o - options.begin()));
          break;
        }
    if (active && *active >= sig.parameters.size())
      active.reset();
    SignatureHelp help;
    help.signatures.push_back(std::move(sig));
    help.activeParameter = active;
    return help;
  }
  return std::nullopt;
}

} // namespace cake::lsp
