// The eq. (15) estimator's two routes for software scalars (mp50, in its own translation unit):
// - exact sums, on data that are doubles: each entry is within γ₆ of the exact entry
//   (n/(M s_e²)) Σ_j y x or −(n/(2M s_e²)) Σ_j x xᵀ, computed in cpp_rational;
// - stored row products, on data that are not: each entry agrees with the direct sum formed here by
//   explicit loops, within the rounding of an M-term sum and its scaling, and a batch gives the same
//   bits whether its rows are multiplied out now or were stored by an earlier batch.
// Neither is taken in double.
#include <boost/multiprecision/cpp_int.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/scalar/budget.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

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

// Draws 40 batches of M = 5 rows from the model's 9 (most rows repeat) and, for every entry of ĝ,
// calls check(computed, second, terms, where): the entry should be s · Σ_j u_j v_j over the batch's
// terms (u_j, v_j), which are (y, x_r) for ĝ₁(r), where s = n/(M s_e²), and (x_r, x_c) for ĝ₂(r, c)
// (`second`), where s = −n/(2M s_e²). The caller forms s in its own arithmetic. `where` names the
// entry for a failure message.
template <class Check>
void for_each_entry_of_batches(const LinearRegression<mp50>& model, MinibatchGradient<mp50>& est, Check check) {
  const Index d = model.d();
  const auto& x = model.data().X;
  const auto& y = model.data().y;
  random::Stream rng(4, 1);
  GaussianPair<mp50> g;
  std::vector<std::pair<mp50, mp50>> terms;
  for (int batch = 0; batch < 40; ++batch) {
    est.draw(rng);
    est.evaluate(g);
    for (Index r = 0; r < d; ++r) {
      terms.clear();
      for (Index i : est.indices()) terms.emplace_back(y(i), x(i, r));
      check(g.first(r), false, terms, "batch " + std::to_string(batch) + " entry " + std::to_string(r));
      for (Index c = 0; c < d; ++c) {
        terms.clear();
        for (Index i : est.indices()) terms.emplace_back(x(i, r), x(i, c));
        check(g.second(r, c), true, terms, "batch " + std::to_string(batch) + " (" + std::to_string(r) + ", " + std::to_string(c) + ")");
      }
    }
    EXPECT_EQ(g.second, g.second.transpose());
  }
}

TEST(MinibatchExactSums, EachEntryIsWithinGammaSixOfTheExactEntry) {
  using boost::multiprecision::cpp_rational;
  const auto model = model_mp50();
  const Index m = 5;
  MinibatchGradient<mp50> est(model, m);
  ASSERT_TRUE(est.uses_exact_sums());
  const cpp_rational scale1 = cpp_rational(model.n()) / (cpp_rational(m) * cpp_rational(model.noise_var()));
  // The scale n/(M s_e²) carries two roundings, the sum's conversion three (kernels/fixed_point_columns.hpp)
  // and the scaling one: γ₆ relative to the exact entry (Higham (2002) Lemma 3.3).
  const cpp_rational g6(gamma_n<mp50>(6));
  for_each_entry_of_batches(model, est, [&](const mp50& v, bool second, const auto& terms, const std::string& where) {
    cpp_rational s(0);
    for (const auto& [u, w] : terms) s += cpp_rational(u) * cpp_rational(w);
    const cpp_rational exact = (second ? -scale1 / 2 : scale1) * s;
    EXPECT_LE(abs(cpp_rational(v) - exact), g6 * abs(exact)) << where;
  });
}

TEST(MinibatchRowProducts, MatchesTheDirectSumEntryByEntry) {
  const auto model = model_mp50_thirds();
  const Index m = 5;
  MinibatchGradient<mp50> est(model, m);
  ASSERT_TRUE(est.uses_row_products());
  const mp50 scale1 = mp50(model.n()) / (mp50(m) * model.noise_var());
  // Each side is a sum of M rounded products with two roundings of the scale (the test's after the
  // sum, the estimator's on each term): Higham Thm 3.5 bounds their difference by γ_{2M+3} of the
  // sum of magnitudes.
  const mp50 budget = rounding_budget<mp50>(2 * m + 3);
  for_each_entry_of_batches(model, est, [&](const mp50& v, bool second, const auto& terms, const std::string& where) {
    mp50 s(0), a(0);
    for (const auto& [u, w] : terms) {
      s += u * w;
      a += abs(u * w);
    }
    const mp50 scale = second ? mp50(-scale1 / 2) : scale1;
    EXPECT_LE(abs(v - scale * s), budget * abs(scale) * a) << where;
  });
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

}}  // namespace
}  // namespace ngvi
