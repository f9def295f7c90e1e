// Unit tests of the non-conjugate models (logistic, Poisson), the Price and reparameterisation
// estimators and the Cholesky backward pass. References: 100-digit central differences of the
// objective (never the gradient code under test), closed forms, and bad-input messages.
#include <gtest/gtest.h>

#include "ngvi/estimators/price.hpp"
#include "ngvi/estimators/reparam.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/models/poisson_regression.hpp"
#include "ngvi/optim/sgd_mL_nonconjugate.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
Dataset<Scalar> small_data(bool counts) {
  // Dyadic features so that every precision sees the same exact inputs.
  Mat<double> x(5, 2);
  x << 0.5, -0.25, 1.0, 0.75, -0.5, 0.5, 0.25, -1.0, -0.75, 0.125;
  Vec<double> y(5);
  if (counts) y << 0, 2, 1, 0, 3;
  else y << 0, 1, 1, 0, 1;
  Dataset<double> d{with_bias_column(x), y};
  return cast_dataset<Scalar>(d);
}

template <class Scalar>
GaussianMoments<Scalar> small_q() {
  Mat<Scalar> s(3, 3);
  s << Scalar(0.5), Scalar(0.125), Scalar(0), Scalar(0.125), Scalar(0.75), Scalar(-0.0625), Scalar(0), Scalar(-0.0625), Scalar(0.25);
  Vec<Scalar> m(3);
  m << Scalar(0.25), Scalar(-0.5), Scalar(0.125);
  return GaussianMoments<Scalar>{m, s};
}

// Central-difference step in 100 digits: truncation O(h²) = 1e-60, rounding O(1e-100/h) = 1e-70,
// both below the mp50 unit roundoff, so the reference is exact to mp50 precision.
const mp100 kFdStep("1e-30");

template <class Model100, class Fn>
mp100 fd_directional(const Fn& f, const GaussianExpectation<mp100>& mu, const GaussianPair<mp100>& v) {
  GaussianExpectation<mp100> p = mu, m = mu;
  p += kFdStep * v;
  m -= kFdStep * v;
  return (f(p) - f(m)) / (2 * kFdStep);
}

GaussianPair<mp100> test_direction() {
  GaussianPair<mp100> v{Vec<mp100>(3), Mat<mp100>(3, 3)};
  v.first << mp100("0.3"), mp100("-0.7"), mp100("0.2");
  v.second << mp100("0.4"), mp100("0.1"), mp100("-0.2"), mp100("0.1"), mp100("-0.3"), mp100("0.05"), mp100("-0.2"), mp100("0.05"), mp100("0.6");
  return v;
}

// Budget for comparing an mp50 result with the mp100 reference: the model's sums run over n data
// and a quadrature of up to 64 nodes, ~ 64·n·d² dependent roundings (Higham Thm 3.5).
mp50 model_budget(Index n) { return rounding_budget<mp50>(64 * n * 9 + 100, mp50(100)); }

TEST(NonconjugateModels, PoissonGradientMatchesMp100Differences) {
  const auto m50 = make_poisson_regression(small_data<mp50>(true), standard_normal_prior<mp50>(3));
  const auto m100 = make_poisson_regression(small_data<mp100>(true), standard_normal_prior<mp100>(3));
  const auto mu100 = moments_to_expectation(small_q<mp100>());
  const auto mu50 = moments_to_expectation(small_q<mp50>());
  const auto v = test_direction();
  const auto f = [&](const GaussianExpectation<mp100>& mu) { return m100.neg_elbo(expectation_to_moments(mu)); };
  const mp100 ref = fd_directional<void>(f, mu100, v);
  const mp50 got = pairing<mp50>(m50.neg_elbo_grad_expectation(mu50), data::cast_pair<mp50>(v));
  EXPECT_TRUE(test::rel_close(got, mp50(ref), model_budget(5)));
}

