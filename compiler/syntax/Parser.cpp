//===- Parser.cpp - CAKE IR parser ----------------------------------------===//
//
// A recursive-descent parser with one recovery point per statement (and per
// parameter or ring slot): the first error inside a statement is reported,
// the parser skips to the statement's end and carries on, so independent
// errors are all reported in one run. Every recursion is depth-limited.
//
//===----------------------------------------------------------------------===//
#include "compiler/syntax/Parser.h"

#include "compiler/syntax/Lexer.h"

#include <algorithm>
#include <array>

namespace cake::syntax {
namespace {

/// Thrown after a syntax error has been recorded; caught at a recovery point.
struct SyntaxError {};
/// Thrown once the error budget is spent; caught at the top.
struct TooManyErrors {};

/// Precedence levels of binaryPrecedence() that the parser names.
enum Prec { NoPrec = 0, PRange = 1, PCompare = 4 };

bool isAssignOp(Tok t) {
  return t == Tok::Assign || t == Tok::PlusAssign || t == Tok::MinusAssign || t == Tok::StarAssign ||
         t == Tok::SlashAssign;
}

bool isMemorySpace(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kSpaces = {"global", "shared", "reg", "tmem", "param"};
  return std::find(kSpaces.begin(), kSpaces.end(), name) != kSpaces.end();
}

std::string describeToken(const Token &t, std::string_view buffer) {
  switch (t.kind) {
  case Tok::Identifier:
    return "identifier '" + std::string(t.text(buffer)) + "'";
  case Tok::Number:
    return "number '" + std::string(t.text(buffer)) + "'";
  case Tok::String:
    return "string";
  default:
    if (t.kind >= Tok::Kernel && t.kind <= Tok::False)
      return "keyword '" + std::string(t.text(buffer)) + "'";
    return std::string(tokenName(t.kind));
  }
}

class Parser {
public:
  Parser(const SourceManager &sm, FileId file, std::vector<Diagnostic> &diags, const ParseLimits &limits)
      : file_(file), src_(sm.text(file)), diags_(diags), limits_(limits) {
    lexed_ = lex(sm, file, diags, limits.maxErrors);
    errors_ = lexed_.errorCount;
  }

  Module run() {
    Module m;
    m.file = file_;
    m.items.range = {file_, 0, static_cast<uint32_t>(src_.size())};
    try {
      if (errors_ >= limits_.maxErrors)
        tooManyErrors(diags_.back().range);
      parseStatements(m.items, /*topLevel=*/true);
    } catch (TooManyErrors &) {
    }
    return m;
  }

private:
  //===-- Tokens ----------------------------------------------------------===//

  /// The current token; newlines are insignificant inside brackets.
  const Token &tok() {
    if (parenDepth_ > 0)
      while (lexed_.tokens[pos_].kind == Tok::Newline)
        ++pos_;
    return lexed_.tokens[pos_];
  }
  /// The token after the current one, with the same newline rule.
  const Token &next() {
    tok();
    size_t i = pos_ + 1;
    if (parenDepth_ > 0)
      while (i < lexed_.tokens.size() && lexed_.tokens[i].kind == Tok::Newline)
        ++i;
    return lexed_.tokens[std::min(i, lexed_.tokens.size() - 1)];
  }
  bool at(Tok k) { return tok().kind == k; }
  Token advance() {
    Token t = tok();
    if (t.kind != Tok::Eof) {
      ++pos_;
      lastEnd_ = t.range.end;
    }
    return t;
  }
  bool accept(Tok k) {
    if (!at(k))
      return false;
    advance();
    return true;
  }
  Token expect(Tok k, std::string_view context) {
    if (!at(k))
      fail(tok(), "expected " + std::string(tokenName(k)) + std::string(context) + ", found " + describe(tok()));
    return advance();
  }
  Ident expectIdent(std::string_view what) {
    if (!at(Tok::Identifier))
      fail(tok(), "expected " + std::string(what) + ", found " + describe(tok()));
    Token t = advance();
    return {std::string(text(t)), t.range};
  }
  void skipNewlines() {
    while (at(Tok::Newline) || at(Tok::Semi))
      advance();
  }
  SourceRange from(uint32_t begin) const { return {file_, begin, std::max(begin, lastEnd_)}; }

