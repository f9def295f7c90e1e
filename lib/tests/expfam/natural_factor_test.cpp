// NaturalFactor: one Cholesky factorisation of Λ = −2η₂ giving η ∈ Ω, m = Λ⁻¹η₁ and the lower
// Cholesky factor L of S = Λ⁻¹ with its inverse. References by the other route: the moments (m, S) η was made from
// (moments_to_natural, through SpdFactor of S), and the non-conjugate NGD step recomputed through
// μ = ∇A(η) and the Cholesky factor of μ₂ − μ₁μ₁ᵀ (price_gradient_from, reparam_gradient_from).
#include <gtest/gtest.h>

#include <limits>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/natural_factor.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class NaturalFactorTest : public ::testing::Test {};
TYPED_TEST_SUITE(NaturalFactorTest, test::Scalars);

// Spectra of S in [1, κ] with κ up to 1e8, d up to 40. Budget: the round trip's
// 4·γ_{d²+4d+16}·κ·(1 + ‖m‖²) (gaussian_maps_test.cpp): η carries the forward error of S⁻¹ (κu),
// and the factor, the triangular inverse and the solves for m add forward errors of the same order.
TYPED_TEST(NaturalFactorTest, GivesTheMeanAndTheCholeskyFactorOfTheCovariance) {
  using Scalar = TypeParam;
  for (double kappa : {1.0, 1e3, 1e8}) {
    for (Index d : {1, 3, 8, 40}) {
      data::Rng rng(200 + d);
      const auto qd = data::random_gaussian(d, kappa, rng);
      const auto q = data::cast_moments<Scalar>(qd);
      const Scalar tol = rounding_budget<Scalar>(d * d + 4 * d + 16, Scalar(kappa * (1 + qd.mean.squaredNorm())));
      NaturalFactor<Scalar> f(d);
      ASSERT_TRUE(f.factor(moments_to_natural(q))) << d << " " << kappa;
      EXPECT_TRUE(test::mat_rel_close<Scalar>(f.mean(), q.mean, tol)) << d << " " << kappa;
      const Mat<Scalar>& l = f.lower();
      EXPECT_TRUE(test::mat_rel_close<Scalar>(Mat<Scalar>(l * l.transpose()), q.cov, tol)) << d << " " << kappa;
      // Lower triangular with a positive diagonal: with L Lᵀ = S, the Cholesky factor of S.
      for (Index j = 0; j < d; ++j) {
        EXPECT_GT(l(j, j), Scalar(0));
        for (Index i = 0; i < j; ++i) EXPECT_EQ(l(i, j), Scalar(0)) << i << " " << j;
      }
      // L⁻¹ is the factor R of PΛP read in reverse order and L its computed triangular inverse, so
      // L⁻¹L − I is that inverse's residual: γ_d·κ(R) per entry, κ(R) = √κ(Λ); the budget above
      // (γ_{d²+4d+16}·κ) covers it. L⁻¹ is lower triangular.
      const Mat<Scalar>& w = f.lower_inverse();
      EXPECT_TRUE(test::mat_rel_close<Scalar>(Mat<Scalar>(w * l), Mat<Scalar>::Identity(d, d), tol)) << d << " " << kappa;
      for (Index j = 0; j < d; ++j)
        for (Index i = 0; i < j; ++i) EXPECT_EQ(w(i, j), Scalar(0)) << i << " " << j;
    }
  }
}

// η ∉ Ω (−η₂ indefinite or singular, or a non-finite entry) is reported as false; bad sizes throw.
TYPED_TEST(NaturalFactorTest, RejectsParametersOutsideOmegaAndBadSizes) {
  using Scalar = TypeParam;
  const Scalar nan = std::numeric_limits<Scalar>::quiet_NaN();
  NaturalFactor<Scalar> f(2);
  GaussianNatural<Scalar> eta(Vec<Scalar>::Ones(2), Mat<Scalar>::Identity(2, 2) * Scalar(-0.5));
  EXPECT_TRUE(f.factor(eta));  // the control: Λ = I
  GaussianNatural<Scalar> indefinite = eta;
  indefinite.eta2()(1, 1) = Scalar(0.5);
  EXPECT_FALSE(f.factor(indefinite));
  GaussianNatural<Scalar> singular = eta;
  singular.eta2() << Scalar(-0.5), Scalar(-0.5), Scalar(-0.5), Scalar(-0.5);
  EXPECT_FALSE(f.factor(singular));
  GaussianNatural<Scalar> nan_mean = eta;
  nan_mean.eta1()(0) = nan;
  EXPECT_FALSE(f.factor(nan_mean));
  GaussianNatural<Scalar> nan_precision = eta;
  nan_precision.eta2()(1, 0) = nan_precision.eta2()(0, 1) = nan;
  EXPECT_FALSE(f.factor(nan_precision));
  EXPECT_TRUE(f.factor(eta));  // usable again after a failure
  const GaussianNatural<Scalar> three(Vec<Scalar>::Zero(3), Mat<Scalar>::Identity(3, 3) * Scalar(-0.5));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { f.factor(three); }, {"NaturalFactor::factor", "'eta'", "other than 2"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { NaturalFactor<Scalar> g(0); }, {"NaturalFactor", "'d'"}));
}