TEST(NonconjugateModels, LogisticHessianFormMatchesMp100Differences) {
  // The second derivative along v equals the derivative of ⟨∇f(μ + t v), v⟩ at t = 0; the
  // reference differentiates the mp100 gradient numerically (the gradient itself is checked above
  // and below against differences of f).
  const auto m50 = make_logistic_regression(small_data<mp50>(false), standard_normal_prior<mp50>(3), 48);
  const auto m100 = make_logistic_regression(small_data<mp100>(false), standard_normal_prior<mp100>(3), 48);
  const auto mu100 = moments_to_expectation(small_q<mp100>());
  const auto mu50 = moments_to_expectation(small_q<mp50>());
  const auto v = test_direction();
  const auto f = [&](const GaussianExpectation<mp100>& mu) { return m100.neg_elbo(expectation_to_moments(mu)); };
  const auto g = [&](const GaussianExpectation<mp100>& mu) { return pairing<mp100>(m100.neg_elbo_grad_expectation(mu), v); };
  // The Price identities ∂_τ E h = ½E h'' hold for exact expectations; a quadrature rule satisfies
  // them only up to its error. The budget is therefore the computed quadrature error bound, summed
  // over data with the weights (1 + |α_i| + |β_i|)² that multiply e_k in the gradient and Hessian.
  const auto q100 = small_q<mp100>();
  mp100 quad_budget(0);
  for (Index i = 0; i < 5; ++i) {
    const Vec<mp100> a = m100.data().X.row(i).transpose();
    const mp100 nu = a.dot(q100.mean), tau = a.dot(q100.cov * a);
    const mp100 alpha = abs(a.dot(v.first)), beta = abs(a.dot(v.second * a)) + 2 * abs(nu) * alpha;
    const auto b = m100.family().quadrature_error_bound(m100.data().y(i), nu, tau);
    const mp100 w = (1 + alpha + beta) * (1 + alpha + beta);
    quad_budget += w * (b.e0 + b.e1 + b.e2 + b.e3 + b.e4);
  }
  const mp100 ref_grad = fd_directional<void>(f, mu100, v);
  const mp100 got_grad = pairing<mp100>(m100.neg_elbo_grad_expectation(mu100), v);
  EXPECT_TRUE(test::rel_close(mp50(got_grad), mp50(ref_grad), mp50(quad_budget)));
  const mp100 ref_hess = fd_directional<void>(g, mu100, v);
  const mp50 got_hess = m50.hessian_quadratic_form(mu50, data::cast_pair<mp50>(v));
  EXPECT_TRUE(test::rel_close(got_hess, mp50(ref_hess), mp50(quad_budget)));
  // The quadrature budget must be informative: a 48-node rule on τ ≤ 1 is accurate far beyond the
  // half-precision of double (√eps_double ≈ 1.5e-8), which is what a useless bound would exceed.
  EXPECT_LT(quad_budget, mp100(std::sqrt(eps<double>())));
}

TEST(NonconjugateModels, LogisticQuadratureErrorBoundCoversAFinerRule) {
  const LogisticFamily<double> fam(20);
  const LogisticFamily<mp50> fine(160);
  for (double tau : {0.25, 1.0, 4.0}) {
    const auto e = fam.expect(1.0, 0.5, tau);
    const auto r = fine.expect(mp50(1), mp50(0.5), mp50(tau));
    const auto b = fam.quadrature_error_bound(1.0, 0.5, tau);
    // The 160-node mp50 value is itself within its own bound of the truth; the 20-node double
    // value must be within (its bound + the fine bound + double rounding of 20 terms).
    const auto bf = fine.quadrature_error_bound(mp50(1), mp50(0.5), mp50(tau));
    const double round = rounding_budget<double>(40);
    EXPECT_LE(std::abs(e.e2 - to_double(r.e2)), b.e2 + to_double(bf.e2) + round);
    EXPECT_LE(std::abs(e.e4 - to_double(r.e4)), b.e4 + to_double(bf.e4) + round);
    EXPECT_LE(std::abs(e.e0 - to_double(r.e0)), b.e0 + to_double(bf.e0) + round * (1 + std::abs(e.e0)));
    EXPECT_GT(b.e2, 0.0);
  }
}

TEST(NonconjugateEstimators, CholeskyBackwardMatchesMp100Differences) {
  // ℓ(z) logistic, z = L(S) ε with m = 0: the gradient in S of ℓ(chol(S) ε) from the backward pass
  // (mp50) against central differences of the mp100 composition along symmetric directions.
  const auto d50 = small_data<mp50>(false);
  const auto d100 = small_data<mp100>(false);
  const auto q50 = small_q<mp50>();
  const auto q100 = small_q<mp100>();
  Vec<mp100> eps(3);
  eps << mp100("0.6"), mp100("-1.3"), mp100("0.9");
  const Mat<mp50> l50 = SpdFactor<mp50>(q50.cov, "t", "S").lower();
  const Vec<mp50> eps50 = data::cast_vector<mp50>(Vec<mp100>(eps));
  const auto r = logistic_loglik(d50, Vec<mp50>(l50 * eps50), false);
  const Mat<mp50> lbar = Mat<mp50>(r.grad * eps50.transpose()).triangularView<Eigen::Lower>();
  const Mat<mp50> sbar = cholesky_backward(l50, lbar);
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j <= i; ++j) {
      Mat<mp100> e = Mat<mp100>::Zero(3, 3);
      e(i, j) = e(j, i) = mp100(1);
      auto val = [&](const mp100& t) {
        const Mat<mp100> l = SpdFactor<mp100>(Mat<mp100>(q100.cov + t * e), "t", "S").lower();
        return logistic_loglik(d100, Vec<mp100>(l * eps), false).value;
      };
      const mp100 ref = (val(kFdStep) - val(-kFdStep)) / (2 * kFdStep);
      const mp50 got = (i == j) ? sbar(i, i) : mp50(2 * sbar(i, j));
      EXPECT_TRUE(test::rel_close(got, mp50(ref), model_budget(5))) << i << "," << j;
    }
}

