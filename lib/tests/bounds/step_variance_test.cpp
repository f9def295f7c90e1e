// σ_t² (ngvi-math.md §4.2): the symmetrised-KL form equals the defining form (12) batch by batch
// (so their enumerated means agree); Monte Carlo brackets the exact enumeration; Lemma 3's
// data-moment constant lies below its data-maximum form; bad input is named.
#include <boost/math/distributions/normal.hpp>

#include "ngvi/bounds/blr_constants.hpp"
#include "ngvi/bounds/step_variance.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace {

TEST(StepVariance, JeffreysFormEqualsDefinition) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 2);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  MinibatchGradient<double> est(model, 2);
  const auto eta = standard_natural<double>(2);
  for (double gamma : {1.0, 0.5, 0.1}) {
    GaussianPair<double> g;
    for_each_batch(6, 2, 100, [&](const std::vector<Index>& idx) {
      est.set_indices(idx);
      est.evaluate(g);
      const double a = step_variance_sample(model, eta, g, gamma);
      const double b = step_variance_sample_eq12(model, eta, g, gamma);
      // Both are differences of O(1/γ²)-scaled terms of size ‖η‖‖μ‖; the map η → μ has
      // condition ≤ 1e3 on this instance and d = 2 (24 operations per KL, Higham Thm 3.5).
      EXPECT_TRUE(test::rel_close<double>(a, b, rounding_budget<double>(64, 1e3) / (gamma * gamma), 1.0));
    });
  }
}

TEST(StepVariance, MonteCarloBracketsEnumeration) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 4);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  MinibatchGradient<double> est(model, 2);
  const auto eta = standard_natural<double>(2);
  const double exact = step_variance_exact(est, eta, 0.5);
  random::Stream rng(11, 0);
  const auto mc = step_variance_mc(est, eta, 0.5, rng, 4000);
  // Two-sided 99.9% normal interval for the mean of 4000 draws.
  const double z = boost::math::quantile(boost::math::normal(), 0.9995);
  EXPECT_LE(std::abs(mc.mean - exact), z * mc.std_error);
  EXPECT_GT(exact, 0.0);
}

TEST(Lemma3Constant, MomentFormBelowMaxForm) {
  const auto dd = data::synthetic_regression(20, 4, 100.0, 0.5, 6);
  data::Rng rng(1);
  const auto c = blr_constants<double>(dd, data::random_spd(4, 10.0, rng, 0.5), 0.3, 4);
  EXPECT_LE(lemma3_sigma2(c), lemma3_sigma2_max_form(c));
  EXPECT_LE(lemma7_rhs(c), lemma7_rhs_max(c));
  EXPECT_LE(lemma8_rhs(c), lemma8_rhs_max(c));
  EXPECT_GT(c.lambda, 0.0);
  EXPECT_LE(c.lambda, 1.0);
  EXPECT_EQ(thm1_kl_bound(2.0, 3), 2.0);
}

TEST(Lemma3Constant, BadInputIsNamed) {
  const auto dd = data::synthetic_regression(5, 2, 1.0, 0.5, 6);
  const Mat<double> eye = Mat<double>::Identity(2, 2);
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { blr_constants<double>(dd, eye, 0.5, 0); }, {"ngvi::blr_constants", "batch"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { blr_constants<double>(dd, eye, 0.0, 1); }, {"noise_var"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { blr_constants<double>(dd, -eye, 0.5, 1); }, {"prior_cov", "positive definite"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { thm1_kl_bound(1.0, 0); }, {"T"}));
}

}  // namespace
}  // namespace ngvi
