#include <gtest/gtest.h>

#include "ngvi/expfam/fisher.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class Fisher : public ::testing::Test {};
TYPED_TEST_SUITE(Fisher, test::Scalars);

// F(η) = ∇²A(η) applied to v is the directional derivative of ∇A; the reference is a central
// difference of natural_to_expectation in mp100 (step 1e-30, truncation ~1e-60·κ³).
TYPED_TEST(Fisher, ApplyMatchesDirectionalDerivativeOfGradA) {
  using Scalar = TypeParam;
  data::Rng rng(21);
  const Index d = 3;
  const double kappa = 1e2;
  const auto qd = data::random_gaussian(d, kappa, rng);
  const auto eta_d = moments_to_natural(qd);
  GaussianPair<double> v{data::gaussian_vector(d, rng), symmetrise(data::gaussian_matrix(d, d, rng))};
  const GaussianNatural<mp100> eta100(data::cast_pair<mp100>(eta_d));
  const GaussianPair<mp100> v100 = data::cast_pair<mp100>(v);
  const mp100 h("1e-30");
  GaussianNatural<mp100> plus = eta100, minus = eta100;
  plus += h * v100;
  minus -= h * v100;
  const GaussianPair<mp100> ref = (mp100(1) / (2 * h)) * (natural_to_expectation(plus) - natural_to_expectation(minus));
  const GaussianPair<Scalar> fv = fisher_apply(GaussianNatural<Scalar>(data::cast_pair<Scalar>(eta_d)), data::cast_pair<Scalar>(v));
  const GaussianPair<mp100> diff = data::cast_pair<mp100>(fv) - ref;
  using std::sqrt;
  const mp100 rel = sqrt(pair_squared_norm(diff) / pair_squared_norm(ref));
  const Scalar tol = rounding_budget<Scalar>(d * d + 4 * d + 16, Scalar(kappa * kappa * (1 + qd.mean.squaredNorm())));
  EXPECT_TRUE(Scalar(rel) <= tol) << to_double(rel);
}

// F(η)⁻¹ F(η) v = v: fisher_inverse_apply (∇²A*) inverts fisher_apply (∇²A).
TYPED_TEST(Fisher, InverseApplyInvertsApply) {
  using Scalar = TypeParam;
  data::Rng rng(22);
  const Index d = 4;
  const double kappa = 1e3;
  const auto qd = data::random_gaussian(d, kappa, rng);
  const auto q = data::cast_moments<Scalar>(qd);
  const auto eta = moments_to_natural(q);
  const auto mu = moments_to_expectation(q);
  const GaussianPair<Scalar> v = data::cast_pair<Scalar>(
      GaussianPair<double>{data::gaussian_vector(d, rng), symmetrise(data::gaussian_matrix(d, d, rng))});
  const GaussianPair<Scalar> back = fisher_inverse_apply(mu, fisher_apply(eta, v));
  using std::sqrt;
  const Scalar rel = sqrt(pair_squared_norm<Scalar>(back - v) / pair_squared_norm(v));
  const Scalar tol = rounding_budget<Scalar>(d * d + 4 * d + 16, Scalar(kappa * kappa * (1 + qd.mean.squaredNorm())));
  EXPECT_TRUE(rel == rel && rel <= tol) << to_double(rel);
}

TYPED_TEST(Fisher, RejectsAsymmetricDirection) {
  using Scalar = TypeParam;
  const GaussianNatural<Scalar> eta(Vec<Scalar>::Zero(2), Scalar(-0.5) * Mat<Scalar>::Identity(2, 2));
  GaussianPair<Scalar> v{Vec<Scalar>::Zero(2), Mat<Scalar>::Zero(2, 2)};
  v.second(0, 1) = Scalar(1);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { fisher_apply(eta, v); }, {"ngvi::fisher_apply", "'v.second'", "not symmetric"}));
  GaussianPair<Scalar> w{Vec<Scalar>::Zero(3), Mat<Scalar>::Zero(3, 3)};
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { fisher_apply(eta, w); }, {"'v'", "dimension"}));
}

}}  // namespace
}  // namespace ngvi
