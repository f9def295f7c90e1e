#include <gtest/gtest.h>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class GaussianParamMaps : public ::testing::Test {};
TYPED_TEST_SUITE(GaussianParamMaps, test::Scalars);

// Round trips through all six maps, for covariance spectra in [1, κ] with κ up to 1e8. Budget:
// 4·γ_{d²+4d+16}·κ·(1 + ‖m‖²) (inverse forward error and the cancellation in μ₂ − μ₁μ₁ᵀ; see
// lib/include/ngvi/claims/expfam_common.hpp for the derivation).
TYPED_TEST(GaussianParamMaps, RoundTrips) {
  using Scalar = TypeParam;
  for (double kappa : {1.0, 1e3, 1e8}) {
    for (Index d : {1, 3, 8}) {
      data::Rng rng(100 + d);
      const auto qd = data::random_gaussian(d, kappa, rng);
      const auto q = data::cast_moments<Scalar>(qd);
      const Scalar tol = rounding_budget<Scalar>(d * d + 4 * d + 16, Scalar(kappa * (1 + qd.mean.squaredNorm())));
      const auto eta = moments_to_natural(q);
      const auto mu = moments_to_expectation(q);
      const auto q1 = natural_to_moments(eta);
      const auto q2 = expectation_to_moments(mu);
      EXPECT_TRUE(test::mat_rel_close<Scalar>(q1.cov, q.cov, tol)) << d << " " << kappa;
      EXPECT_TRUE(test::mat_rel_close<Scalar>(q1.mean, q.mean, tol));
      EXPECT_TRUE(test::mat_rel_close<Scalar>(q2.cov, q.cov, tol));
      EXPECT_EQ(q2.mean, q.mean);
      const auto mu_from_eta = natural_to_expectation(eta);
      const auto eta_from_mu = expectation_to_natural(mu);
      EXPECT_TRUE(test::mat_rel_close<Scalar>(mu_from_eta.mu2(), mu.mu2(), tol));
      EXPECT_TRUE(test::mat_rel_close<Scalar>(mu_from_eta.mu1(), mu.mu1(), tol));
      EXPECT_TRUE(test::mat_rel_close<Scalar>(eta_from_mu.eta2(), eta.eta2(), tol));
      EXPECT_TRUE(test::mat_rel_close<Scalar>(eta_from_mu.eta1(), eta.eta1(), tol));
      EXPECT_EQ(eta.eta2(), eta.eta2().transpose());
      EXPECT_EQ(mu.mu2(), mu.mu2().transpose());
    }
  }
}

// The defining formulas on a case whose answer is known in closed form: q = N(m, diag(s)).
TYPED_TEST(GaussianParamMaps, DiagonalCaseMatchesFormulas) {
  using Scalar = TypeParam;
  GaussianMoments<Scalar> q{Vec<Scalar>(2), Mat<Scalar>::Zero(2, 2)};
  q.mean << Scalar(1), Scalar(-2);
  q.cov(0, 0) = Scalar(4);
  q.cov(1, 1) = Scalar(0.25);
  const auto eta = moments_to_natural(q);
  EXPECT_EQ(eta.eta1()(0), Scalar(0.25));
  EXPECT_EQ(eta.eta1()(1), Scalar(-8));
  EXPECT_EQ(eta.eta2()(0, 0), Scalar(-0.125));
  EXPECT_EQ(eta.eta2()(1, 1), Scalar(-2));
  const auto mu = moments_to_expectation(q);
  EXPECT_EQ(mu.mu2()(0, 0), Scalar(5));
  EXPECT_EQ(mu.mu2()(0, 1), Scalar(-2));
  EXPECT_EQ(mu.mu2()(1, 1), Scalar(4.25));
}

TYPED_TEST(GaussianParamMaps, BadInputNamesFunctionArgumentAndCondition) {
  using Scalar = TypeParam;
  GaussianMoments<Scalar> q{Vec<Scalar>::Zero(2), Mat<Scalar>::Identity(2, 2)};
  q.cov(1, 1) = Scalar(-1);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { moments_to_natural(q); },
                                                   {"ngvi::moments_to_natural", "'q.cov'", "not positive definite"}));
  q.cov(1, 1) = Scalar(1);
  q.mean(0) = std::numeric_limits<Scalar>::quiet_NaN();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { moments_to_expectation(q); },
                                                   {"ngvi::moments_to_expectation", "'q'", "non-finite"}));
  GaussianMoments<Scalar> bad{Vec<Scalar>::Zero(3), Mat<Scalar>::Identity(2, 2)};
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { moments_to_natural(bad); },
                                                       {"'q'", "does not match its mean"}));
  GaussianNatural<Scalar> eta(Vec<Scalar>::Zero(2), Mat<Scalar>::Identity(2, 2));  // η₂ ≻ 0: not in Ω
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { natural_to_moments(eta); },
                                                   {"ngvi::natural_to_moments", "'-2*eta.eta2'", "not positive definite"}));
  GaussianExpectation<Scalar> mu(Vec<Scalar>::Ones(2), Mat<Scalar>::Identity(2, 2));  // μ₂ − μ₁μ₁ᵀ singular-indefinite
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { expectation_to_natural(mu); },
                                                   {"ngvi::expectation_to_natural", "mu.mu2 - mu1*mu1^T"}));
  GaussianExpectation<Scalar> mis(Vec<Scalar>::Ones(2), Mat<Scalar>::Identity(3, 3));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { expectation_to_moments(mis); }, {"'mu'", "matrix part"}));
}

}}  // namespace
}  // namespace ngvi
