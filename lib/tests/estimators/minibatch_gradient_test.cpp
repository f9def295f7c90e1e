// The eq. (15) estimator: unbiased by exact enumeration over all n^M batches (with replacement)
// and over all M-subsets orderings (without replacement); a negative semidefinite second block;
// its draws do not depend on the buffer state; bad arguments are named.
#include <Eigen/Eigenvalues>

#include "ngvi/bounds/step_variance.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace {

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

TEST(MinibatchGradient, BadArgumentsAreNamed) {
  const auto model = model7();
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { MinibatchGradient<double>(model, 0); }, {"ngvi::MinibatchGradient", "batch", "M = 0"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { MinibatchGradient<double>(model, 8, Sampling::kWithoutReplacement); }, {"batch", "<= n"}));
  MinibatchGradient<double> est(model, 2);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { est.set_indices({0, 9}); }, {"idx", "outside"}));
}

}  // namespace
}  // namespace ngvi