  std::string_view text(const Token &t) const { return t.text(src_); }
  std::string describe(const Token &t) const { return describeToken(t, src_); }

  //===-- Errors ----------------------------------------------------------===//

  void report(Diagnostic d) {
    if (errors_ >= limits_.maxErrors)
      throw TooManyErrors();
    diags_.push_back(std::move(d));
    if (++errors_ >= limits_.maxErrors)
      tooManyErrors(diags_.back().range);
  }
  [[noreturn]] void tooManyErrors(SourceRange at) {
    diags_.push_back({"syntax.error-limit", Severity::Error, at,
                      "too many errors (" + std::to_string(limits_.maxErrors) + "), stopping here", {}, {}});
    throw TooManyErrors();
  }
  /// Reports at \p at (unless the lexer already did) and unwinds to the
  /// nearest recovery point.
  [[noreturn]] void fail(const Token &at, std::string message, const char *code = "syntax.unexpected",
                         std::vector<Note> notes = {}) {
    if (at.kind != Tok::Error)
      report({code, Severity::Error, at.range, std::move(message), std::move(notes), {}});
    throw SyntaxError();
  }

  /// Counts nesting for the duration of one recursive call.
  struct Nest {
    Parser &p;
    explicit Nest(Parser &p) : p(p) {
      if (++p.depth_ > p.limits_.maxNesting) {
        --p.depth_;
        p.fail(p.tok(), "nesting deeper than " + std::to_string(p.limits_.maxNesting) + " levels", "syntax.nesting");
      }
    }
    ~Nest() { --p.depth_; }
  };

  /// After an error: skip to the end of the statement, jumping over any
  /// braced block, and stop before a '}' that closes the enclosing block.
  void recoverToStatementEnd(size_t statementStart) {
    parenDepth_ = 0;
    int braces = 0;
    for (size_t start = statementStart;;) {
      Tok k = tok().kind;
      if (k == Tok::Eof)
        return;
      if (braces == 0 && pos_ > start && startsStatementLine())
        return; // an unclosed '(' swallowed the newline: resume here
      if (k == Tok::RBrace && braces == 0)
        return;
      if ((k == Tok::Newline || k == Tok::Semi) && braces == 0) {
        advance();
        return;
      }
      braces += k == Tok::LBrace ? 1 : k == Tok::RBrace ? -1 : 0;
      advance();
    }
  }

  /// Whether the current token is a statement keyword that begins its line.
  bool startsStatementLine() {
    Tok k = tok().kind;
    bool keyword = k == Tok::Let || k == Tok::Var || k == Tok::Ring || k == Tok::Role || k == Tok::For ||
                   k == Tok::If || k == Tok::Assume || k == Tok::Return || k == Tok::Kernel || k == Tok::Const;
    return keyword && pos_ > 0 && lexed_.tokens[pos_ - 1].kind == Tok::Newline;
  }

  /// "expected ','..." after an opener: when the offending token begins a
  /// new statement line, the real problem is the unclosed opener.
  std::vector<Note> unclosedNote(const Token &open) {
    if (!startsStatementLine())
      return {};
    return {{open.range, std::string("to match this '") + std::string(text(open)) + "'"}};
  }
  /// The code of an error found where a closer was expected: an unclosed
  /// opener when the next statement has begun.
  const char *closerCode() { return startsStatementLine() ? "syntax.unclosed" : "syntax.unexpected"; }

  //===-- Comments --------------------------------------------------------===//

  /// Comments that start before \p offset and are not yet attached, as
  /// lines: a comment's text, or "" for the blank line before it.
  std::vector<std::string> takeCommentsBefore(uint32_t offset) {
    std::vector<std::string> out;
    auto &cs = lexed_.comments;
    while (comment_ < cs.size() && cs[comment_].range.begin < offset) {
      if (cs[comment_].blankLineBefore)
        addBlankLine(out);
      out.emplace_back(cs[comment_++].text);
    }
    return out;
  }
  static void addBlankLine(std::vector<std::string> &lines) {
    if (lines.empty() || !lines.back().empty())
      lines.emplace_back();
  }
  static void dropBlankLines(std::vector<std::string> &lines) {
    std::erase(lines, std::string());
  }
  Trivia leadingTrivia() {
    Trivia t;
    t.leading = takeCommentsBefore(tok().range.begin);
    if (tok().blankLineBefore)
      addBlankLine(t.leading);
    return t;
  }
  /// Moves comments written inside a node to its leading comments, then
  /// takes a comment that follows the node on its last line.
  void finishTrivia(Trivia &t, uint32_t end) {
    for (auto &c : takeCommentsBefore(end))
      t.leading.push_back(std::move(c));
    auto &cs = lexed_.comments;
    if (comment_ < cs.size() && !cs[comment_].ownLine) {
      std::string_view between = src_.substr(end, cs[comment_].range.begin - end);
      if (between.find('\n') == std::string_view::npos)
        t.trailing = std::string(cs[comment_++].text);
    }
  }

