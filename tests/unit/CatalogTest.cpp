//===- CatalogTest.cpp ----------------------------------------------------===//
#include "diagnostics/Catalog.h"

#include <gtest/gtest.h>

using namespace cake;

namespace {

TEST(Catalog, SortedUniqueAndComplete) {
  auto rules = ruleCatalog();
  ASSERT_FALSE(rules.empty());
  for (size_t i = 1; i < rules.size(); ++i)
    EXPECT_LT(rules[i - 1].code, rules[i].code) << "catalog must be sorted and unique";
  for (const RuleInfo &r : rules) {
    EXPECT_FALSE(r.family.empty()) << r.code;
    EXPECT_FALSE(r.title.empty()) << r.code;
    EXPECT_FALSE(r.rationale.empty()) << r.code;
    EXPECT_EQ(findRule(r.code), &r);
  }
  EXPECT_EQ(findRule("NOPE"), nullptr);
}

} // namespace
