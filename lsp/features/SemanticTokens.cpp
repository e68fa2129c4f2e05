//===- SemanticTokens.cpp - textDocument/semanticTokens/full --------------===//
//
// Every token of the file classified: keywords, numbers, strings and
// comments from the lexer; names by the kind of the symbol they resolve to
// (the symbol index); operation families and names, clause names, keyword
// options, slot members, memory spaces, element types and tag values from
// the syntax tree. Identifiers that are none of these are left to the
// client's grammar.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include "compiler/syntax/Lexer.h"

#include <algorithm>
#include <unordered_map>

namespace cake::lsp {

using namespace syntax;

namespace {

// Indices into the legend's token types and modifier bits.
enum Type : int {
  Keyword,
  ElemType,
  Function,
  Namespace,
  Variable,
  Parameter,
  Property,
  EnumMember,
  Number,
  String,
  CommentType,
  Struct,
  ClassType,
  TypeParameter,
  Decorator,
  Modifier,
};
constexpr const char *kTypeNames[] = {"keyword",  "type",          "function",  "namespace", "variable", "parameter",
                                      "property", "enumMember",    "number",    "string",    "comment",  "struct",
                                      "class",    "typeParameter", "decorator", "modifier"};
enum ModifierBit : int { Declaration = 1, Readonly = 2, DefaultLibrary = 4 };
constexpr const char *kModifierNames[] = {"declaration", "readonly", "defaultLibrary"};

struct Class {
  int type;
  int modifiers;
};

Class symbolClass(sema::SymbolKind k) {
  switch (k) {
  case sema::SymbolKind::Kernel:
    return {Function, 0};
  case sema::SymbolKind::Const:
  case sema::SymbolKind::Let:
  case sema::SymbolKind::LoopVar:
    return {Variable, Readonly};
  case sema::SymbolKind::Param:
    return {Parameter, 0};
  case sema::SymbolKind::SizeSymbol:
    return {TypeParameter, Readonly};
  case sema::SymbolKind::Var:
    return {Variable, 0};
  case sema::SymbolKind::Ring:
    return {Struct, 0};
  case sema::SymbolKind::Role:
    return {ClassType, 0};
  }
  return {Variable, 0};
}

/// Classifications by the offset where a name begins.
class Classifier {
public:
  explicit Classifier(const Analysis &a) : a_(a) {}

  std::unordered_map<uint32_t, Class> run() {
    for (const StmtPtr &s : a_.result.module.items.stmts) {
      kernel_ = a_.model() ? modelKernel(*a_.model(), dyn_cast<KernelDecl>(s.get())) : nullptr;
      Walker w;
      w.expr = [this](const Expr &e) { expr(e); };
      w.type = [this](const TypeExpr &t) { type(t); };
      w.clause = [this](const Clause &c) { clause(c); };
      walk(*s, w);
    }
    if (const sema::Module *model = a_.model()) {
      for (const sema::Symbol &s : model->index.symbols) {
        Class c = symbolClass(s.kind);
        classes_[s.range.begin] = {c.type, c.modifiers | Declaration};
      }
      for (const sema::Reference &r : model->index.references)
        classes_[r.range.begin] = symbolClass(model->index.symbols[r.symbol].kind);
    }
    return std::move(classes_);
  }

private:
  static uint32_t memberBegin(const Expr &member) {
    return member.range.end - static_cast<uint32_t>(member.text.size());
  }

  void tag(const Expr &value) {
    if (value.kind == ExprKind::Name)
      classes_[value.range.begin] =
          sema::parseElem(value.text) ? Class{ElemType, DefaultLibrary} : Class{EnumMember, 0};
  }

  void call(const Expr &e) {
    const Expr &callee = *e.operands[0];
    const sema::OpInfo *op = opOfCall(e, kernel_);
    if (!op)
      return;
    if (callee.kind == ExprKind::Member) {
      classes_[memberBegin(callee)] = {Function, DefaultLibrary};
      if (op->cls != sema::OpClass::Ring)
        for (const Expr *base = callee.operand(0); base; base = base->operand(0))
          classes_[base->kind == ExprKind::Member ? memberBegin(*base) : base->range.begin] = {Namespace,
                                                                                               DefaultLibrary};
    }
    size_t positional = 0;
    for (size_t i = 1; i < e.operands.size(); ++i) {
      const Expr &arg = *e.operands[i];
      if (arg.kind == ExprKind::Keyword) {
        classes_[arg.range.begin] = {Parameter, 0};
        bool isTag = false;
        if (sema::hasOption(*op, arg.text, &isTag) && isTag)
          tag(*arg.operands[0]);
      } else if (sema::isTagOperand(*op, positional++)) {
        tag(arg);
      }
    }
  }

  void expr(const Expr &e) {
    if (e.kind == ExprKind::Call)
      call(e);
    else if (e.kind == ExprKind::Member && !classes_.count(memberBegin(e)))
      classes_[memberBegin(e)] = {Property, 0};
  }

  void type(const TypeExpr &t) {
    if (t.space)
      classes_[t.space->range.begin] = {Modifier, 0};
    classes_[t.elem.range.begin] = {ElemType, sema::parseElem(t.elem.name) ? DefaultLibrary : 0};
  }

  void clause(const Clause &c) {
    classes_[c.name.range.begin] = {Decorator, 0};
    for (const ExprPtr &arg : c.args)
      tag(*arg); // names that resolve (producer(load)) are reclassified by the index
  }