  //===-- Statements ------------------------------------------------------===//

  /// Statements up to '}' (not consumed) or the end of the file.
  void parseStatements(Block &block, bool topLevel) {
    for (;;) {
      skipNewlines();
      if (at(Tok::Eof))
        break;
      if (at(Tok::RBrace)) {
        if (!topLevel)
          break;
        recover([&] { fail(tok(), "unmatched '}'"); });
        advance();
        continue;
      }
      Trivia trivia = leadingTrivia();
      if (block.stmts.empty() && !trivia.leading.empty() && trivia.leading.front().empty())
        trivia.leading.erase(trivia.leading.begin()); // no blank line after '{'

      recover([&] {
        chainLinks_ = 0;
        StmtPtr s = topLevel || items_ ? parseItem() : parseStmt();
        finishTrivia(trivia, s->range.end);
        s->trivia = std::move(trivia);
        expectStatementEnd();
        block.stmts.push_back(std::move(s));
      });
    }
    block.danglingComments = takeCommentsBefore(tok().range.begin);
    if (block.stmts.empty() && !block.danglingComments.empty() && block.danglingComments.front().empty())
      block.danglingComments.erase(block.danglingComments.begin());
  }

  /// Runs \p body; on a syntax error restores the parser state and skips the
  /// rest of the statement.
  template <typename F> void recover(F body) {
    unsigned depth = depth_, parens = parenDepth_;
    size_t start = pos_;
    try {
      body();
    } catch (SyntaxError &) {
      depth_ = depth;
      parenDepth_ = parens;
      recoverToStatementEnd(start);
    }
  }

  void expectStatementEnd() {
    Tok k = tok().kind;
    if (k == Tok::Newline || k == Tok::Semi)
      advance();
    else if (k != Tok::RBrace && k != Tok::Eof)
      fail(tok(), "expected end of statement, found " + describe(tok()));
  }

  /// A module item. `param` and `require` are keywords only here (language.md
  /// 9): elsewhere they stay names (`param` is also a memory space).
  StmtPtr parseItem() {
    Nest nest(*this);
    switch (tok().kind) {
    case Tok::Kernel:
      return parseKernel();
    case Tok::Const:
      return parseConst();
    case Tok::If:
      return parseIf(/*items=*/true);
    case Tok::Identifier:
      if (text(tok()) == "param")
        return parseParam();
      if (text(tok()) == "require")
        return parseRequire();
      [[fallthrough]];
    default:
      fail(tok(), "expected 'kernel', 'const', 'param', 'require' or 'if' at the top level, found " +
                      describe(tok()));
    }
  }

  StmtPtr parseParam() {
    uint32_t begin;
    auto p = start<ParamDecl>(begin);
    p->name = expectIdent("parameter name");
    expect(Tok::Colon, " and a kind (int, bool, elem, swizzle) after the parameter name");
    p->kind = expectIdent("parameter kind (int, bool, elem, swizzle)");
    if (accept(Tok::In)) {
      if (at(Tok::LBrace)) {
        Token open = tok();
        advance();
        p->hasChoices = true;
        ++parenDepth_; // newlines inside the set are ignored
        try {
          skipNewlines();
          while (!at(Tok::RBrace)) {
            p->choices.push_back(parseExpr());
            skipNewlines();
            if (!accept(Tok::Comma))
              break;
            skipNewlines();
          }
          if (!at(Tok::RBrace))
            fail(tok(), "expected ',' or '}' in the parameter's set, found " + describe(tok()), closerCode(),
                 unclosedNote(open));
        } catch (SyntaxError &) {
          skipSet();
          throw;
        }
        --parenDepth_;
        advance();
        if (p->choices.empty())
          fail(open, "a parameter's set needs at least one value");
      } else {
        p->bounds = parseExpr();
      }
    }
    if (accept(Tok::Assign))
      p->defaultValue = parseExpr();
    return finish(std::move(p), begin);
  }

