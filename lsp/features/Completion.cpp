//===- Completion.cpp - textDocument/completion ---------------------------===//
//
// The context of the cursor is read from the tokens before it, because the
// line being typed rarely parses; the names come from the syntax tree and the
// symbol index of what did parse. Contexts, first match wins:
//   - after `family.`: that family's operations (with their operand lists);
//     after `R.` for a ring R: produce, commit, consume, release; after a
//     ring token `s.`: its slots; after a tile of a schedule `t.`: its names;
//   - inside a declaration's clause `target(`, `issue(`, `swizzle(`, ...:
//     the clause's values;
//   - inside an operation call: its keyword options not yet given, the tag
//     values of a tag position, then the names in scope;
//   - in type position (`name: `): memory spaces and element types; after a
//     type: its clauses;
//   - after a kernel, ring, role or loop header: the clauses not yet given;
//   - at the start of a statement: the statement keywords of that scope,
//     operation families and names; elsewhere: names and families.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Markup.h"
#include "lsp/features/Query.h"

#include "compiler/syntax/Lexer.h"
#include "compiler/syntax/Printer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_set>

namespace cake::lsp {

using namespace syntax;

namespace {

// LSP CompletionItemKind values.
constexpr int kMethod = 2, kFunction = 3, kField = 5, kVariable = 6, kClass = 7, kModule = 9, kProperty = 10,
              kKeyword = 14, kEnumMember = 20, kConstant = 21, kStruct = 22, kTypeParameter = 25;

struct ClauseDoc {
  std::string_view name;
  std::string_view detail;
};

// The clauses of each declaration (language reference, sections 4.4, 5, 6, 8, 11).
constexpr ClauseDoc kKernelClauses[] = {
    {"target", "target(T): sm_80, sm_90a or sm_100a"},   {"block", "block(n): threads per CTA"},
    {"grid", "grid(persistent) or grid(x [, y [, z]])"}, {"cluster", "cluster(x [, y [, z]]): CTAs per cluster"},
    {"occupancy", "occupancy(n): resident CTAs per SM"},
};
constexpr ClauseDoc kRoleClauses[] = {
    {"warps", "warps(a .. b): warps a to b - 1 of the CTA"},
    {"warpgroups", "warpgroups(a .. b): warps 4a to 4b - 1"},
    {"regs", "regs(n): register budget per thread (setmaxnreg)"},
    {"issue", "issue(elect | warp | warpgroup): the unit that runs the body"},
};
constexpr ClauseDoc kRingClauses[] = {
    {"stages", "stages(n): number of slots"},
    {"producer", "producer(role): the role that fills slots"},
    {"consumer", "consumer(role): the role that reads them"},
};
constexpr ClauseDoc kLoopClauses[] = {
    {"unroll", "unroll or unroll(n): full or n-fold unrolling"},
    {"step", "step(s): stride, a positive constant"},
    {"trips", "trips(min = a, max = b, multiple = m): trip-count facts"},
};
constexpr ClauseDoc kTypeClauses[] = {
    {"align", "align(n): byte alignment, a power of two"}, {"swizzle", "swizzle(none | 32B | 64B | 128B)"},
    {"strides", "strides(s0, ..., sn): element strides"},  {"per", "per(thread | warp | warpgroup)"},
    {"count", "count(n): arrive count of raw mbarriers"},  {"owner", "owner(role): the role owning a tmem var"},
};

constexpr std::string_view kSpaces[] = {"global", "shared", "reg", "tmem", "param"};

int itemKind(sema::SymbolKind k) {
  switch (k) {
  case sema::SymbolKind::Kernel:
    return kFunction;
  case sema::SymbolKind::Const:
    return kConstant;
  case sema::SymbolKind::Ring:
    return kStruct;
  case sema::SymbolKind::Role:
    return kClass;
  default:
    return kVariable;
  }
}

class Completer {
public:
  Completer(const State &state, const Analysis &a, uint32_t offset)
      : state_(state), a_(a), offset_(offset), text_(a.text()) {}