template <class Scalar>
Dataset<Scalar> logistic_data() {
  // Dyadic features, so that both precisions see the same exact inputs.
  Mat<double> x(6, 2);
  x << 0.5, -0.25, 1.0, 0.75, -0.5, 0.5, 0.25, -1.0, -0.75, 0.125, 1.5, -0.5;
  Vec<double> y(6);
  y << 0, 1, 1, 0, 1, 1;
  return cast_dataset<Scalar>(Dataset<double>{with_bias_column(x), y});
}

// T steps of ngd_nonconjugate (one factorisation of Λ per step) against the same steps through
// the μ route: μ_t = ∇A(η_t), L = chol(μ₂ − μ₁μ₁ᵀ), the same draws. The two differ by roundings in
// (m, L), each within γ_{d²+4d+16}·κ(S_t)(1 + ‖m_t‖²) as in the round-trip test; they are carried
// through K log-likelihood Hessians on n = 6 data (n·d² + d³ operations each) and T steps, each a
// contraction with γ ≤ 1/2. So the budget is γ_{T·K·(n·d² + d³)} times the largest
// ‖S_t‖_F‖Λ_t‖_F(1 + ‖m_t‖²) along the μ route (‖S‖_F‖Λ‖_F ≥ κ₂(S)).
// Control: the μ route with its draws shifted by one must not agree with the run.
TYPED_TEST(NaturalFactorTest, NonconjugateStepsMatchTheExpectationRoute) {
  using Scalar = TypeParam;
  const auto model = make_logistic_regression(logistic_data<Scalar>(), standard_normal_prior<Scalar>(3));
  auto ll = [&](const Vec<Scalar>& z, bool h) { return model.loglik(z, h); };
  Mat<Scalar> s0(3, 3);
  s0 << Scalar(0.5), Scalar(0.125), Scalar(0), Scalar(0.125), Scalar(0.75), Scalar(-0.0625), Scalar(0), Scalar(-0.0625), Scalar(0.25);
  const GaussianMoments<Scalar> q0{Vec<Scalar>::Constant(3, Scalar(0.25)), s0};
  constexpr int kDraws = 4;
  constexpr long kSteps = 5;
  const auto schedule = StepSchedule<Scalar>::constant(Scalar(0.5));
  const auto eta_p = moments_to_natural(model.prior());
  for (std::string_view est : {PriceRoute::name, ReparamRoute::name}) {
    // kSteps steps by the μ route with draws from `draws`; `cond` takes the largest condition factor.
    auto mu_route = [&](random::Stream draws, Scalar& cond) {
      GaussianNatural<Scalar> eta = moments_to_natural(q0);
      for (long t = 0; t < kSteps; ++t) {
        const auto q = natural_to_moments(eta);
        using std::max;
        cond = max(cond, Scalar(q.cov.norm() * (Scalar(-2) * eta.eta2()).norm() * (Scalar(1) + q.mean.squaredNorm())));
        const auto mu = natural_to_expectation(eta);
        const Mat<Scalar> eps = standard_normal_block<Scalar>(3, kDraws, draws);
        const GaussianPair<Scalar> g = est == PriceRoute::name ? price_gradient_from(ll, mu, eps) : reparam_gradient_from(ll, mu, eps);
        const Scalar gamma = schedule.at(t);  // eq. (8) written out, independently of the library's update
        eta.first = (Scalar(1) - gamma) * eta.first + gamma * (eta_p.first + g.first);
        eta.second = (Scalar(1) - gamma) * eta.second + gamma * (eta_p.second + g.second);
      }
      return eta;
    };
    const random::Stream rng(21, 3);
    random::Stream run_rng = rng;
    const auto run = ngd_nonconjugate(ll, model.prior(), q0, schedule, kDraws, kSteps, run_rng, est);
    ASSERT_TRUE(run.ok());
    Scalar cond(1);
    const auto eta = mu_route(rng, cond);
    const Scalar tol = rounding_budget<Scalar>(kSteps * kDraws * (6 * 9 + 27), cond);
    EXPECT_TRUE(test::mat_rel_close<Scalar>(run.last.eta1(), eta.eta1(), tol)) << std::string(est);
    EXPECT_TRUE(test::mat_rel_close<Scalar>(run.last.eta2(), eta.eta2(), tol)) << std::string(est);
    random::Stream shifted = rng;
    shifted.normal();
    Scalar cond_shifted(1);
    const auto other = mu_route(shifted, cond_shifted);
    EXPECT_FALSE(test::mat_rel_close<Scalar>(run.last.eta1(), other.eta1(), tol)) << std::string(est);
  }
}

}}  // namespace
}  // namespace ngvi