  /// After an error inside a parameter's set: skip past its '}', so that
  /// recovery does not take it for an unmatched one, unless the next item
  /// begins first (the set was never closed).
  void skipSet() {
    auto itemLine = [&] {
      bool word = at(Tok::Identifier) && (text(tok()) == "param" || text(tok()) == "require");
      return startsStatementLine() || (word && pos_ > 0 && lexed_.tokens[pos_ - 1].kind == Tok::Newline);
    };
    while (!at(Tok::Eof) && !at(Tok::RBrace) && !itemLine())
      advance();
    if (at(Tok::RBrace))
      advance();
  }

  StmtPtr parseRequire() {
    uint32_t begin;
    auto r = start<RequireDecl>(begin);
    do
      r->facts.push_back(parseExpr());
    while (accept(Tok::Comma));
    return finish(std::move(r), begin);
  }

  StmtPtr parseStmt() {
    Nest nest(*this);
    switch (tok().kind) {
    case Tok::Let:
      return parseLet();
    case Tok::Var:
      return parseVar();
    case Tok::Ring:
      return parseRing();
    case Tok::Role:
      return parseRole();
    case Tok::For:
      return parseFor();
    case Tok::If:
      return parseIf(/*items=*/false);
    case Tok::Assume:
      return parseAssume();
    case Tok::Return:
      return parseReturn();
    case Tok::Kernel:
    case Tok::Const:
      fail(tok(), "'" + std::string(text(tok())) + "' declarations are only allowed at the top level");
    default:
      return parseExprOrAssign();
    }
  }

  template <typename T> std::unique_ptr<T> start(uint32_t &begin) {
    begin = tok().range.begin;
    advance(); // the keyword
    return std::make_unique<T>();
  }
  template <typename T> std::unique_ptr<T> finish(std::unique_ptr<T> s, uint32_t begin) {
    s->range = from(begin);
    return s;
  }

  StmtPtr parseKernel() {
    uint32_t begin;
    auto k = start<KernelDecl>(begin);
    bool headerOk = header([&] {
      k->name = expectIdent("kernel name");
      Token open = expect(Tok::LParen, " after the kernel name");
      ++parenDepth_;
      k->params = parseFields(Tok::RParen, open, k->paramsDanglingComments);
      --parenDepth_;
      k->clauses = parseHeaderClauses();
    }, /*sameLine=*/false);
    parseBlock(k->body, "kernel body");
    if (!headerOk)
      throw SyntaxError(); // already reported; the body's errors were too
    return finish(std::move(k), begin);
  }

  /// Parses a header with \p body. After an error in it, resumes at the
  /// header's '{' (on the same line, or anywhere before the next kernel when
  /// \p sameLine is false) so that errors in the body are reported as well;
  /// returns false in that case. Rethrows when there is no '{' to resume at.
  template <typename F> bool header(F body, bool sameLine) {
    unsigned depth = depth_, parens = parenDepth_;
    try {
      body();
      return true;
    } catch (SyntaxError &) {
      depth_ = depth;
      parenDepth_ = parens;
      for (size_t i = pos_; i < lexed_.tokens.size(); ++i) {
        Tok k = lexed_.tokens[i].kind;
        if (k == Tok::LBrace) {
          pos_ = i;
          return false;
        }
        if (k == Tok::Eof || k == Tok::Kernel || k == Tok::RBrace || (sameLine && k == Tok::Newline))
          break;
      }
      throw;
    }
  }

  StmtPtr parseConst() {
    uint32_t begin;
    auto c = start<ConstDecl>(begin);
    c->name = expectIdent("constant name");
    if (accept(Tok::Colon))
      c->type = parseType();
    expect(Tok::Assign, " in constant declaration");
    c->value = parseExpr();
    return finish(std::move(c), begin);
  }