  CompletionList run() {
    std::vector<Diagnostic> ignored;
    LexedFile lexed = lex(a_.sm, a_.file, ignored);
    for (const Comment &c : lexed.comments)
      if (c.range.begin < offset_ && offset_ <= c.range.end)
        return {};
    for (const Token &t : lexed.tokens) {
      if (t.kind == Tok::Eof || t.range.begin >= offset_)
        break;
      if (t.kind == Tok::String && offset_ < t.range.end)
        return {};
      toks_.push_back(t);
    }
    // The word being typed is not context.
    wordBegin_ = offset_;
    if (!toks_.empty() && toks_.back().range.end == offset_ && isWord(toks_.size() - 1)) {
      wordBegin_ = toks_.back().range.begin;
      toks_.pop_back();
    }
    complete();
    return capped();
  }

private:
  /// At most kMaxCompletionItems items, marked incomplete when some were
  /// left out, so that the client asks again as the word grows (issue #16: a
  /// list of 100,000 constants took seconds to build, send and filter).
  /// Then only the items whose label starts with the word typed so far
  /// (ignoring case) are kept, in their order (the context's own items
  /// come first), and the first kMaxCompletionItems of them are sent.
  CompletionList capped() {
    if (items_.size() <= kMaxCompletionItems)
      return {false, std::move(items_)};
    std::string_view typed = text_.substr(wordBegin_, offset_ - wordBegin_);
    auto matches = [&](const std::string &label) {
      if (label.size() < typed.size())
        return false;
      for (size_t i = 0; i < typed.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(label[i])) != std::tolower(static_cast<unsigned char>(typed[i])))
          return false;
      return true;
    };
    CompletionList out{true, {}};
    for (CompletionItem &item : items_) {
      if (out.items.size() == kMaxCompletionItems)
        break;
      if (matches(item.label))
        out.items.push_back(std::move(item));
    }
    return out;
  }

  //===-- Tokens before the cursor ------------------------------------------===//

  Tok kind(size_t i) const { return toks_[i].kind; }
  std::string_view text(size_t i) const { return toks_[i].text(text_); }
  bool isWord(size_t i) const {
    Tok k = kind(i);
    return k == Tok::Identifier || (k >= Tok::Kernel && k <= Tok::False);
  }
  bool last(Tok k, size_t back = 0) const { return toks_.size() > back && kind(toks_.size() - 1 - back) == k; }

  /// Index of the innermost unclosed '(' or '[' before the cursor, within
  /// the current block.
  std::optional<size_t> openBracket() const {
    int depth = 0;
    for (size_t i = toks_.size(); i-- > 0;) {
      Tok k = kind(i);
      if (k == Tok::RParen || k == Tok::RBracket)
        ++depth;
      else if (k == Tok::LParen || k == Tok::LBracket) {
        if (depth == 0)
          return i;
        --depth;
      } else if ((k == Tok::LBrace || k == Tok::RBrace) && depth == 0)
        return std::nullopt;
    }
    return std::nullopt;
  }

  /// Index of the first token of the statement around the cursor.
  size_t statementStart() const {
    int depth = 0;
    for (size_t i = toks_.size(); i-- > 0;) {
      Tok k = kind(i);
      if (k == Tok::RParen || k == Tok::RBracket)
        ++depth;
      else if ((k == Tok::LParen || k == Tok::LBracket) && depth > 0)
        --depth;
      else if (depth == 0 && (k == Tok::Newline || k == Tok::Semi || k == Tok::LBrace || k == Tok::RBrace))
        return i + 1;
    }
    return 0;
  }

