//===- ParserTest.cpp -----------------------------------------------------===//
#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace cake;
using namespace cake::syntax;
using cake::test::parseText;

namespace {

const KernelDecl &firstKernel(const Module &m) {
  return static_cast<const KernelDecl &>(*m.items.stmts.at(0));
}

TEST(Parser, KernelHeaderParamsAndClauses) {
  auto p = parseText("kernel k(A: global bf16[M, K] align(16), n: i32) target(sm_90a) block(384) {}\n");
  ASSERT_TRUE(p.diags.empty());
  const KernelDecl &k = firstKernel(p.module);
  EXPECT_EQ(k.name.name, "k");
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].type.space->name, "global");
  EXPECT_EQ(k.params[0].type.elem.name, "bf16");
  EXPECT_EQ(k.params[0].type.dims.size(), 2u);
  EXPECT_EQ(k.params[0].type.clauses.at(0).name.name, "align");
  EXPECT_FALSE(k.params[1].type.space.has_value());
  ASSERT_EQ(k.clauses.size(), 2u);
  EXPECT_EQ(k.clauses[1].name.name, "block");
  // Ranges are exact: the kernel name and the first parameter's type.
  EXPECT_EQ(p.sm->text(p.file).substr(k.name.range.begin, k.name.range.size()), "k");
  EXPECT_EQ(p.sm->text(p.file).substr(k.params[0].type.range.begin, k.params[0].type.range.size()),
            "global bf16[M, K] align(16)");
}

TEST(Parser, OperationsAreCallsWithKeywordArguments) {
  auto p = parseText("kernel k() {\n  ab.release(s, after = wgmma.retired(1))\n}\n");
  ASSERT_TRUE(p.diags.empty());
  const auto &stmt = static_cast<const ExprStmt &>(*firstKernel(p.module).body.stmts.at(0));
  const Expr &call = *stmt.expr;
  ASSERT_EQ(call.kind, ExprKind::Call);
  EXPECT_EQ(print(*call.operands[0]), "ab.release");
  ASSERT_EQ(call.operands.size(), 3u);
  EXPECT_EQ(call.operands[2]->kind, ExprKind::Keyword);
  EXPECT_EQ(call.operands[2]->text, "after");
}

TEST(Parser, PrecedenceAndAssociativity) {
  auto p = parseText("kernel k() {\n  x = a - b - c * d .. e + 1\n}\n");
  ASSERT_TRUE(p.diags.empty());
  const auto &a = static_cast<const AssignStmt &>(*firstKernel(p.module).body.stmts.at(0));
  const Expr &range = *a.value;
  EXPECT_EQ(range.op, Tok::DotDot);
  const Expr &lhs = *range.operands[0]; // (a - b) - (c * d)
  EXPECT_EQ(lhs.op, Tok::Minus);
  EXPECT_EQ(lhs.operands[0]->op, Tok::Minus);
  EXPECT_EQ(lhs.operands[1]->op, Tok::Star);
}

TEST(Parser, SlicesAndMultipleTargets) {
  auto p = parseText("kernel k() {\n  v, i = argmin(x[0:64, :, 2:], axis = 1)\n}\n");
  ASSERT_TRUE(p.diags.empty());
  const auto &a = static_cast<const AssignStmt &>(*firstKernel(p.module).body.stmts.at(0));
  EXPECT_EQ(a.targets.size(), 2u);
  const Expr &index = *a.value->operands[1];
  ASSERT_EQ(index.kind, ExprKind::Index);
  EXPECT_EQ(index.operands[2]->kind, ExprKind::Slice);
  EXPECT_EQ(index.operands[2]->operand(0), nullptr);
  EXPECT_EQ(index.operands[3]->operand(1), nullptr);
}

TEST(Parser, NewlinesInsideBracketsDoNotEndStatements) {
  auto p = parseText("kernel k() {\n  tma.load(\n    A[m,\n      k],\n    s.a)\n  x = 1\n}\n");
  ASSERT_TRUE(p.diags.empty());
  EXPECT_EQ(firstKernel(p.module).body.stmts.size(), 2u);
}

TEST(Parser, ThreeIndependentErrorsAreAllReported) {
  auto p = parseText("kernel k() {\n"
                     "  x = (1 + \n"  // line 2: unclosed paren swallows the newline...
                     "  )\n"          // ...and this ')' then closes it: 1 + ) is the error
                     "  y = 2 3\n"    // line 4: junk after a statement
                     "  role r warps(0 .. 4) {\n"
                     "    let = 5\n" // line 6: missing name
                     "  }\n"
                     "}\n");
  ASSERT_EQ(p.diags.size(), 3u);
  EXPECT_EQ(p.at(p.diags[0]).line, 3u);
  EXPECT_EQ(p.at(p.diags[1]).line, 4u);
  EXPECT_EQ(p.at(p.diags[1]).column, 9u);
  EXPECT_EQ(p.at(p.diags[2]).line, 6u);
  for (const Diagnostic &d : p.diags)
    EXPECT_EQ(d.code, "syntax.unexpected");
  // The statements around the errors survive.
  const auto &role = static_cast<const RoleStmt &>(*firstKernel(p.module).body.stmts.at(0));
  EXPECT_EQ(role.name.name, "r");
}