  StmtPtr parseLet() {
    uint32_t begin;
    auto l = start<LetStmt>(begin);
    do
      l->names.push_back(expectIdent("name to bind"));
    while (accept(Tok::Comma));
    if (accept(Tok::Colon))
      l->type = parseType();
    expect(Tok::Assign, " in 'let'");
    l->value = parseExpr();
    return finish(std::move(l), begin);
  }

  StmtPtr parseVar() {
    uint32_t begin;
    auto v = start<VarStmt>(begin);
    v->name = expectIdent("variable name");
    expect(Tok::Colon, " and a type after the variable name");
    v->type = parseType();
    if (accept(Tok::Assign))
      v->init = parseExpr();
    return finish(std::move(v), begin);
  }

  StmtPtr parseRing() {
    uint32_t begin;
    auto r = start<RingStmt>(begin);
    r->name = expectIdent("ring name");
    r->clauses = parseHeaderClauses();
    Token open = expect(Tok::LBrace, " to open the ring's slots");
    r->slots = parseFields(Tok::RBrace, open, r->danglingComments);
    r->bodyRange = from(open.range.begin);
    return finish(std::move(r), begin);
  }

  StmtPtr parseRole() {
    uint32_t begin;
    auto r = start<RoleStmt>(begin);
    bool headerOk = header([&] {
      r->name = expectIdent("role name");
      r->clauses = parseHeaderClauses();
    }, /*sameLine=*/true);
    parseBlock(r->body, "role body");
    if (!headerOk)
      throw SyntaxError();
    return finish(std::move(r), begin);
  }

  StmtPtr parseFor() {
    uint32_t begin;
    auto f = start<ForStmt>(begin);
    bool headerOk = header([&] {
      f->var = expectIdent("loop variable");
      expect(Tok::In, " after the loop variable");
      f->iterable = parseExpr();
      f->clauses = parseHeaderClauses();
    }, /*sameLine=*/true);
    parseBlock(f->body, "loop body");
    if (!headerOk)
      throw SyntaxError();
    return finish(std::move(f), begin);
  }

  /// `if`; with \p items, one at the top level whose branches hold items
  /// (resolved at instantiation).
  StmtPtr parseIf(bool items) {
    uint32_t begin;
    auto s = start<IfStmt>(begin);
    s->cond = parseExpr();
    skipNewlinesBefore(Tok::LBrace);
    parseBlock(s->thenBody, "'if' body", items);
    if (skipNewlinesBefore(Tok::Else)) {
      advance();
      if (at(Tok::If)) {
        Nest nest(*this);
        s->elseIf = parseIf(items);
      } else {
        s->elseBody.emplace();
        skipNewlinesBefore(Tok::LBrace);
        parseBlock(*s->elseBody, "'else' body", items);
      }
    }
    return finish(std::move(s), begin);
  }

  /// Skips newlines only when \p k follows them; says whether it does.
  bool skipNewlinesBefore(Tok k) {
    size_t i = pos_;
    while (lexed_.tokens[i].kind == Tok::Newline)
      ++i;
    if (lexed_.tokens[i].kind != k)
      return false;
    pos_ = i;
    return true;
  }

  StmtPtr parseAssume() {
    uint32_t begin;
    auto a = start<AssumeStmt>(begin);
    do
      a->facts.push_back(parseExpr());
    while (accept(Tok::Comma));
    return finish(std::move(a), begin);
  }

  StmtPtr parseReturn() {
    uint32_t begin;
    auto r = start<ReturnStmt>(begin);
    if (!at(Tok::Newline) && !at(Tok::Semi) && !at(Tok::RBrace) && !at(Tok::Eof))
      r->value = parseExpr();
    return finish(std::move(r), begin);
  }

  StmtPtr parseExprOrAssign() {
    uint32_t begin = tok().range.begin;
    std::vector<ExprPtr> targets;
    targets.push_back(parseExpr());
    while (accept(Tok::Comma))
      targets.push_back(parseExpr());
    if (isAssignOp(tok().kind)) {
      auto a = std::make_unique<AssignStmt>();
      a->op = advance().kind;
      a->targets = std::move(targets);
      a->value = parseExpr();
      return finish(std::move(a), begin);
    }
    if (targets.size() > 1)
      fail(tok(), "expected '=' after a list of assignment targets, found " + describe(tok()));
    auto e = std::make_unique<ExprStmt>();
    e->expr = std::move(targets.front());
    return finish(std::move(e), begin);
  }