  /// The dotted name whose last token is at \p end ("tma.load"), or "".
  std::string dottedBefore(size_t end) const {
    std::string name;
    for (size_t i = end + 1; i-- > 0;) {
      if (!isWord(i))
        return "";
      name = std::string(text(i)) + (name.empty() ? "" : "." + name);
      if (i == 0 || kind(i - 1) != Tok::Dot)
        return name;
      --i;
    }
    return name;
  }

  //===-- Items -------------------------------------------------------------===//

  void add(const std::string &label, int kind, const std::string &detail, const std::string &insert = "") {
    if (!seen_.insert(label).second)
      return;
    items_.push_back({label, kind, detail, insert, std::nullopt});
  }

  void op(const sema::OpInfo &op, std::string_view label, const std::string &spelled) {
    std::string args;
    for (std::string_view o : listNames(op.operands))
      args += (args.empty() ? "" : ", ") + std::string(o);
    for (std::string_view o : listNames(op.options))
      args += (args.empty() ? "" : ", ") + std::string(o) + " = ...";
    if (!seen_.insert(std::string(label)).second)
      return;
    items_.push_back({std::string(label), kMethod, spelled + "(" + args + ")", "",
                      MarkupContent{state_.caps.markdownHover, describeOp(op, spelled, state_.caps.markdownHover)}});
  }

  void families() {
    std::map<std::string, std::string> ops;
    for (const sema::OpInfo &o : sema::allOps()) {
      std::string_view name = o.name;
      std::string family(name.substr(0, name.find('.')));
      if (family != "ring")
        ops[family] += (ops[family].empty() ? "" : ", ") + std::string(name.substr(name.find('.') + 1));
    }
    for (const auto &[family, list] : ops)
      add(family, kModule, "operations " + family + ".{" + list + "}");
  }

  void names() {
    for (const Visible &v : visibleAt(a_, offset_))
      add(v.name, itemKind(v.kind), v.detail);
  }

  void roles() {
    for (const Visible &v : visibleAt(a_, offset_))
      if (v.kind == sema::SymbolKind::Role)
        add(v.name, kClass, v.detail);
  }

  void words(std::initializer_list<std::string_view> list, int kind, const std::string &detail) {
    for (std::string_view w : list)
      add(std::string(w), kind, detail);
  }

  template <size_t N> void clauses(const ClauseDoc (&docs)[N], size_t from) {
    std::set<std::string_view> given;
    for (size_t i = from; i + 1 < toks_.size(); ++i)
      if (kind(i) == Tok::Identifier && kind(i + 1) == Tok::LParen)
        given.insert(text(i));
    for (const ClauseDoc &c : docs)
      if (!given.count(c.name))
        add(std::string(c.name), kProperty, std::string(c.detail));
  }

  void elements() {
    for (std::string_view e : sema::elemNames())
      add(std::string(e), kTypeParameter,
          "element type, " + std::to_string(sema::elemBytes(*sema::parseElem(e))) + " B");
  }

  //===-- Contexts ----------------------------------------------------------===//

  void complete() {
    if (last(Tok::Dot))
      return member();
    std::optional<size_t> open = openBracket();
    size_t start = statementStart();
    if (open && kind(*open) == Tok::LParen && callArguments(*open, start))
      return;
    if (typePosition())
      return;
    if (!open && header(start))
      return;
    if (start == toks_.size())
      statementKeywords();
    names();
    families();
    words({"true", "false", "inf"}, kConstant, "builtin value");
  }

  /// `qualifier.` : operations of a family, ring operations, slots of a
  /// token, names of a schedule's tiles.
  void member() {
    std::string qualifier = toks_.size() >= 2 ? dottedBefore(toks_.size() - 2) : "";
    if (qualifier.empty() || qualifier.find('.') != std::string::npos)
      return;
    if (sema::isOpFamily(qualifier)) {
      for (const sema::OpInfo &o : sema::allOps())
        if (o.name.starts_with(qualifier + "."))
          op(o, o.name.substr(qualifier.size() + 1), std::string(o.name));
      return;
    }
    const sema::Kernel *k = modelKernelAt(a_, offset_);
    for (const Visible &v : visibleAt(a_, offset_)) {
      if (v.name != qualifier)
        continue;
      if (v.kind == sema::SymbolKind::Ring)
        for (const char *o : {"produce", "commit", "consume", "release"})
          op(*sema::findRingOp(o), o, qualifier + "." + o);
      if (v.kind == sema::SymbolKind::Let && k)
        tokenMembers(v, *k);
      if (v.kind == sema::SymbolKind::LoopVar)
        tileMembers(v);
    }
  }

