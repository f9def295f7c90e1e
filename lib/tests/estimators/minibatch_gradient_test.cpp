// The eq. (15) estimator: unbiased by exact enumeration over all n^M batches (with replacement)
// and over all M-subsets orderings (without replacement); a negative semidefinite second block;
// its draws do not depend on the buffer state; bad arguments are named.
#include <Eigen/Eigenvalues>

#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/diagnostics/step_variance.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

LinearRegression<double> model7() {
  return LinearRegression<double>(data::synthetic_regression(7, 3, 10.0, 0.5, 3), Mat<double>::Identity(3, 3), 0.5);
}

// Enumeration sums n^M estimates of size ≤ n·max|y x|/s_e²; Higham Thm 3.5 gives γ_{n^M + M}
// relative to the sum of magnitudes, which is at most n times the exact gradient's scale here.
double enum_budget(long count, long batch) { return rounding_budget<double>(count + batch, 7.0 * 16); }

TEST(MinibatchGradient, UnbiasedByEnumeration) {
  const auto model = model7();
  const auto exact = model.loglik_gradient();
  for (Sampling s : {Sampling::kWithReplacement, Sampling::kWithoutReplacement}) {
    MinibatchGradient<double> est(model, 3, s);
    GaussianPair<double> sum{Vec<double>::Zero(3), Mat<double>::Zero(3, 3)}, g;
    long count = 0;
    for_each_batch(7, 3, 1000, [&](const std::vector<Index>& idx) {
      if (s == Sampling::kWithoutReplacement && (idx[0] == idx[1] || idx[0] == idx[2] || idx[1] == idx[2])) return;
      est.set_indices(idx);
      est.evaluate(g);
      sum += g;
      ++count;
    });
    sum *= 1.0 / static_cast<double>(count);
    EXPECT_TRUE(test::mat_rel_close<double>(sum.second, exact.second, enum_budget(count, 3)));
    EXPECT_TRUE(test::mat_rel_close<double>(Mat<double>(sum.first), Mat<double>(exact.first), enum_budget(count, 3)));
  }
}

TEST(MinibatchGradient, SecondBlockNegativeSemidefiniteAndSymmetric) {
  const auto model = model7();
  MinibatchGradient<double> est(model, 2);
  random::Stream rng(1, 2);
  for (int k = 0; k < 20; ++k) {
    const auto g = est(rng);
    EXPECT_EQ((g.second - g.second.transpose()).cwiseAbs().maxCoeff(), 0.0);
    Eigen::SelfAdjointEigenSolver<Mat<double>> es(g.second);
    EXPECT_LE(es.eigenvalues().maxCoeff(), rounding_budget<double>(8) * g.second.norm());
  }
}

TEST(MinibatchGradient, WithoutReplacementDrawsDistinctIndices) {
  const auto model = model7();
  MinibatchGradient<double> est(model, 7, Sampling::kWithoutReplacement);
  random::Stream rng(5, 0);
  est.draw(rng);
  auto idx = est.indices();
  std::sort(idx.begin(), idx.end());
  for (Index i = 0; i < 7; ++i) EXPECT_EQ(idx[static_cast<std::size_t>(i)], i);
}

// Double takes a compile-time order for d ≤ kStaticOrderMax (kernels/static_order.hpp) and run-time
// columns above it: at orders on both sides of that bound each entry agrees with the direct sums
// (n/(M s_e²)) Σ_j y x and −(n/(2M s_e²)) Σ_j x xᵀ formed here by explicit loops, within γ_{2M+3} of
// the sum of magnitudes (Higham Thm 3.5: M rounded products and the sum on each side, two roundings
// of the scale).
TEST(MinibatchGradient, MatchesTheDirectSumAtStaticAndRunTimeOrders) {
  for (const Index d : {Index(1), Index(10), Index(kStaticOrderMax), Index(kStaticOrderMax + 1), Index(40)}) {
    const LinearRegression<double> model(data::synthetic_regression(50, d, 5.0, 0.5, 17), Mat<double>::Identity(d, d), 0.5);
    const auto& x = model.data().X;
    const auto& y = model.data().y;
    const Index m = 7;
    MinibatchGradient<double> est(model, m);
    random::Stream rng(8, static_cast<std::uint64_t>(d));
    const double scale1 = static_cast<double>(model.n()) / (static_cast<double>(m) * model.noise_var());
    const double budget = rounding_budget<double>(2 * m + 3);
    GaussianPair<double> g;
    for (int batch = 0; batch < 5; ++batch) {
      est.draw(rng);
      est.evaluate(g);
      ASSERT_EQ(g.first.size(), d);
      ASSERT_EQ(g.second.rows(), d);
      for (Index r = 0; r < d; ++r) {
        double s1 = 0, a1 = 0;
        for (Index i : est.indices()) {
          s1 += y(i) * x(i, r);
          a1 += std::abs(y(i) * x(i, r));
        }
        EXPECT_LE(std::abs(g.first(r) - scale1 * s1), budget * scale1 * a1) << "d " << d << " entry " << r;
        for (Index c = 0; c < d; ++c) {
          double s2 = 0, a2 = 0;
          for (Index i : est.indices()) {
            s2 += x(i, r) * x(i, c);
            a2 += std::abs(x(i, r) * x(i, c));
          }
          EXPECT_LE(std::abs(g.second(r, c) + scale1 / 2 * s2), budget * scale1 / 2 * a2) << "d " << d << " (" << r << ", " << c << ")";
        }
      }
      EXPECT_EQ(g.second, g.second.transpose()) << "d " << d;
    }
  }
}

TEST(MinibatchGradient, BadArgumentsAreNamed) {
  const auto model = model7();
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { MinibatchGradient<double>(model, 0); }, {"ngvi::MinibatchGradient", "batch", "M = 0"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { MinibatchGradient<double>(model, 8, Sampling::kWithoutReplacement); }, {"batch", "<= n"}));
  MinibatchGradient<double> est(model, 2);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { est.set_indices({0, 9}); }, {"idx", "outside"}));
}

}}  // namespace
}  // namespace ngvi