TEST(NonconjugateEstimators, PriceIsExactForTheQuadraticLikelihoodCovarianceBlock) {
  // ℓ(z) = −½‖z‖²: ∇²ℓ = −I on every draw, so ĝ₂ = −½I exactly (docs/math.md §3.4).
  auto quad = [](const Vec<double>& z, bool) {
    return LogLikDerivatives<double>{-0.5 * z.squaredNorm(), -z, -Mat<double>::Identity(z.size(), z.size())};
  };
  Mat<double> s(2, 2);
  s << 1, 0, 0, 100;
  const GaussianExpectation<double> mu(Vec<double>::Zero(2), s);
  random::Stream rng(7, 0);
  const auto g = price_gradient(quad, mu, 1, rng);
  EXPECT_EQ(g.second, Mat<double>(-0.5 * Mat<double>::Identity(2, 2)));
  const auto a = reparam_gradient(quad, mu, 1, rng);
  Eigen::SelfAdjointEigenSolver<Mat<double>> es(a.second);
  EXPECT_GT(es.eigenvalues()(1), 0.0);  // diag(1, 100) with K = 1: indefinite almost surely
}

TEST(NonconjugateBadInput, NamesTheArgument) {
  auto d = small_data<double>(false);
  d.y(2) = 2.0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { make_logistic_regression(d, standard_normal_prior<double>(3)); },
                                                   {"LogisticRegression", "data.y", "{0, 1}"}));
  auto c = small_data<double>(true);
  c.y(0) = -1.0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { make_poisson_regression(c, standard_normal_prior<double>(3)); },
                                                   {"PoissonRegression", "data.y", "non-negative integer"}));
  auto nf = small_data<double>(true);
  nf.X(1, 0) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { make_poisson_regression(nf, standard_normal_prior<double>(3)); },
                                                   {"PoissonRegression", "data.X"}));
  const auto model = make_logistic_regression(small_data<double>(false), standard_normal_prior<double>(3));
  random::Stream rng(1, 1);
  const auto mu = moments_to_expectation(small_q<double>());
  auto ll = [&](const Vec<double>& z, bool h) { return model.loglik(z, h); };
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { price_gradient(ll, mu, 0, rng); }, {"price_gradient", "'K'"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { reparam_gradient(ll, mu, 0, rng); }, {"reparam_gradient", "'K'"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { model.expected_loglik_mc(small_q<double>(), 0, rng); },
                                                       {"expected_loglik_mc", "'K'"}));
  GaussianExpectation<double> bad = mu;
  bad.mu2() = Mat<double>::Zero(3, 3);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { price_gradient(ll, bad, 1, rng); }, {"price_gradient", "mu"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>(
      [&] { sgd_mL_nonconjugate(ll, standard_normal_prior<double>(3), small_q<double>(), StepSchedule<double>::constant(0.1), 0, 1, rng,
                                PriceRoute::name, 1e-3); },
      {"sgd_mL_nonconjugate", "'K'"}));
}

TEST(NonconjugateOptim, NgdWithPriceStaysInDomainAndSgdDoesNotDiverge) {
  const auto model = make_logistic_regression(small_data<double>(false), standard_normal_prior<double>(3));
  auto ll = [&](const Vec<double>& z, bool h) { return model.loglik(z, h); };
  random::Stream rng(3, 0);
  const auto run = ngd_nonconjugate(ll, model.prior(), standard_normal_prior<double>(3), StepSchedule<double>::constant(0.5), 4, 200, rng);
  EXPECT_TRUE(run.ok());
  ASSERT_TRUE(run.average.has_value());
  EXPECT_TRUE(in_natural_domain(*run.average));
  const auto s = sgd_mL_nonconjugate(ll, model.prior(), standard_normal_prior<double>(3), StepSchedule<double>::inverse_time(1.0, 10.0), 4, 400,
                                     rng, ReparamRoute::name, 1e-3);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(step_size_grid<double>().size(), 11u);
}

}}  // namespace
}  // namespace ngvi
