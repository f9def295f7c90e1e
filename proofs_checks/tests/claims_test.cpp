// Runs every registered claim on its quick instances, in double and mp50, and asserts the suite's
// rule: each claim record holds, each negative control is broken, and every claim has both kinds.
#include <gtest/gtest.h>

#include <cmath>

#include "ngvi/scalar/traits.hpp"
#include "registry.hpp"

namespace ngvi::claims {
namespace {

// The identities of the foundation must hold in mp50 to 1e-40 relative (issue acceptance bound,
// about 1e10 eps of mp50): this shows the identity, not only the implementation, is right.
const double kMp50IdentityBound = 1e-40;

class ClaimTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ClaimTest, HoldsWithBrokenControls) {
  const ClaimInfo* info = Registry::instance().find(GetParam());
  ASSERT_NE(info, nullptr);
  RunContext ctx;
  ctx.full = false;
  const auto recs = info->run(ctx);
  int claims = 0, controls = 0;
  for (const auto& r : recs) {
    SCOPED_TRACE(r.claim + " " + r.instance + " " + r.precision + " lhs=" + std::to_string(r.lhs) +
                 " rhs=" + std::to_string(r.rhs) + " " + r.note);
    EXPECT_EQ(r.claim, info->id);
    EXPECT_TRUE(std::isfinite(r.lhs) && std::isfinite(r.rhs)) << "non-finite record";
    if (r.kind == Kind::kClaim) {
      ++claims;
      EXPECT_EQ(r.verdict, report::Verdict::kHolds) << "claim does not hold";
      if (r.precision == "mp50" && r.unit == "eps") {
        const double rel = r.lhs * to_double(eps<mp50>());
        EXPECT_TRUE(std::isfinite(rel) && rel <= kMp50IdentityBound) << "mp50 relative error " << rel;
      }
    } else {
      ++controls;
      EXPECT_EQ(r.verdict, report::Verdict::kBroken) << "negative control is not broken";
    }
  }
  EXPECT_GT(claims, 0);
  EXPECT_GT(controls, 0);
}

std::vector<std::string> all_ids() {
  std::vector<std::string> ids;
  for (const auto& c : Registry::instance().claims()) ids.push_back(c.id);
  return ids;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& p) {
  std::string s = p.param;
  for (auto& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Registry, ClaimTest, ::testing::ValuesIn(all_ids()), test_name);

TEST(ClaimRegistry, GlobMatchingAndLookup) {
  const auto& reg = Registry::instance();
  EXPECT_EQ(reg.find("no.such.claim"), nullptr);
  EXPECT_TRUE(reg.match("no.such.*").empty());
  const auto lemma = reg.match("lemma*");
  ASSERT_FALSE(lemma.empty());
  for (const auto* c : lemma) EXPECT_EQ(c->id.rfind("lemma", 0), 0u);
  EXPECT_EQ(reg.match("*").size(), reg.claims().size());
}

}  // namespace
}  // namespace ngvi::claims
