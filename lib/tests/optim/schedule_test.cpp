#include <gtest/gtest.h>

#include "ngvi/optim/schedule.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

TEST(StepSchedule, Theorem1IsTwoOverTPlusTwo) {
  const auto s = StepSchedule<mp50>::theorem1();
  EXPECT_EQ(s.at(0), mp50(1));
  EXPECT_EQ(s.at(1), mp50(2) / 3);
  EXPECT_EQ(s.at(998), mp50(2) / 1000);
  EXPECT_TRUE(s.within_unit_interval());
}

TEST(StepSchedule, PolynomialAndInverseTime) {
  const auto p = StepSchedule<double>::polynomial(0.7, 10.0);
  EXPECT_EQ(p.at(0), std::pow(11.0, -0.7));
  EXPECT_LT(p.at(5), p.at(4));
  const auto q = StepSchedule<double>::inverse_time(4.0, 8.0);
  EXPECT_EQ(q.at(0), 0.5);
  EXPECT_EQ(q.at(8), 0.25);
  EXPECT_TRUE(q.within_unit_interval());
  EXPECT_FALSE(StepSchedule<double>::constant(1.5).within_unit_interval());
  EXPECT_EQ(StepSchedule<double>::polynomial(0.0, 0.0, 0.25).at(100), 0.25);
  EXPECT_EQ(StepSchedule<double>::theorem1().describe(), "2/(t+2)");
  EXPECT_EQ(q.describe(), "4/(t+8)");
  EXPECT_EQ(StepSchedule<mp50>::polynomial(mp50(0.75), mp50(2), mp50(0.5)).describe(), "0.5*(t+1+2)^-0.75");
}

// The polynomial schedule's κ, τ and scale read back; asked of another kind, the error names 'kind'.
TEST(StepSchedule, PolynomialPartsReadBack) {
  const auto p = StepSchedule<double>::polynomial(0.6, 1023.0, 0.5);
  EXPECT_EQ(p.kappa(), 0.6);
  EXPECT_EQ(p.tau(), 1023.0);
  EXPECT_EQ(p.scale(), 0.5);
  EXPECT_EQ(StepSchedule<double>::polynomial(p.kappa(), p.tau(), p.scale()).at(7), p.at(7));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { (void)StepSchedule<double>::theorem1().kappa(); }, {"kind", "must be polynomial", "2/(t+2)"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { (void)StepSchedule<double>::constant(0.5).tau(); }, {"kind", "tau"}));
}

TEST(StepSchedule, RejectsBadParameters) {
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { StepSchedule<double>::constant(0.0); }, {"'c'", "positive"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { StepSchedule<double>::constant(std::nan("")); }, {"'c'"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { StepSchedule<double>::polynomial(1.5, 0.0); }, {"'kappa'", "[0, 1]"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { StepSchedule<double>::polynomial(0.5, -1.0); }, {"'tau'"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { StepSchedule<double>::inverse_time(1.0, 0.0); }, {"'t0'"}));
}

}}  // namespace
}  // namespace ngvi
