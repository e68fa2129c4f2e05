//===- VerifyTest.cpp - expected-diagnostic annotations ------------------===//
#include "compiler/driver/Check.h"
#include "compiler/driver/Verify.h"

#include <gtest/gtest.h>

using namespace cake;

namespace {

std::vector<std::string> verify(std::string text) {
  SourceManager sm;
  FileId f = sm.addBuffer("v.cake", std::move(text));
  return verifyDiagnostics(sm, f, checkSource(sm, f).diagnostics);
}

TEST(Verify, MatchingAnnotationsPass) {
  EXPECT_TRUE(verify("kernel k() {\n"
                     "  y = 2 3 // expected-error:9 syntax.unexpected {{expected end of statement}}\n"
                     "  // expected-error@+1 {{expected an expression}}\n"
                     "  z = )\n"
                     "}\n")
                  .empty());
}

TEST(Verify, MissingAndUnexpectedDiagnosticsAreReported) {
  auto errors = verify("kernel k() {\n"
                       "  y = 2 3\n"
                       "  z = 1 // expected-error {{nothing here}}\n"
                       "}\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("not produced"), std::string::npos);
  EXPECT_NE(errors[1].find("unexpected error"), std::string::npos);
  EXPECT_NE(errors[1].find("v.cake:2:9"), std::string::npos);
}

TEST(Verify, WrongColumnOrCodeDoesNotMatch) {
  EXPECT_EQ(verify("kernel k() {\n  y = 2 3 // expected-error:8 {{expected end}}\n}\n").size(), 2u);
  EXPECT_EQ(verify("kernel k() {\n  y = 2 3 // expected-error syntax.character {{expected end}}\n}\n").size(), 2u);
}

TEST(Verify, NotesMustBeExpectedToo) {
  std::string src = "kernel k() {\n  for i in x {\n";
  auto errors = verify(src + "// expected-error@+1 {{expected '}'}}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("unexpected note"), std::string::npos);
  EXPECT_TRUE(verify(src + "// expected-note@-1 {{opened here}}\n// expected-error@+1 {{expected '}'}}\n").empty());
}

TEST(Verify, MalformedAnnotationIsReported) {
  auto errors = verify("kernel k() target(sm_90a) block(32) { role r warps(0) {} } // expected-error@+ {{x}}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("malformed annotation"), std::string::npos);
}

} // namespace
