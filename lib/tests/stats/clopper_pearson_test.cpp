// Clopper–Pearson (stats/clopper_pearson.hpp) against its definition, by an independent route: the
// binomial tail Σ_k C(n,k) p^k (1 − p)^{n−k} summed term by term in mp50 must cross α/2 at the end
// points (P(X ≥ x; p_lo) = α/2, P(X ≤ x; p_hi) = α/2), and at x = 0 and x = n the end points have
// the closed forms p_hi = 1 − (α/2)^{1/n}, p_lo = (α/2)^{1/n}.
#include "ngvi/stats/clopper_pearson.hpp"

#include <gtest/gtest.h>

#include "ngvi/scalar/types.hpp"
#include "test_util.hpp"

namespace ngvi::stats {
namespace { namespace NGVI_UNITY_ID {

// P(X ≥ x) (upper) or P(X ≤ x) for X ~ Bin(n, p), summed in mp50.
mp50 binomial_tail(long x, long n, const mp50& p, bool upper) {
  using std::pow;
  mp50 total(0), coeff(1);  // coeff = C(n, k)
  for (long k = 0; k <= n; ++k) {
    if (k > 0) coeff = coeff * mp50(n - k + 1) / mp50(k);
    if (upper ? k >= x : k <= x) total += coeff * pow(p, k) * pow(1 - p, n - k);
  }
  return total;
}

// The quantiles come from Boost's iterative inverse of the incomplete beta function (documented
// accuracy a few hundred ε); a relative move of 2^20 ε (≈ 2e-10) to either side of an end point
// must already put the tail on the other side of α/2, since the tail is strictly monotone in p.
constexpr double kBracket = 1048576 * std::numeric_limits<double>::epsilon();

TEST(ClopperPearson, EndPointsSolveTheBinomialTailEquations) {
  const double alpha = 0.01;
  for (const auto& [x, n] : std::vector<std::pair<long, long>>{{1, 10}, {3, 10}, {9, 10}, {17, 200}, {100, 200}}) {
    const auto [lo, hi] = clopper_pearson(x, n, alpha);
    ASSERT_TRUE(lo > 0 && lo < hi && hi < 1) << x << "/" << n;
    // P(X ≥ x; p) increases with p: below p_lo it is under α/2, above it over.
    EXPECT_LT(binomial_tail(x, n, mp50(lo * (1 - kBracket)), true), mp50(alpha / 2)) << x << "/" << n;
    EXPECT_GT(binomial_tail(x, n, mp50(lo * (1 + kBracket)), true), mp50(alpha / 2)) << x << "/" << n;
    // P(X ≤ x; p) decreases with p.
    EXPECT_GT(binomial_tail(x, n, mp50(hi * (1 - kBracket)), false), mp50(alpha / 2)) << x << "/" << n;
    EXPECT_LT(binomial_tail(x, n, mp50(hi * (1 + kBracket)), false), mp50(alpha / 2)) << x << "/" << n;
  }
}

TEST(ClopperPearson, ZeroAndAllSuccessesHaveClosedForms) {
  const double alpha = 0.01;
  const long n = 50;
  const double root = std::pow(alpha / 2, 1.0 / static_cast<double>(n));
  const auto [lo0, hi0] = clopper_pearson(0, n, alpha);
  EXPECT_EQ(lo0, 0.0);
  // pow and the beta quantile: 1024 operations' worth of ε (Boost's documented quantile accuracy);
  // 1 − root loses a factor 1/(1 − root) ≈ 10 of relative accuracy to cancellation.
  EXPECT_TRUE(test::rel_close<double>(hi0, 1 - root, rounding_budget<double>(1024, 16.0)));
  const auto [lon, hin] = clopper_pearson(n, n, alpha);
  EXPECT_EQ(hin, 1.0);
  EXPECT_TRUE(test::rel_close<double>(lon, root, rounding_budget<double>(1024)));
}

TEST(ClopperPearson, BadInputThrowsNamingTheArgument) {
  const char* f = "ngvi::stats::clopper_pearson";
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { clopper_pearson(0, 0, 0.01); }, {f, "'n'"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { clopper_pearson(11, 10, 0.01); }, {f, "'x'"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { clopper_pearson(-1, 10, 0.01); }, {f, "'x'"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { clopper_pearson(1, 10, 0.0); }, {f, "'alpha'"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { clopper_pearson(1, 10, std::numeric_limits<double>::quiet_NaN()); }, {f, "'alpha'"}));
}

}}  // namespace
}  // namespace ngvi::stats
