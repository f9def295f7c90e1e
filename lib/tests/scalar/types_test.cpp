#include <gtest/gtest.h>

#include <boost/math/special_functions/next.hpp>
#include <limits>

#include "ngvi/scalar/budget.hpp"
#include "ngvi/scalar/traits.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

TEST(ScalarTypes, EpsilonMatchesDigits) {
  EXPECT_EQ(eps<double>(), std::numeric_limits<double>::epsilon());
  EXPECT_GE(digits10<mp50>(), 50);
  EXPECT_GE(digits10<mp100>(), 100);
  // 1 + eps is the successor of 1 in every type.
  EXPECT_EQ(boost::math::float_next(mp50(1)), mp50(1) + eps<mp50>());
  EXPECT_LT(eps<mp50>(), mp50("1e-49"));
  EXPECT_EQ(unit_roundoff<double>(), eps<double>() / 2);
}

// Boost 1.74's Eigen adapter returns the smallest positive value for lowest(); ngvikit must never
// rely on it. This pins the behaviour so an upgrade that fixes it is noticed.
TEST(ScalarTypes, PinsBoostEigenLowestQuirk) {
  const mp50 lowest = Eigen::NumTraits<mp50>::lowest();
  EXPECT_GT(lowest, mp50(0));
  EXPECT_EQ(lowest, std::numeric_limits<mp50>::min());
  EXPECT_EQ(Eigen::NumTraits<mp50>::epsilon(), eps<mp50>());
}

TEST(ScalarTypes, Names) {
  EXPECT_EQ(scalar_name<double>(), "double");
  EXPECT_EQ(scalar_name<mp50>(), "mp50");
  EXPECT_EQ(scalar_name<long double>(), "long double");
}

TEST(RoundingBudget, GammaIsHighamsBound) {
  const double u = unit_roundoff<double>();
  EXPECT_EQ(gamma_n<double>(10), 10 * u / (1 - 10 * u));
  EXPECT_EQ(rounding_budget<double>(10, 100.0), kBudgetSafety * gamma_n<double>(10) * 100.0);
  EXPECT_LT(rounding_budget<mp50>(1000, mp50(1e8)), mp50("1e-38"));
}

TEST(RoundingBudget, RejectsBadArguments) {
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { rounding_budget<double>(0); }, {"rounding_budget", "'ops'"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { rounding_budget<double>(3, 0.5); }, {"'cond'", ">= 1"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { gamma_n<double>(1L << 62); }, {"gamma_n", "'n'"}));
}

}}  // namespace
}  // namespace ngvi
