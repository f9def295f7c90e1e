// Student-t statements (stats/student_t.hpp) against closed forms: with ν = 1 the t law is Cauchy,
// t_{1,p} = tan(π(p − ½)); with ν = 2, t_{2,p} = (2p − 1)/√(2p(1 − p)) (the ν = 2 CDF
// ½ + t/(2√(2 + t²)) inverted by hand). Means and standard errors of small samples worked by hand.
#include "ngvi/stats/student_t.hpp"

#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>

#include "test_util.hpp"

namespace ngvi::stats {
namespace { namespace NGVI_UNITY_ID {

using test::rel_close;
using test::throws_with;

template <class Scalar>
class StudentTTyped : public ::testing::Test {};
TYPED_TEST_SUITE(StudentTTyped, test::Scalars);

template <class Scalar>
Scalar cauchy_quantile(const Scalar& p) {
  using std::tan;
  return tan(boost::math::constants::pi<Scalar>() * (p - Scalar(1) / 2));
}

template <class Scalar>
Scalar t2_quantile(const Scalar& p) {
  using std::sqrt;
  return (2 * p - 1) / sqrt(2 * p * (1 - p));
}

// Boost's quantile inverts the incomplete beta function iteratively; its documented accuracy is a
// few hundred ε, hence 1024 operations; the closed forms add a handful of roundings (tan near its
// pole amplifies the relative error of its argument x = π(p − ½) by 2x/sin(2x) ≈ 49 at p = 0.99).
template <class Scalar>
Scalar quantile_budget() {
  return rounding_budget<Scalar>(1024, Scalar(64));
}

TYPED_TEST(StudentTTyped, QuantilesMatchTheClosedFormsForOneAndTwoDegreesOfFreedom) {
  using Scalar = TypeParam;
  for (const Scalar& p : {Scalar(99) / 100, Scalar(3) / 4, Scalar(1) / 10}) {
    EXPECT_TRUE(rel_close<Scalar>(student_t_quantile<Scalar>(1, p), cauchy_quantile(p), quantile_budget<Scalar>()));
    EXPECT_TRUE(rel_close<Scalar>(student_t_quantile<Scalar>(2, p), t2_quantile(p), quantile_budget<Scalar>()));
  }
  const Scalar c = Scalar(19) / 20;
  EXPECT_TRUE(rel_close<Scalar>(student_t_two_sided<Scalar>(2, c), t2_quantile<Scalar>((1 + c) / 2), quantile_budget<Scalar>()));
}

TYPED_TEST(StudentTTyped, OneSidedBoundAndIntervalOfTwoValues) {
  using Scalar = TypeParam;
  // values 1 and 3: mean 2, sd √2, se = √2/√2 = 1, so the bounds are 2 ± t_{1,c}.
  const std::vector<Scalar> v{Scalar(1), Scalar(3)};
  const Scalar c = Scalar(99) / 100;
  const auto me = mean_and_error(v);
  EXPECT_EQ(me.count, 2);
  EXPECT_TRUE(rel_close<Scalar>(me.mean, Scalar(2), rounding_budget<Scalar>(4)));
  EXPECT_TRUE(rel_close<Scalar>(me.std_error, Scalar(1), rounding_budget<Scalar>(8)));
  EXPECT_TRUE(rel_close<Scalar>(t_confidence_bound(v, c) - Scalar(2), cauchy_quantile(c), quantile_budget<Scalar>()));
  EXPECT_TRUE(rel_close<Scalar>(Scalar(2) - t_confidence_bound(v, c, Side::kLower), cauchy_quantile(c), quantile_budget<Scalar>()));
  const auto m = mean_interval<Scalar>(v);
  EXPECT_EQ(m.count, 2);
  EXPECT_TRUE(rel_close<Scalar>(m.ci_high - m.mean, cauchy_quantile<Scalar>(Scalar(39) / 40), quantile_budget<Scalar>()));
  EXPECT_TRUE(rel_close<Scalar>(m.mean - m.ci_low, cauchy_quantile<Scalar>(Scalar(39) / 40), quantile_budget<Scalar>()));
}

TYPED_TEST(StudentTTyped, ThreeValuesWorkedByHand) {
  using Scalar = TypeParam;
  using std::sqrt;
  // values 0, 1, 5: mean 2, squared deviations 4 + 1 + 9 = 14, s² = 7, se = √(7/3).
  const std::vector<Scalar> v{Scalar(0), Scalar(1), Scalar(5)};
  const auto me = mean_and_error(v);
  EXPECT_TRUE(rel_close<Scalar>(me.mean, Scalar(2), rounding_budget<Scalar>(4)));
  EXPECT_TRUE(rel_close<Scalar>(me.std_error, sqrt(Scalar(7) / 3), rounding_budget<Scalar>(16)));
  const Scalar c = Scalar(3) / 4;
  EXPECT_TRUE(rel_close<Scalar>(t_confidence_bound(v, c) - Scalar(2), t2_quantile(c) * sqrt(Scalar(7) / 3), quantile_budget<Scalar>()));
}

TYPED_TEST(StudentTTyped, BadInputThrowsNamingTheArgument) {
  using Scalar = TypeParam;
  const std::vector<Scalar> one{Scalar(1)}, two{Scalar(1), Scalar(2)};
  EXPECT_TRUE(throws_with<std::domain_error>([&] { student_t_quantile<Scalar>(0, Scalar(1) / 2); }, {"ngvi::stats::student_t_quantile", "'nu'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { student_t_quantile<Scalar>(3, Scalar(1)); }, {"'p'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { student_t_two_sided<Scalar>(3, Scalar(0)); }, {"'confidence'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { t_confidence_bound<Scalar>(one, Scalar(1) / 2); }, {"ngvi::stats::t_confidence_bound", "'values'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { t_confidence_bound<Scalar>(two, Scalar(2)); }, {"'confidence'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { mean_interval<Scalar>(one); }, {"ngvi::stats::mean_interval", "'values'"}));
}

TEST(StudentT, NonFiniteValuesAreRejected) {
  const std::vector<double> v{1.0, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_TRUE(throws_with<std::domain_error>([&] { t_confidence_bound(v, 0.99); }, {"'values'", "non-finite"}));
}

}}  // namespace
}  // namespace ngvi::stats
