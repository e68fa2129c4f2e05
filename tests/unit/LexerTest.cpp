//===- LexerTest.cpp ------------------------------------------------------===//
#include "compiler/syntax/Lexer.h"

#include <gtest/gtest.h>

using namespace cake;
using namespace cake::syntax;

namespace {

struct Lexed {
  SourceManager sm;
  std::vector<Diagnostic> diags;
  LexedFile out;
};

std::unique_ptr<Lexed> lexText(std::string text) {
  auto l = std::make_unique<Lexed>();
  FileId f = l->sm.addBuffer("t.cake", std::move(text));
  l->out = lex(l->sm, f, l->diags);
  return l;
}

std::vector<Tok> kinds(const LexedFile &f) {
  std::vector<Tok> k;
  for (const Token &t : f.tokens)
    k.push_back(t.kind);
  return k;
}

TEST(Lexer, KeywordsIdentifiersAndPunctuation) {
  auto l = lexText("kernel k(a: global bf16[M, K]) { x += 1 .. N -> y }");
  EXPECT_TRUE(l->diags.empty());
  std::vector<Tok> expected = {Tok::Kernel, Tok::Identifier, Tok::LParen, Tok::Identifier, Tok::Colon,
                               Tok::Identifier, Tok::Identifier, Tok::LBracket, Tok::Identifier, Tok::Comma,
                               Tok::Identifier, Tok::RBracket, Tok::RParen, Tok::LBrace, Tok::Identifier,
                               Tok::PlusAssign, Tok::Number, Tok::DotDot, Tok::Identifier, Tok::Arrow,
                               Tok::Identifier, Tok::RBrace, Tok::Eof};
  EXPECT_EQ(kinds(l->out), expected);
}

TEST(Lexer, NumbersWithRadixFractionExponentAndUnit) {
  auto l = lexText("0x80 0b1010 1_024 1.5e-3 128B 64KiB 0..8");
  ASSERT_TRUE(l->diags.empty());
  std::vector<std::string_view> texts;
  for (const Token &t : l->out.tokens)
    texts.push_back(t.text(l->sm.text(FileId{1})));
  std::vector<std::string_view> expected = {"0x80", "0b1010", "1_024", "1.5e-3", "128B", "64KiB", "0", "..", "8", ""};
  EXPECT_EQ(texts, expected);
}

TEST(Lexer, MalformedNumberIsOneError) {
  auto l = lexText("x = 1.2.3 + 0x12g");
  ASSERT_EQ(l->diags.size(), 2u);
  EXPECT_EQ(l->diags[0].code, "syntax.number");
  EXPECT_EQ(l->diags[0].range.begin, 4u);
  EXPECT_EQ(l->diags[0].range.end, 9u);
  EXPECT_EQ(l->diags[1].code, "syntax.number");
}

TEST(Lexer, UnterminatedStringStopsAtEndOfLine) {
  auto l = lexText("s = \"abc\nt = 1");
  ASSERT_EQ(l->diags.size(), 1u);
  EXPECT_EQ(l->diags[0].code, "syntax.string");
  EXPECT_EQ(l->diags[0].range.end, 8u);
  EXPECT_EQ(l->out.tokens.back().kind, Tok::Eof);
}

TEST(Lexer, NonAsciiIsOneErrorPerCharacter) {
  auto l = lexText("x = \xC3\xA9 // caf\xC3\xA9 is fine in a comment\n");
  ASSERT_EQ(l->diags.size(), 1u);
  EXPECT_EQ(l->diags[0].code, "syntax.character");
  EXPECT_EQ(l->diags[0].range.size(), 2u);
}

// Regression (issue #16): a lead byte was taken with the 1-3 bytes after it
// whatever they were, so a stray 0xFF swallowed the newline after it and two
// lines became one.
TEST(Lexer, AStrayByteDoesNotSwallowTheNextLine) {
  auto l = lexText("a = 1 \xFF\nb = 2\n");
  ASSERT_EQ(l->diags.size(), 1u);
  EXPECT_EQ(l->diags[0].code, "syntax.character");
  EXPECT_EQ(l->diags[0].range.size(), 1u);
  size_t newlines = 0;
  for (const Token &t : l->out.tokens)
    newlines += t.kind == Tok::Newline;
  EXPECT_EQ(newlines, 2u);
}

// Regression (issue #16): integers past 64 bits and infinite floats read as
// "unknown", so a dimension of 2^63 checked clean.
TEST(Lexer, NumbersOutOfRangeAreErrors) {
  auto l = lexText("a = 9223372036854775807 + 9223372036854775808 + 0x1_0000_0000_0000_0000 + 1e999 + 8796093022208MiB");
  ASSERT_EQ(l->diags.size(), 4u);
  for (const Diagnostic &d : l->diags)
    EXPECT_EQ(d.code, "syntax.number");
  EXPECT_NE(l->diags[0].message.find("does not fit in 64 bits"), std::string::npos);
  EXPECT_NE(l->diags[2].message.find("too large for a 64-bit float"), std::string::npos);
}

TEST(Lexer, CommentsAndBlankLinesAreRecorded) {
  auto l = lexText("a\n\n// lead\nb // tail\n");
  ASSERT_EQ(l->out.comments.size(), 2u);
  EXPECT_TRUE(l->out.comments[0].ownLine);
  EXPECT_TRUE(l->out.comments[0].blankLineBefore);
  EXPECT_FALSE(l->out.comments[1].ownLine);
  EXPECT_EQ(l->out.comments[1].text, "// tail");
}

TEST(Lexer, ErrorBudgetBoundsDiagnostics) {
  std::string junk(10000, '$');
  SourceManager sm;
  std::vector<Diagnostic> diags;
  LexedFile out = lex(sm, sm.addBuffer("j", junk), diags, 100);
  EXPECT_EQ(diags.size(), 100u);
  EXPECT_EQ(out.errorCount, 10000u);
}

} // namespace