TEST(Parser, UnclosedBlockIsReportedOnceWithANote) {
  auto p = parseText("kernel k() {\n  for i in 0 .. 4 {\n    if x {\n      y = 1\n");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0].code, "syntax.unclosed");
  ASSERT_EQ(p.diags[0].notes.size(), 1u);
  EXPECT_EQ(p.sm->lineColumn(p.file, p.diags[0].notes[0].range.begin).line, 3u);
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "kernel k() {\n  x = " + std::string(100000, '(') + "\n}\n";
  auto p = parseText(deep);
  ASSERT_FALSE(p.diags.empty());
  EXPECT_EQ(p.diags[0].code, "syntax.nesting");
}

// Regression (issue #16): a chain of a million members (or of 70,000 sums)
// is a tree as deep as it is long; fmt and check crashed on the stack
// walking (or destroying) it. A chain past maxNesting x 16 links in one
// statement is syntax.nesting; a long but reasonable one still parses.
TEST(Parser, AMillionLinkChainIsAnErrorNotACrash) {
  std::string members = "const X = a";
  for (int i = 0; i < 1000000; ++i)
    members += ".b";
  auto p = parseText(members + "\n");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0].code, "syntax.nesting");
  EXPECT_NE(p.diags[0].message.find("chain longer than 4096"), std::string::npos) << p.diags[0].message;
  std::string sums = "const X = 1";
  for (int i = 0; i < 70000; ++i)
    sums += " + 1";
  auto q = parseText(sums + "\n");
  ASSERT_EQ(q.diags.size(), 1u);
  EXPECT_EQ(q.diags[0].code, "syntax.nesting");
  std::string fine = "const X = 1";
  for (int i = 0; i < 4000; ++i)
    fine += " + 1";
  EXPECT_TRUE(parseText(fine + "\nconst Y = a.b.c(1)[2] + 3\n").diags.empty());
}

// Regression (issue #16): a file with classic Mac line endings (a lone CR)
// was one long line ("expected end of statement, found keyword 'kernel'").
// A lone CR ends a line, at the same offset (ranges stay the text's); CRLF
// is one line end, as before.
TEST(Parser, ALoneCarriageReturnEndsALine) {
  auto p = parseText("const X = 1\rconst Y = X +\r");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.at(p.diags[0]).line, 2u) << p.diags[0].message;
  EXPECT_TRUE(parseText("const X = 1\rconst Y = 2\r\nconst Z = 3\r").diags.empty());
  std::string text = "a\rb\r\nc\r";
  normalizeLoneCarriageReturns(text);
  EXPECT_EQ(text, "a\nb\r\nc\n");
}

TEST(Parser, ErrorBudgetStopsWithErrorLimit) {
  std::string many = "kernel k() {\n";
  for (int i = 0; i < 500; ++i)
    many += "  x = )\n";
  auto p = parseText(many + "}\n");
  EXPECT_LE(p.diags.size(), 101u);
  EXPECT_EQ(std::count_if(p.diags.begin(), p.diags.end(), [](auto &d) { return d.code == "syntax.error-limit"; }), 1);
}

TEST(Parser, ErrorsInABodyAreReportedAfterAHeaderError) {
  auto p = parseText("kernel k(A: ) {\n  x = )\n  role r warps(0 .. {\n    y = )\n  }\n}\n");
  ASSERT_EQ(p.diags.size(), 4u);
  std::vector<uint32_t> lines;
  for (auto &d : p.diags)
    lines.push_back(p.at(d).line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{1, 2, 3, 4}));
}

TEST(Parser, ChainedComparisonsAreRejected) {
  auto p = parseText("kernel k() {\n  assume 0 < a < b\n}\n");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_NE(p.diags[0].message.find("cannot be chained"), std::string::npos);
}

TEST(Parser, KernelInsideKernelIsRejected) {
  auto p = parseText("kernel k() {\n  kernel j() {}\n}\n");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_NE(p.diags[0].message.find("top level"), std::string::npos);
}

TEST(Parser, LexerErrorsAreNotReportedTwice) {
  auto p = parseText("kernel k() {\n  x = $\n}\n");
  ASSERT_EQ(p.diags.size(), 1u);
  EXPECT_EQ(p.diags[0].code, "syntax.character");
}

TEST(Parser, CommentsAttachToStatements) {
  auto p = parseText("// lead\nkernel k() {\n  // inner\n  x = 1 // tail\n  // dangling\n}\n// end\n");
  ASSERT_TRUE(p.diags.empty());
  const KernelDecl &k = firstKernel(p.module);
  EXPECT_EQ(k.trivia.leading, std::vector<std::string>{"// lead"});
  EXPECT_EQ(k.body.stmts[0]->trivia.leading, std::vector<std::string>{"// inner"});
  EXPECT_EQ(k.body.stmts[0]->trivia.trailing, "// tail");
  EXPECT_EQ(k.body.danglingComments, std::vector<std::string>{"// dangling"});
  EXPECT_EQ(p.module.items.danglingComments, std::vector<std::string>{"// end"});
}

} // namespace
