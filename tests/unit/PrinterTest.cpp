//===- PrinterTest.cpp ----------------------------------------------------===//
#include "TestUtil.h"

#include <gtest/gtest.h>

using cake::test::format;

namespace {

TEST(Printer, CanonicalSpacingAndIndentation) {
  EXPECT_EQ(format("kernel k( a:global bf16[M,K]align(16) )target(sm_90a){\nx=a+1*b;y=f(x,k=2)\n}"),
            "kernel k(a: global bf16[M, K] align(16)) target(sm_90a) {\n"
            "  x = a + 1 * b\n"
            "  y = f(x, k = 2)\n"
            "}\n");
}

TEST(Printer, KeepsCommentsBlankLinesAndParentheses) {
  std::string src = "// file comment\n"
                    "kernel k() {\n"
                    "  x = (a + b) * c // why\n"
                    "\n"
                    "  // next\n"
                    "  ring ab stages(4) {\n"
                    "    a: shared bf16[128, 64] swizzle(128B)\n"
                    "  }\n"
                    "}\n";
  EXPECT_EQ(format(src), src);
}

TEST(Printer, KeepsCommentParagraphsAndCollapsesBlankRuns) {
  std::string src = "// File header.\n"
                    "\n"
                    "const A = 1\n"
                    "\n"
                    "\n"
                    "// About B.\n"
                    "\n"
                    "// More about B.\n"
                    "const B = sync.role(x.in)\n";
  EXPECT_EQ(format(src), "// File header.\n"
                         "\n"
                         "const A = 1\n"
                         "\n"
                         "// About B.\n"
                         "\n"
                         "// More about B.\n"
                         "const B = sync.role(x.in)\n");
}

TEST(Printer, LongHeadersPutOneParameterPerLine) {
  std::string src = "kernel gemm(A: global bf16[M, K] align(16), B: global bf16[N, K] align(16), "
                    "C: global bf16[M, N] align(16)) target(sm_90a) {}\n";
  EXPECT_EQ(format(src), "kernel gemm(\n"
                         "  A: global bf16[M, K] align(16),\n"
                         "  B: global bf16[N, K] align(16),\n"
                         "  C: global bf16[M, N] align(16),\n"
                         ") target(sm_90a) {}\n");
}

TEST(Printer, ElseIfChains) {
  std::string src = "kernel k() {\n  if a {\n    x = 1\n  } else if b {\n    x = 2\n  } else {\n    x = 3\n  }\n}\n";
  EXPECT_EQ(format(src), src);
}

TEST(Printer, InsertsParenthesesForBuiltTrees) {
  using namespace cake::syntax;
  auto name = [](const char *n) {
    auto e = std::make_unique<Expr>(ExprKind::Name, cake::SourceRange{});
    e->text = n;
    return e;
  };
  auto bin = [](Tok op, ExprPtr l, ExprPtr r) {
    auto e = std::make_unique<Expr>(ExprKind::Binary, cake::SourceRange{});
    e->op = op;
    e->operands.push_back(std::move(l));
    e->operands.push_back(std::move(r));
    return e;
  };
  auto sum = bin(Tok::Plus, name("a"), name("b"));
  auto prod = bin(Tok::Star, std::move(sum), name("c"));
  EXPECT_EQ(print(*prod), "(a + b) * c");
  auto diff = bin(Tok::Minus, name("a"), bin(Tok::Minus, name("b"), name("c")));
  EXPECT_EQ(print(*diff), "a - (b - c)");
}

} // namespace