  /// `{ stmt* }`. At the end of the file an unclosed block is reported once
  /// (with a note at its '{') and closed implicitly, so that enclosing blocks
  /// do not repeat the error.
  /// `{ ... }` of statements, or of items when \p items (a top-level `if`).
  void parseBlock(Block &block, std::string_view what, bool items = false) {
    Token open = expect(Tok::LBrace, " to open the " + std::string(what));
    uint32_t saved = parenDepth_;
    bool savedItems = items_;
    parenDepth_ = 0;
    items_ = items;
    parseStatements(block, /*topLevel=*/false);
    parenDepth_ = saved;
    items_ = savedItems;
    if (at(Tok::Eof))
      reportUnclosed(open, what);
    else
      advance();
    block.range = from(open.range.begin);
  }

  void reportUnclosed(const Token &open, std::string_view what) {
    if (eofReported_)
      return;
    eofReported_ = true;
    report({"syntax.unclosed", Severity::Error, tok().range,
            "expected '" + std::string(open.kind == Tok::LBrace ? "}" : open.kind == Tok::LParen ? ")" : "]") +
                "' to close the " + std::string(what) + " before the end of the file",
            {{open.range, "opened here"}}, {}});
  }

  //===-- Fields, clauses and types ---------------------------------------===//

  /// Fields up to \p close, separated by ',' or newlines; each bad field is
  /// reported and skipped on its own.
  std::vector<Field> parseFields(Tok close, const Token &open, std::vector<std::string> &dangling) {
    std::vector<Field> fields;
    for (;;) {
      while (at(Tok::Newline) || at(Tok::Semi))
        advance();
      if (at(close))
        break;
      if (at(Tok::Eof) || (close == Tok::RParen && at(Tok::LBrace))) {
        if (at(Tok::Eof)) {
          reportUnclosed(open, close == Tok::RParen ? "parameter list" : "ring");
          throw SyntaxError();
        }
        fail(tok(), "expected ')' to close the parameter list, found '{'", "syntax.unclosed",
             {{open.range, "opened here"}});
      }
      Field f;
      f.trivia = leadingTrivia();
      dropBlankLines(f.trivia.leading); // fields print without blank lines
      uint32_t begin = tok().range.begin;
      bool ok = true;
      try {
        f.name = expectIdent(close == Tok::RParen ? "parameter name" : "slot name");
        expect(Tok::Colon, " after '" + f.name.name + "'");
        f.type = parseType();
        f.range = from(begin);
        bool unclosedParams = close == Tok::RParen && at(Tok::LBrace); // reported by the loop
        if (!at(close) && !unclosedParams && !accept(Tok::Comma) && !at(Tok::Newline) && !at(Tok::Semi))
          fail(tok(), "expected ',' or " + std::string(tokenName(close)) + " after '" + f.name.name + "', found " +
                          describe(tok()));
      } catch (SyntaxError &) {
        ok = false;
        skipToFieldEnd(close);
      }
      if (ok) {
        finishTrivia(f.trivia, lastEnd_);
        fields.push_back(std::move(f));
      }
    }
    dangling = takeCommentsBefore(tok().range.begin);
    dropBlankLines(dangling);
    advance();
    return fields;
  }

  void skipToFieldEnd(Tok close) {
    int depth = 0;
    for (;;) {
      Tok k = tok().kind;
      if (k == Tok::Eof || (depth == 0 && (k == close || k == Tok::LBrace)))
        return;
      if (depth == 0 && (k == Tok::Comma || k == Tok::Newline || k == Tok::Semi)) {
        advance();
        return;
      }
      depth += (k == Tok::LParen || k == Tok::LBracket) ? 1 : (k == Tok::RParen || k == Tok::RBracket) ? -1 : 0;
      advance();
    }
  }

  /// Clauses of a kernel, role, ring or loop header, which may span lines.
  std::vector<Clause> parseHeaderClauses() {
    std::vector<Clause> clauses;
    for (;;) {
      skipNewlinesBefore(Tok::Identifier);
      if (!at(Tok::Identifier))
        break;
      clauses.push_back(parseClause());
    }
    skipNewlinesBefore(Tok::LBrace);
    return clauses;
  }

