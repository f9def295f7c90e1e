// Bayesian linear regression (docs/math.md §5.1): closed forms checked against independent routes
// in double and mp50: the evidence against the n-dimensional marginal N(y | X m_p, X S_p Xᵀ + s_e² I),
// the Lemma 2 identity f(μ) + log p(y) = KL(q_μ ‖ posterior), the gradient against η − η*, and the
// posterior against the stationarity of f.
#include <cmath>
#include <limits>

#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/models/linear_regression.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
LinearRegression<Scalar> small_model(std::uint64_t seed, bool general_prior) {
  const auto dd = data::synthetic_regression(12, 3, 10.0, 0.5, seed);
  data::Rng rng(seed + 1);
  const Mat<double> sp = general_prior ? data::random_spd(3, 20.0, rng, 0.3) : Mat<double>::Identity(3, 3);
  return LinearRegression<Scalar>(cast_dataset<Scalar>(dd), data::cast_matrix<Scalar>(sp), Scalar(1) / 2);
}

// Operation count for the closed forms on n = 12, d = 3: the n × n marginal Cholesky (n³/3 ≈ 600
// dependent roundings bound the backward error by γ_{n+1}, Higham Thm 10.3) dominates; 2n² covers
// the quadratic forms. Condition numbers of these small instances are below 1e4.
constexpr long kOps = 12 * 12 * 2 + 64;
constexpr double kCond = 1e4;

template <class T>
class LinearRegressionTyped : public ::testing::Test {};
TYPED_TEST_SUITE(LinearRegressionTyped, test::Scalars);

TYPED_TEST(LinearRegressionTyped, EvidenceMatchesMarginalLikelihood) {
  using Scalar = TypeParam;
  using boost::math::constants::two_pi;
  using std::log;
  for (bool general : {false, true}) {
    const auto model = small_model<Scalar>(7, general);
    const auto& X = model.data().X;
    Mat<Scalar> k = X * model.prior().cov * X.transpose();
    k += model.noise_var() * Mat<Scalar>::Identity(model.n(), model.n());
    const SpdFactor<Scalar> fk(symmetrise(k), "test", "K");
    const Vec<Scalar> r = model.data().y - X * model.prior().mean;
    const Scalar direct = -Scalar(model.n()) / 2 * log(two_pi<Scalar>()) - fk.log_det() / 2 - fk.inv_quad(r) / 2;
    EXPECT_TRUE(test::rel_close<Scalar>(model.log_evidence(), direct, rounding_budget<Scalar>(kOps, Scalar(kCond))));
  }
}

TYPED_TEST(LinearRegressionTyped, NegElboIsKlToPosteriorMinusEvidence) {
  using Scalar = TypeParam;
  const auto model = small_model<Scalar>(11, true);
  data::Rng rng(3);
  for (int rep = 0; rep < 3; ++rep) {
    const auto q = data::cast_moments<Scalar>(data::random_gaussian(3, 30.0, rng));
    const auto mu = moments_to_expectation(q);
    const Scalar lhs = model.neg_elbo(mu) + model.log_evidence();
    const Scalar kl = model.kl_to_posterior(q);
    // The cancellation in f + log p(y) loses the size of f relative to KL.
    const Scalar scale = std::abs(to_double(model.neg_elbo(mu))) + 1;
    EXPECT_TRUE(test::rel_close<Scalar>(lhs, kl, rounding_budget<Scalar>(kOps, Scalar(kCond)) * scale));
  }
}

TYPED_TEST(LinearRegressionTyped, GradientIsNaturalDifferenceAndVanishesAtPosterior) {
  using Scalar = TypeParam;
  const auto model = small_model<Scalar>(5, true);
  data::Rng rng(9);
  const auto q = data::cast_moments<Scalar>(data::random_gaussian(3, 10.0, rng));
  const auto g = model.neg_elbo_gradient(moments_to_expectation(q));
  const GaussianPair<Scalar> expect = moments_to_natural(q) - model.posterior_natural();
  const Scalar tol = rounding_budget<Scalar>(kOps, Scalar(kCond));
  EXPECT_TRUE(test::mat_rel_close<Scalar>(g.second, expect.second, tol));
  EXPECT_TRUE(test::mat_rel_close<Scalar>(Mat<Scalar>(g.first), Mat<Scalar>(expect.first), tol));
  const auto g_star = model.neg_elbo_gradient(model.posterior_expectation());
  const Scalar size = std::sqrt(to_double(pair_squared_norm<Scalar>(model.posterior_natural())));
  const Scalar gn = std::sqrt(to_double(pair_squared_norm<Scalar>(g_star)));
  EXPECT_TRUE(gn == gn && gn <= tol * size);
  EXPECT_TRUE(test::rel_close<Scalar>(model.kl_to_posterior(model.posterior_moments()) + Scalar(1), Scalar(1), tol));
  EXPECT_GT(to_double(model.kl_from_posterior(q)), 0.0);
}

TEST(LinearRegression, NlpdOfOnePointMatchesNormalDensity) {
  Dataset<double> one{Mat<double>::Constant(1, 1, 2.0), Vec<double>::Constant(1, 1.0)};
  const LinearRegression<double> model(one, Mat<double>::Identity(1, 1), 0.25);
  const GaussianMoments<double> q{Vec<double>::Constant(1, 0.5), Mat<double>::Constant(1, 1, 0.5)};
  // y = 1, mean x m = 1, variance x² S + s_e² = 2 + 0.25: −log N(1 | 1, 2.25) = ½ log(2π·2.25).
  const double expect = 0.5 * std::log(2 * boost::math::constants::pi<double>() * 2.25);
  EXPECT_TRUE(test::rel_close<double>(model.nlpd(q, one), expect, rounding_budget<double>(16)));
}

TEST(LinearRegression, BadInputNamesTheArgument) {
  const auto dd = data::synthetic_regression(5, 2, 1.0, 0.1, 1);
  const Mat<double> eye = Mat<double>::Identity(2, 2);
  EXPECT_TRUE(test::throws_with<std::invalid_argument>(
      [&] { LinearRegression<double>(Dataset<double>{Mat<double>(0, 2), Vec<double>(0)}, eye, 1.0); }, {"ngvi::LinearRegression", "data.X", "n = 0"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LinearRegression<double>(dd, eye, 0.0); }, {"noise_var", "> 0"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LinearRegression<double>(dd, eye, -1.0); }, {"noise_var"}));
  Mat<double> bad = eye;
  bad(1, 1) = -1.0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LinearRegression<double>(dd, bad, 1.0); }, {"prior_cov", "positive definite"}));
  auto nan_data = dd;
  nan_data.X(2, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { LinearRegression<double>(nan_data, eye, 1.0); }, {"data.X", "non-finite"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { LinearRegression<double>(dd, Mat<double>::Identity(3, 3), 1.0); }, {"prior_cov"}));
}

}}  // namespace
}  // namespace ngvi