  void tokenMembers(const Visible &v, const sema::Kernel &k) {
    sema::Symbol s{v.name, v.kind, {}, v.declRange, "", ""};
    const LetStmt *let = letOf(a_.result.analyzed(), s);
    if (const sema::Ring *r = let ? tokenRing(*let, k) : nullptr)
      for (const sema::Slot &slot : r->slots)
        add(slot.name, kField, print(slot.decl->type));
  }

  /// `t.` for `for t in tiles` where `let tiles = sched.tiles(m = ..., ...)`.
  void tileMembers(const Visible &loop) {
    const ForStmt *f = nullptr;
    Walker w;
    w.stmt = [&](const Stmt &s) {
      if (auto *x = dyn_cast<ForStmt>(&s); x && x->range == loop.declRange)
        f = x;
    };
    walk(a_.result.analyzed().items, w);
    if (!f || f->iterable->kind != ExprKind::Name)
      return;
    for (const Visible &v : visibleAt(a_, offset_)) {
      if (v.name != f->iterable->text || v.kind != sema::SymbolKind::Let)
        continue;
      const LetStmt *let = letOf(a_.result.analyzed(), {v.name, v.kind, {}, v.declRange, "", ""});
      if (!let || sema::calleeOp(*let->value) != sema::OpId::SchedTiles)
        continue;
      for (size_t i = 1; i < let->value->operands.size(); ++i) {
        const Expr &arg = *let->value->operands[i];
        if (arg.kind == ExprKind::Keyword && arg.text != "group")
          add(arg.text, kField, "tile coordinate " + arg.text + " of " + v.name);
      }
    }
  }

  /// Inside `callee(`: clause values, or an operation's options and tags.
  bool callArguments(size_t open, size_t start) {
    std::string callee = open ? dottedBefore(open - 1) : "";
    if (callee.empty())
      return false;
    if (open >= 2 && kind(open - 2) == Tok::Kernel)
      return false; // a kernel's parameter list: types follow `name:`
    if (clauseValues(callee, start))
      return true;
    const sema::Kernel *k = modelKernelAt(a_, offset_);
    std::string root = callee.substr(0, callee.find('.'));
    const sema::OpInfo *op = k && k->ring(root) && callee.find('.') != std::string::npos
                                 ? sema::findRingOp(callee.substr(callee.find('.') + 1))
                                 : sema::findOp(callee);
    if (!op)
      return false;
    // The argument being typed: after the last comma at depth 0.
    size_t argStart = open + 1, positional = 0;
    std::set<std::string> given;
    int depth = 0;
    for (size_t i = open + 1; i < toks_.size(); ++i) {
      Tok t = kind(i);
      depth += (t == Tok::LParen || t == Tok::LBracket) ? 1 : (t == Tok::RParen || t == Tok::RBracket) ? -1 : 0;
      if (depth == 0 && i + 1 < toks_.size() && isWord(i) && kind(i + 1) == Tok::Assign && i == argStart)
        given.insert(std::string(text(i)));
      if (depth == 0 && t == Tok::Comma) {
        positional += !(isWord(argStart) && argStart + 1 < toks_.size() && kind(argStart + 1) == Tok::Assign);
        argStart = i + 1;
      }
    }
    if (argStart + 1 < toks_.size() && kind(argStart + 1) == Tok::Assign && isWord(argStart))
      return optionValue(*op, std::string(text(argStart)));
    if (argStart == toks_.size()) {
      for (std::string_view o : listNames(op->options))
        if (o != "*" && !given.count(std::string(o)))
          add(std::string(o), kProperty, "option of " + std::string(op->name), std::string(o) + " = ");
      tagValues(*op, positional);
    }
    names();
    families();
    return true;
  }