  Clause parseClause() {
    Clause c;
    c.name = expectIdent("clause name");
    if (at(Tok::LParen)) {
      c.hasArgs = true;
      c.args = parseArgs(Tok::RParen, "clause arguments");
    }
    c.range = from(c.name.range.begin);
    return c;
  }

  TypeExpr parseType() {
    TypeExpr t;
    uint32_t begin = tok().range.begin;
    Ident first = expectIdent("type");
    if (isMemorySpace(first.name)) {
      t.space = first;
      t.elem = expectIdent("element type after memory space '" + first.name + "'");
    } else {
      t.elem = first;
    }
    if (at(Tok::LBracket)) {
      t.hasShape = true;
      t.dims = parseArgs(Tok::RBracket, "shape");
    }
    while (at(Tok::Identifier))
      t.clauses.push_back(parseClause());
    t.range = from(begin);
    return t;
  }

  //===-- Expressions -----------------------------------------------------===//

  ExprPtr make(ExprKind kind, uint32_t begin) {
    return std::make_unique<Expr>(kind, SourceRange{file_, begin, std::max(begin, lastEnd_)});
  }

  ExprPtr parseExpr() {
    Nest nest(*this);
    return parseBinary(PRange);
  }

  /// The longest chain of binary or postfix operations one expression may
  /// have: a chain is a tree as deep as it is long, and every later pass
  /// (and the tree's destructor) walks it recursively (issue #16: a member
  /// chain of a million `.b` overflowed the stack).
  /// Counted per statement (so parentheses cannot multiply it).
  unsigned maxChain() const { return limits_.maxNesting * 16; }
  void chained() {
    if (++chainLinks_ > maxChain())
      fail(tok(), "an expression chain longer than " + std::to_string(maxChain()) +
                      " operations; split it into constants or lets", "syntax.nesting");
  }

  ExprPtr parseBinary(int minPrec) {
    uint32_t begin = tok().range.begin;
    ExprPtr lhs = parseUnary();
    for (;;) {
      int p = binaryPrecedence(tok().kind);
      if (p == NoPrec || p < minPrec)
        return lhs;
      chained();
      Token op = advance();
      ExprPtr rhs = parseBinary(p + 1);
      ExprPtr bin = make(ExprKind::Binary, begin);
      bin->op = op.kind;
      bin->operands.push_back(std::move(lhs));
      bin->operands.push_back(std::move(rhs));
      lhs = std::move(bin);
      if ((p == PCompare || p == PRange) && binaryPrecedence(tok().kind) == p)
        fail(tok(), p == PRange ? "ranges cannot be chained"
                                : "comparisons cannot be chained: write 'a <= b && b < c' for a range test");
    }
  }

  ExprPtr parseUnary() {
    Tok k = tok().kind;
    if (k != Tok::Minus && k != Tok::Bang && k != Tok::Tilde)
      return parsePostfix();
    Nest nest(*this);
    Token op = advance();
    ExprPtr e = std::make_unique<Expr>(ExprKind::Unary, op.range);
    e->op = op.kind;
    e->operands.push_back(parseUnary());
    e->range = from(op.range.begin);
    return e;
  }

  ExprPtr parsePostfix() {
    uint32_t begin = tok().range.begin;
    ExprPtr e = parsePrimary();
    for (;;) {
      if (at(Tok::Dot) || at(Tok::LParen) || at(Tok::LBracket))
        chained();
      if (at(Tok::Dot) && e->kind == ExprKind::Number)
        fail(tok(), "a number has no members; write an exponent as 1e-6", "syntax.number");
      if (accept(Tok::Dot)) {
        // After '.', keywords are plain names: `sync.role()`, `t.in`.
        if (tok().kind >= Tok::Kernel && tok().kind <= Tok::False)
          lexed_.tokens[pos_].kind = Tok::Identifier;
        Ident name = expectIdent("member name after '.'");
        ExprPtr m = make(ExprKind::Member, begin);
        m->text = name.name;
        m->operands.push_back(std::move(e));
        e = std::move(m);
      } else if (at(Tok::LParen) || at(Tok::LBracket)) {
        bool call = at(Tok::LParen);
        uint32_t open = tok().range.begin;
        std::vector<ExprPtr> args = parseArgs(call ? Tok::RParen : Tok::RBracket, call ? "arguments" : "indices");
        ExprPtr c = make(call ? ExprKind::Call : ExprKind::Index, begin);
        c->open = open;
        c->operands.push_back(std::move(e));
        for (auto &a : args)
          c->operands.push_back(std::move(a));
        e = std::move(c);
      } else {
        return e;
      }
    }
  }

