#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <boost/math/special_functions/gamma.hpp>

#include "ngvi/random/gamma.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi::random {
namespace { namespace NGVI_UNITY_ID {

// The largest distance between the empirical CDF of n draws and Gamma(a, θ)'s CDF, the latter by
// Boost.Math's regularised incomplete gamma P(a, x/θ) (an independent route: the sampler never
// evaluates the CDF).
double ks_distance(std::vector<double> x, double a, double theta) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = boost::math::gamma_p(a, x[i] / theta);
    d = std::max({d, std::abs(f - static_cast<double>(i) / n), std::abs(static_cast<double>(i + 1) / n - f)});
  }
  return d;
}

// Dvoretzky–Kiefer–Wolfowitz with Massart's constant, a bound for every n (not an asymptotic):
// P(sup |F_n − F| > ε) ≤ 2 exp(−2 n ε²). With n = 200 000 draws and level α = 1e−6 per shape,
// ε = √(ln(2/α) / (2n)) = 0.0060. Power: a sampler whose CDF is off by 2ε = 0.012 somewhere (shape 100:
// a mean shifted by 0.03 standard deviations) has sup |F_n − F| > ε except with probability
// ≤ 2 exp(−2nε²) = α, by the same inequality around the wrong CDF.
TEST(GammaSampler, DrawsFollowTheGammaCdfByDkw) {
  const int n = 200000;
  const double alpha = 1e-6;
  const double eps = std::sqrt(std::log(2 / alpha) / (2.0 * n));
  for (const auto& [a, theta] : std::vector<std::pair<double, double>>{{1.0, 1.0}, {1.7, 3.0}, {100.0, 0.01}, {1.0e4, 2.0}}) {
    Stream s(2026, static_cast<std::uint64_t>(a * 10));
    const GammaSampler g(a, theta);
    std::vector<double> x(n);
    for (auto& v : x) {
      v = g(s);
      ASSERT_TRUE(v > 0 && std::isfinite(v)) << "shape " << a;
    }
    EXPECT_LT(ks_distance(x, a, theta), eps) << "shape " << a << ", scale " << theta;
  }
}

// The check above has power: draws of a neighbouring shape (100.5 against 100, a mean 0.05 standard
// deviations away) are rejected by the same statistic at the same level.
TEST(GammaSampler, TheCdfCheckSeesANeighbouringShape) {
  const int n = 200000;
  const double eps = std::sqrt(std::log(2 / 1e-6) / (2.0 * n));
  Stream s(2026, 1);
  const GammaSampler g(100.5, 0.01);
  std::vector<double> x(n);
  for (auto& v : x) v = g(s);
  EXPECT_GT(ks_distance(x, 100.0, 0.01), eps);
}

TEST(GammaSampler, IsAFunctionOfTheStreamsWords) {
  const GammaSampler g(100.0, 0.01);
  Stream a(5, 9), b(5, 9), c(5, 10);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x = g(a);
    EXPECT_EQ(x, g(b));
    differ += x != g(c);
  }
  EXPECT_EQ(differ, 1000);
}

TEST(GammaSampler, RejectsAShapeBelowOneAndABadScale) {
  for (const double a : {0.999, 0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    try {
      (void)GammaSampler(a, 1.0);
      ADD_FAILURE() << "shape " << a << " accepted";
    } catch (const std::domain_error& e) {
      EXPECT_NE(std::string(e.what()).find("argument 'shape'"), std::string::npos) << e.what();
    }
  }
  for (const double t : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    try {
      (void)GammaSampler(2.0, t);
      ADD_FAILURE() << "scale " << t << " accepted";
    } catch (const std::domain_error& e) {
      EXPECT_NE(std::string(e.what()).find("argument 'scale'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace NGVI_UNITY_ID
}  // namespace
}  // namespace ngvi::random
