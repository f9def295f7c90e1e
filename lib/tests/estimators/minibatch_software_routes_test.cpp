// The eq. (15) estimator's two routes for software scalars (mp50, in its own translation unit):
// - exact sums, on data that are doubles: each entry is within γ₆ of the exact entry
//   (n/(M s_e²)) Σ_j y x or −(n/(2M s_e²)) Σ_j x xᵀ, computed in cpp_rational;
// - stored row products, on data that are not: each entry agrees with the direct sum formed here by
//   explicit loops, within the rounding of an M-term sum and its scaling, and a batch gives the same
//   bits whether its rows are multiplied out now or were stored by an earlier batch.
// Neither is taken in double.
#include <boost/multiprecision/cpp_int.hpp>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/scalar/budget.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace {

// Synthetic data cast exactly from double: the exact route.
LinearRegression<mp50> model_mp50() {
  const Dataset<double> raw = data::synthetic_regression(9, 4, 2.0, 0.5, 11);
  return LinearRegression<mp50>(Dataset<mp50>{data::cast_matrix<mp50>(raw.X), data::cast_vector<mp50>(raw.y)},
                                Mat<mp50>::Identity(4, 4), mp50(0.5));
}

// The same data divided by 3 in mp50, so that no entry is a double: the row-product route.
LinearRegression<mp50> model_mp50_thirds() {
  const Dataset<double> raw = data::synthetic_regression(9, 4, 2.0, 0.5, 11);
  return LinearRegression<mp50>(Dataset<mp50>{Mat<mp50>(data::cast_matrix<mp50>(raw.X) / mp50(3)),
                                              Vec<mp50>(data::cast_vector<mp50>(raw.y) / mp50(3))},
                                Mat<mp50>::Identity(4, 4), mp50(0.5));
}

TEST(MinibatchSoftwareRoutes, ExactSumsOnDoublesRowProductsOtherwiseNeitherInDouble) {
  const auto mm = model_mp50();
  EXPECT_TRUE(MinibatchGradient<mp50>(mm, 3).uses_exact_sums());
  EXPECT_FALSE(MinibatchGradient<mp50>(mm, 3).uses_row_products());
  const auto mt = model_mp50_thirds();
  EXPECT_FALSE(MinibatchGradient<mp50>(mt, 3).uses_exact_sums());
  EXPECT_TRUE(MinibatchGradient<mp50>(mt, 3).uses_row_products());
  const LinearRegression<double> md(data::synthetic_regression(9, 4, 2.0, 0.5, 11), Mat<double>::Identity(4, 4), 0.5);
  EXPECT_FALSE(MinibatchGradient<double>(md, 3).uses_exact_sums());
  EXPECT_FALSE(MinibatchGradient<double>(md, 3).uses_row_products());
}

TEST(MinibatchExactSums, EachEntryIsWithinGammaSixOfTheExactEntry) {
  using boost::multiprecision::cpp_rational;
  const auto model = model_mp50();
  const Index d = model.d(), m = 5;
  const auto& x = model.data().X;
  const auto& y = model.data().y;
  MinibatchGradient<mp50> est(model, m);
  ASSERT_TRUE(est.uses_exact_sums());
  random::Stream rng(4, 1);
  const cpp_rational scale1 = cpp_rational(model.n()) / (cpp_rational(m) * cpp_rational(model.noise_var()));
  // The scale n/(M s_e²) carries two roundings, the sum's conversion three (linalg/fixed_point_columns.hpp)
  // and the scaling one: γ₆ relative to the exact entry (Higham (2002) Lemma 3.3).
  const cpp_rational g6(gamma_n<mp50>(6));
  GaussianPair<mp50> g;
  for (int batch = 0; batch < 40; ++batch) {
    est.draw(rng);
    est.evaluate(g);
    for (Index r = 0; r < d; ++r) {
      cpp_rational s1(0);
      for (Index i : est.indices()) s1 += cpp_rational(y(i)) * cpp_rational(x(i, r));
      const cpp_rational e1 = scale1 * s1;
      EXPECT_LE(abs(cpp_rational(g.first(r)) - e1), g6 * abs(e1)) << "batch " << batch << " entry " << r;
      for (Index c = 0; c < d; ++c) {
        cpp_rational s2(0);
        for (Index i : est.indices()) s2 += cpp_rational(x(i, r)) * cpp_rational(x(i, c));
        const cpp_rational e2 = -scale1 / 2 * s2;
        EXPECT_LE(abs(cpp_rational(g.second(r, c)) - e2), g6 * abs(e2)) << "batch " << batch << " (" << r << ", " << c << ")";
      }
    }
    EXPECT_EQ(g.second, g.second.transpose());
  }
}

TEST(MinibatchRowProducts, MatchesTheDirectSumEntryByEntry) {
  const auto model = model_mp50_thirds();
  const Index d = model.d(), m = 5;
  const auto& x = model.data().X;
  const auto& y = model.data().y;
  MinibatchGradient<mp50> est(model, m);
  ASSERT_TRUE(est.uses_row_products());
  random::Stream rng(4, 1);
  const mp50 scale1 = mp50(model.n()) / (mp50(m) * model.noise_var());
  // Each side is a sum of M rounded products with two roundings of the scale (the test's after the
  // sum, the estimator's on each term): Higham Thm 3.5 bounds their difference by γ_{2M+3} of the
  // sum of magnitudes.
  const mp50 budget = rounding_budget<mp50>(2 * m + 3);
  GaussianPair<mp50> g;
  for (int batch = 0; batch < 40; ++batch) {  // 40 batches of 5 from 9 rows: most rows repeat
    est.draw(rng);
    est.evaluate(g);
    for (Index r = 0; r < d; ++r) {
      mp50 s1(0), a1(0);
      for (Index i : est.indices()) {
        s1 += y(i) * x(i, r);
        a1 += abs(y(i) * x(i, r));
      }
      EXPECT_LE(abs(g.first(r) - scale1 * s1), budget * scale1 * a1) << "batch " << batch << " entry " << r;
      for (Index c = 0; c < d; ++c) {
        mp50 s2(0), a2(0);
        for (Index i : est.indices()) {
          s2 += x(i, r) * x(i, c);
          a2 += abs(x(i, r) * x(i, c));
        }
        EXPECT_LE(abs(g.second(r, c) + scale1 / 2 * s2), budget * scale1 / 2 * a2) << "batch " << batch << " (" << r << ", " << c << ")";
      }
    }
    EXPECT_EQ(g.second, g.second.transpose());
  }
}

TEST(MinibatchRowProducts, StoredAndFreshRowsGiveTheSameBits) {
  const auto model = model_mp50_thirds();
  const std::vector<Index> batch{2, 7, 2, 0};
  MinibatchGradient<mp50> warm(model, 4), cold(model, 4);
  // Store every row in `warm` first, through other batches.
  for (Index i = 0; i < model.n(); ++i) {
    warm.set_indices({i, i, i, i});
    GaussianPair<mp50> scratch;
    warm.evaluate(scratch);
  }
  GaussianPair<mp50> gw, gc, gc2;
  warm.set_indices(batch);
  warm.evaluate(gw);
  cold.set_indices(batch);
  cold.evaluate(gc);   // rows multiplied out now
  cold.evaluate(gc2);  // the same rows, now stored
  EXPECT_EQ(gw.first, gc.first);
  EXPECT_EQ(gw.second, gc.second);
  EXPECT_EQ(gc.first, gc2.first);
  EXPECT_EQ(gc.second, gc2.second);
}

}  // namespace
}  // namespace ngvi