  /// `(args)` or `[indices]`, the opener being the current token.
  std::vector<ExprPtr> parseArgs(Tok close, std::string_view what) {
    Nest nest(*this);
    Token open = advance();
    ++parenDepth_;
    std::vector<ExprPtr> args;
    while (!at(close)) {
      if (at(Tok::Eof)) {
        reportUnclosed(open, what);
        throw SyntaxError();
      }
      args.push_back(close == Tok::RBracket ? parseIndex() : parseArg());
      if (!accept(Tok::Comma) && !at(close))
        fail(tok(),
             "expected ',' or " + std::string(tokenName(close)) + " in " + std::string(what) + ", found " +
                 describe(tok()),
             closerCode(), unclosedNote(open));
    }
    advance();
    --parenDepth_;
    return args;
  }

  ExprPtr parseArg() {
    if (at(Tok::Identifier) && next().kind == Tok::Assign) {
      Token name = advance();
      advance(); // '='
      ExprPtr kw = std::make_unique<Expr>(ExprKind::Keyword, name.range);
      kw->text = std::string(text(name));
      kw->operands.push_back(parseExpr());
      kw->range = from(name.range.begin);
      return kw;
    }
    return parseExpr();
  }

  ExprPtr parseIndex() {
    uint32_t begin = tok().range.begin;
    ExprPtr lo = at(Tok::Colon) ? nullptr : parseExpr();
    if (!accept(Tok::Colon))
      return lo;
    ExprPtr hi = (at(Tok::Comma) || at(Tok::RBracket)) ? nullptr : parseExpr();
    ExprPtr s = make(ExprKind::Slice, begin);
    s->operands.push_back(std::move(lo));
    s->operands.push_back(std::move(hi));
    return s;
  }

  ExprPtr parsePrimary() {
    const Token &t = tok();
    auto leaf = [&](ExprKind kind) {
      Token tk = advance();
      ExprPtr e = std::make_unique<Expr>(kind, tk.range);
      e->text = std::string(text(tk));
      return e;
    };
    switch (t.kind) {
    case Tok::Identifier:
      return leaf(ExprKind::Name);
    case Tok::Number:
      return leaf(ExprKind::Number);
    case Tok::String:
      return leaf(ExprKind::String);
    case Tok::True:
    case Tok::False:
      return leaf(ExprKind::Bool);
    case Tok::LParen: {
      Nest nest(*this);
      Token open = advance();
      ++parenDepth_;
      if (at(Tok::Eof)) {
        reportUnclosed(open, "parenthesized expression");
        throw SyntaxError();
      }
      ExprPtr inner = parseExpr();
      if (at(Tok::Eof)) {
        reportUnclosed(open, "parenthesized expression");
        throw SyntaxError();
      }
      if (!at(Tok::RParen))
        fail(tok(), "expected ')' to close the parenthesized expression, found " + describe(tok()), closerCode(),
             unclosedNote(open));
      advance();
      --parenDepth_;
      ExprPtr e = make(ExprKind::Paren, open.range.begin);
      e->operands.push_back(std::move(inner));
      return e;
    }
    default:
      fail(t, "expected an expression, found " + describe(t));
    }
  }

  FileId file_;
  std::string_view src_;
  std::vector<Diagnostic> &diags_;
  ParseLimits limits_;
  LexedFile lexed_;
  size_t pos_ = 0;
  size_t comment_ = 0;
  uint32_t lastEnd_ = 0;
  unsigned parenDepth_ = 0;
  unsigned depth_ = 0;
  unsigned errors_ = 0;
  bool eofReported_ = false;
  bool items_ = false; ///< parsing the branches of a top-level `if`: items, not statements
  unsigned chainLinks_ = 0; ///< binary and postfix operations of the statement being parsed
};

} // namespace

Module parse(const SourceManager &sm, FileId file, std::vector<Diagnostic> &diags, const ParseLimits &limits) {
  return Parser(sm, file, diags, limits).run();
}

} // namespace cake::syntax