  const Analysis &a_;
  const sema::Kernel *kernel_ = nullptr;
  std::unordered_map<uint32_t, Class> classes_;
};

} // namespace

SemanticTokensLegend semanticTokensLegend() {
  SemanticTokensLegend legend;
  for (const char *t : kTypeNames)
    legend.tokenTypes.push_back(t);
  for (const char *m : kModifierNames)
    legend.tokenModifiers.push_back(m);
  return legend;
}

namespace {

struct Item {
  SourceRange range;
  Class c;
};

/// Every classified token of the document, in source order.
std::vector<Item> classified(const Analysis &analysis) {
  std::vector<Diagnostic> ignored;
  LexedFile lexed = lex(analysis.sm, analysis.file, ignored);
  std::unordered_map<uint32_t, Class> classes = Classifier(analysis).run();
  std::vector<Item> items;
  for (const Token &t : lexed.tokens) {
    if (t.kind == Tok::Number || t.kind == Tok::String)
      items.push_back({t.range, {t.kind == Tok::Number ? Number : String, 0}});
    else if (t.kind >= Tok::Kernel && t.kind <= Tok::False)
      items.push_back({t.range, {Keyword, 0}});
    else if (t.kind == Tok::Identifier)
      if (auto it = classes.find(t.range.begin); it != classes.end())
        items.push_back({t.range, it->second});
  }
  for (const Comment &c : lexed.comments)
    items.push_back({c.range, {CommentType, 0}});
  std::sort(items.begin(), items.end(), [](const Item &x, const Item &y) { return x.range.begin < y.range.begin; });
  return items;
}

/// The relative encoding of the items that begin in [\p from, \p to).
std::vector<uint32_t> encode(const std::vector<Item> &items, const LineMap &lines, uint32_t from, uint32_t to) {
  std::vector<uint32_t> data;
  uint32_t prevLine = 0, prevChar = 0;
  auto first = std::lower_bound(items.begin(), items.end(), from,
                                [](const Item &item, uint32_t at) { return item.range.begin < at; });
  for (auto it = first; it != items.end() && it->range.begin < to; ++it) {
    const Item &item = *it;
    auto [line, character] = lines.lineCharacter(item.range.begin);
    uint32_t length = lines.units(item.range.begin, std::min(item.range.end, lines.lineEnd(line)));
    if (length == 0)
      continue;
    data.push_back(line - prevLine);
    data.push_back(line == prevLine ? character - prevChar : character);
    data.push_back(length);
    data.push_back(item.c.type);
    data.push_back(item.c.modifiers);
    prevLine = line;
    prevChar = character;
  }
  return data;
}

std::vector<uint32_t> encodeAll(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  LineMap lines(analysis->text(), state.caps.encoding);
  return encode(classified(*analysis), lines, 0, UINT32_MAX);
}

/// A full result with a fresh resultId, remembered as the last one sent
/// for \p uri (what a /full/delta request names).
SemanticTokens remember(State &state, const std::string &uri, std::vector<uint32_t> data) {
  static uint64_t next = 0; // the main thread's
  SemanticTokens tokens{std::to_string(++next), std::move(data)};
  state.tokensSent[uri] = tokens;
  return tokens;
}

} // namespace

SemanticTokens semanticTokens(State &state, const std::string &uri) {
  return remember(state, uri, encodeAll(state, uri));
}

SemanticTokens semanticTokensRange(State &state, const std::string &uri, Range range) {
  auto analysis = state.docs.analyze(uri, state.check);
  LineMap lines(analysis->text(), state.caps.encoding);
  // the tokens that begin in the range (a token that begins before it and
  // runs into it, such as a long comment, is left out)
  return {"", encode(classified(*analysis), lines, lines.offset(range.start), lines.offset(range.end))};
}

std::variant<SemanticTokens, SemanticTokensDelta> semanticTokensDelta(State &state, const std::string &uri,
                                                                      const std::string &previousResultId) {
  std::vector<uint32_t> data = encodeAll(state, uri);
  auto sent = state.tokensSent.find(uri);
  if (sent == state.tokensSent.end() || sent->second.resultId != previousResultId)
    return remember(state, uri, std::move(data)); // not the last result sent: all of it
  // One edit: the tokens between the common prefix and the common suffix
  // (whole tokens of 5 integers).
  const std::vector<uint32_t> &old = sent->second.data;
  size_t prefix = 0;
  while (prefix + 5 <= old.size() && prefix + 5 <= data.size() &&
         std::equal(old.begin() + prefix, old.begin() + prefix + 5, data.begin() + prefix))
    prefix += 5;
  size_t suffix = 0;
  while (suffix + 5 <= old.size() - prefix && suffix + 5 <= data.size() - prefix &&
         std::equal(old.end() - suffix - 5, old.end() - suffix, data.end() - suffix - 5))
    suffix += 5;
  SemanticTokensDelta delta;
  if (prefix != old.size() || prefix != data.size())
    delta.edits.push_back({static_cast<uint32_t>(prefix), static_cast<uint32_t>(old.size() - prefix - suffix),
                           std::vector<uint32_t>(data.begin() + prefix, data.end() - suffix)});
  delta.resultId = remember(state, uri, std::move(data)).resultId;
  return delta;
}

} // namespace cake::lsp
