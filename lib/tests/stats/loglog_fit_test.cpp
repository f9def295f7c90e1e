#include "ngvi/stats/loglog_fit.hpp"

#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "test_util.hpp"

namespace ngvi::stats {
namespace { namespace NGVI_UNITY_ID {

using test::rel_close;
using test::throws_with;

template <class Scalar>
class LogLogFitTyped : public ::testing::Test {};
TYPED_TEST_SUITE(LogLogFitTyped, test::Scalars);

// Student's t with one degree of freedom is the Cauchy law, whose quantile has the closed form
// tan(π(p − ½)); for the 95% two-sided interval p = 0.975, so t = tan(0.475 π) = tan(19π/40).
template <class Scalar>
Scalar cauchy_t975() {
  using std::tan;
  return tan(Scalar(19) * boost::math::constants::pi<Scalar>() / 40);
}

// Three points (u, v) = (0, 0), (1, 1), (2, 3) worked by hand: ū = 1, v̄ = 4/3, S_uu = 2, S_uv = 3,
// b = 3/2, a = −1/6, residuals (1/6, −1/3, 1/6), RSS = 1/6, s² = 1/6 (n − 2 = 1), se = √(1/12).
TYPED_TEST(LogLogFitTyped, ThreePointsMatchTheHandComputedFit) {
  using Scalar = TypeParam;
  using std::exp;
  using std::sqrt;
  const std::vector<Scalar> x{exp(Scalar(0)), exp(Scalar(1)), exp(Scalar(2))};
  const std::vector<Scalar> y{exp(Scalar(0)), exp(Scalar(1)), exp(Scalar(3))};
  const auto f = fit_loglog<Scalar>(x, y, Scalar(1) / 2, Scalar(10));
  // ~10 roundings per accumulated sum over 3 points plus exp/log on each input (relative error
  // amplified by at most |log x| ≤ 3 in the slope): 64 operations, condition 4.
  const Scalar tol = rounding_budget<Scalar>(64, Scalar(4));
  EXPECT_EQ(f.points, 3);
  EXPECT_TRUE(rel_close<Scalar>(f.slope, Scalar(3) / 2, tol));
  EXPECT_TRUE(rel_close<Scalar>(f.intercept, Scalar(-1) / 6, tol));
  EXPECT_TRUE(rel_close<Scalar>(f.std_error, sqrt(Scalar(1) / 12), tol));
  // The t quantile comes from Boost's iterative inverse of the incomplete beta function; its
  // documented accuracy is a few hundred ε, hence the separate budget of 1024 operations.
  const Scalar half = cauchy_t975<Scalar>() * sqrt(Scalar(1) / 12);
  const Scalar tol_q = rounding_budget<Scalar>(1024, Scalar(4));
  EXPECT_TRUE(rel_close<Scalar>(f.ci_high - f.slope, half, tol_q));
  EXPECT_TRUE(rel_close<Scalar>(f.slope - f.ci_low, half, tol_q));
}

TYPED_TEST(LogLogFitTyped, ExactPowerLawHasItsExponentAndNoSpread) {
  using Scalar = TypeParam;
  using std::pow;
  std::vector<Scalar> x, y;
  for (int t = 1; t <= 64; ++t) {
    x.push_back(Scalar(t));
    y.push_back(Scalar(3) * pow(Scalar(t), Scalar(-1)));
  }
  const auto f = fit_loglog<Scalar>(x, y, Scalar(4), Scalar(64));
  EXPECT_EQ(f.points, 61);
  EXPECT_TRUE(rel_close<Scalar>(f.x_from, Scalar(4), rounding_budget<Scalar>(1)));
  EXPECT_TRUE(rel_close<Scalar>(f.x_to, Scalar(64), rounding_budget<Scalar>(1)));
  // Sums of 61 logs (magnitude ≤ log 64 < 5): 8·61 roundings relative to a unit-size slope.
  const Scalar tol = rounding_budget<Scalar>(8 * 61, Scalar(5));
  EXPECT_TRUE(rel_close<Scalar>(f.slope, Scalar(-1), tol));
  EXPECT_TRUE(f.std_error == f.std_error && f.std_error <= tol);
}

TYPED_TEST(LogLogFitTyped, PointsOutsideTheWindowDoNotEnterTheFit) {
  using Scalar = TypeParam;
  std::vector<Scalar> x{Scalar(1), Scalar(2), Scalar(4), Scalar(8), Scalar(1000)};
  std::vector<Scalar> y{Scalar(-5), Scalar(1) / 2, Scalar(1) / 4, Scalar(1) / 8, Scalar(0)};
  const auto f = fit_loglog<Scalar>(x, y, Scalar(2), Scalar(8));  // x = 1 and 1000 have invalid y
  EXPECT_EQ(f.points, 3);
  EXPECT_TRUE(rel_close<Scalar>(f.slope, Scalar(-1), rounding_budget<Scalar>(64, Scalar(3))));
}

TYPED_TEST(LogLogFitTyped, BadInputThrowsNamingTheArgument) {
  using Scalar = TypeParam;
  const std::vector<Scalar> x{Scalar(1), Scalar(2), Scalar(4)};
  const std::vector<Scalar> y{Scalar(1), Scalar(2), Scalar(4)};
  const std::string f = "ngvi::stats::fit_loglog";
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { fit_loglog<Scalar>(x, {Scalar(1)}, Scalar(1), Scalar(4)); }, {f, "'y'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { fit_loglog<Scalar>(x, y, Scalar(2), Scalar(4)); }, {f, "'x'", "at least 3"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { fit_loglog<Scalar>(x, y, Scalar(0), Scalar(4)); }, {f, "'x_from'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { fit_loglog<Scalar>(x, y, Scalar(4), Scalar(1)); }, {f, "'x_from'"}));
  const std::vector<Scalar> y0{Scalar(1), Scalar(0), Scalar(4)};
  EXPECT_TRUE(throws_with<std::domain_error>([&] { fit_loglog<Scalar>(x, y0, Scalar(1), Scalar(4)); }, {f, "'y'", "index 1"}));
  const std::vector<Scalar> same{Scalar(2), Scalar(2), Scalar(2)};
  EXPECT_TRUE(throws_with<std::domain_error>([&] { fit_loglog<Scalar>(same, y, Scalar(1), Scalar(4)); }, {f, "distinct"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { fit_loglog<Scalar>(x, y, Scalar(1), Scalar(4), Scalar(1)); }, {"confidence"}));
}

// Coverage: for v = 1 − u + N(0, 0.1²) at u = log t, t = 1..20, the 95% interval must cover the true
// slope −1 in a share of 2000 independent replicates that is consistent with the nominal level: a
// share outside level ± z·√(level(1 − level)/reps), z the 99.95% normal quantile (a two-sided 99.9%
// normal-approximation band for a binomial proportion), fails.
TEST(LogLogFit, RegressionIntervalHasNominalCoverage) {
  constexpr double kNominal = 0.95;        // fit_loglog's default level
  constexpr double kBandConfidence = 0.999;
  boost::random::mt19937_64 rng(20240601);
  boost::random::normal_distribution<double> noise(0.0, 0.1);
  const int reps = 2000;
  int covered = 0;
  for (int r = 0; r < reps; ++r) {
    std::vector<double> x, y;
    for (int t = 1; t <= 20; ++t) {
      x.push_back(t);
      y.push_back(std::exp(1.0 - std::log(static_cast<double>(t)) + noise(rng)));
    }
    const auto f = fit_loglog<double>(x, y, 1.0, 20.0);
    covered += (f.ci_low <= -1.0 && -1.0 <= f.ci_high);
  }
  const double share = static_cast<double>(covered) / reps;
  const double z = boost::math::quantile(boost::math::normal_distribution<double>(), (1 + kBandConfidence) / 2);
  const double band = z * std::sqrt(kNominal * (1 - kNominal) / reps);
  EXPECT_GE(share, kNominal - band) << covered << " of " << reps;
  EXPECT_LE(share, kNominal + band) << covered << " of " << reps;
}

}}  // namespace
}  // namespace ngvi::stats