  /// Values of a declaration clause (`target(`, `issue(`, ...).
  bool clauseValues(const std::string &clause, size_t start) {
    Tok head = start < toks_.size() ? kind(start) : Tok::Eof;
    bool declaration =
        head == Tok::Kernel || head == Tok::Ring || head == Tok::Role || head == Tok::For || typeClauseContext();
    if (!declaration)
      return false;
    if (clause == "target")
      words({"sm_80", "sm_90a", "sm_100a"}, kEnumMember, "target");
    else if (clause == "issue")
      words({"elect", "warp", "warpgroup"}, kEnumMember, "issue unit");
    else if (clause == "swizzle")
      words({"none", "32B", "64B", "128B"}, kEnumMember, "swizzle");
    else if (clause == "per")
      words({"thread", "warp", "warpgroup"}, kEnumMember, "distribution unit");
    else if (clause == "producer" || clause == "consumer" || clause == "owner")
      roles();
    else if (clause == "grid") {
      words({"persistent"}, kEnumMember, "one CTA per SM slot, work from sched.tiles");
      names();
    } else
      names();
    return true;
  }

  /// Whether the innermost '(' is a clause of a type (`align(`, `swizzle(`).
  bool typeClauseContext() const {
    for (size_t i = toks_.size(); i-- > 0;) {
      if (kind(i) == Tok::Colon)
        return true;
      if (kind(i) == Tok::Newline || kind(i) == Tok::LBrace || kind(i) == Tok::Assign)
        return false;
    }
    return false;
  }

  bool optionValue(const sema::OpInfo &op, const std::string &option) {
    if (option == "operand")
      words({"a", "b"}, kEnumMember, "MMA operand");
    else if (option == "by") {
      words({"warp", "warpgroup"}, kEnumMember, "cooperating threads");
      roles();
      return true;
    } else if (option == "accumulate" || option == "clip" || option == "trans" || option == "precise" ||
               option == "exclusive" || option == "largest")
      words({"true", "false"}, kConstant, "bool");
    names();
    return true;
  }

  void tagValues(const sema::OpInfo &op, size_t positional) {
    if (!sema::isTagOperand(op, positional) || positional >= std::max<size_t>(sema::maxOperands(op), 1))
      return;
    std::vector<std::string_view> operands = listNames(op.operands);
    std::string_view name = operands.empty() ? "" : operands[std::min(positional, operands.size() - 1)];
    if (name == "type")
      elements();
    if (name == "scope") {
      words({"warp", "warpgroup", "cta"}, kEnumMember, "barrier scope");
      roles();
    }
  }

  /// `name: |`, `name: space |` and `name: type |`.
  bool typePosition() {
    size_t n = toks_.size();
    auto declaresName = [&](size_t colon) {
      if (colon == 0 || !isWord(colon - 1))
        return false;
      Tok before = colon >= 2 ? kind(colon - 2) : Tok::Newline;
      return before == Tok::Let || before == Tok::Var || before == Tok::Const || before == Tok::Comma ||
             before == Tok::LParen || before == Tok::Newline || before == Tok::LBrace || before == Tok::Semi;
    };
    if (n >= 1 && last(Tok::Colon) && declaresName(n - 1)) {
      for (std::string_view s : kSpaces)
        add(std::string(s), kKeyword, "memory space");
      elements();
      return true;
    }
    if (n >= 2 && last(Tok::Colon, 1) && declaresName(n - 2) &&
        std::find(std::begin(kSpaces), std::end(kSpaces), text(n - 1)) != std::end(kSpaces)) {
      elements();
      return true;
    }
    // After a complete type: its clauses.
    size_t i = n;
    auto skipGroup = [&](Tok open, Tok close) {
      if (i == 0 || kind(i - 1) != close)
        return false;
      // An unbalanced group stops at the first token: `while (i-- > 0)` left
      // i at SIZE_MAX, and the next kind(i - 1) read past the tokens
      // (UBSan, tests/fuzz/FuzzLsp).
      int depth = 0;
      while (i > 0) {
        --i;
        depth += kind(i) == close ? 1 : kind(i) == open ? -1 : 0;
        if (depth == 0)
          return true;
      }
      return false;
    };
    while (skipGroup(Tok::LParen, Tok::RParen) && i > 0 && kind(i - 1) == Tok::Identifier)
      --i;
    skipGroup(Tok::LBracket, Tok::RBracket);
    if (i == 0 || kind(i - 1) != Tok::Identifier || !sema::parseElem(text(i - 1)) ||
        toks_.back().range.end == wordBegin_)
      return false;
    size_t colon = i - 2;
    if (i >= 2 && std::find(std::begin(kSpaces), std::end(kSpaces), text(i - 2)) != std::end(kSpaces))
      --colon;
    if (i < 2 || colon >= n || kind(colon) != Tok::Colon || !declaresName(colon))
      return false;
    clauses(kTypeClauses, i);
    return true;
  }

  /// After `kernel k(...)`, `ring R`, `role r` or `for x in e`: clauses.
  bool header(size_t start) {
    if (start >= toks_.size() || toks_.back().range.end == wordBegin_)
      return false;
    size_t n = toks_.size() - start;
    switch (kind(start)) {
    case Tok::Ring:
      if (n >= 2)
        clauses(kRingClauses, start);
      return n >= 2;
    case Tok::Role:
      if (n >= 2)
        clauses(kRoleClauses, start);
      return n >= 2;
    case Tok::Kernel:
      if (!paramsClosed(start))
        return false;
      clauses(kKernelClauses, start);
      return true;
    case Tok::For:
      if (n < 4)
        return false;
      clauses(kLoopClauses, start);
      names();
      return true;
    default:
      return false;
    }
  }

  /// Whether the parameter list of the kernel header at \p start is closed.
  bool paramsClosed(size_t start) const {
    int depth = 0;
    for (size_t i = start; i < toks_.size(); ++i) {
      if (kind(i) == Tok::LParen)
        ++depth;
      else if (kind(i) == Tok::RParen && --depth == 0)
        return true;
    }
    return false;
  }

  void statementKeywords() {
    // the instantiation's tree: a kernel under a top-level `if` is one of its items there
    const KernelDecl *k = kernelAt(a_.result.analyzed(), offset_);
    bool inRole = false;
    if (k)
      for (const StmtPtr &s : k->body.stmts)
        if (auto *r = dyn_cast<RoleStmt>(s.get()))
          inRole |= r->body.range.begin < offset_ && offset_ < r->body.range.end;
    if (!k || offset_ >= k->range.end)
      words({"kernel", "const"}, kKeyword, "module item");
    else if (inRole)
      words({"let", "var", "for", "if", "return"}, kKeyword, "statement");
    else
      words({"let", "var", "ring", "role", "assume"}, kKeyword, "kernel-scope statement");
  }

  const State &state_;
  const Analysis &a_;
  uint32_t offset_, wordBegin_ = 0; ///< the cursor, the start of the word typed before it
  std::string_view text_;
  std::vector<Token> toks_;
  std::vector<CompletionItem> items_;
  std::unordered_set<std::string> seen_;
};

} // namespace

std::vector<std::string> completionTriggers() { return {".", "(", ":", "="}; }

CompletionList completion(State &state, const std::string &uri, Position position) {
  Located at = locate(state, uri, position);
  return Completer(state, *at.analysis, at.offset).run();
}

} // namespace cake::lsp
