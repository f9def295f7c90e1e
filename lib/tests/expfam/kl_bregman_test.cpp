#include <gtest/gtest.h>

#include <type_traits>

#include "ngvi/expfam/bregman.hpp"
#include "ngvi/expfam/kl.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class KlBregman : public ::testing::Test {};
TYPED_TEST_SUITE(KlBregman, test::Scalars);

// d = 1 closed form written by hand: KL = ½(s0/s1 + (m1−m0)²/s1 − 1 + log(s1/s0)).
TYPED_TEST(KlBregman, OneDimensionalClosedForm) {
  using Scalar = TypeParam;
  using std::log;
  const Scalar m0(1), s0(2), m1(-0.5), s1(0.25);
  const Scalar ref = (s0 / s1 + (m1 - m0) * (m1 - m0) / s1 - Scalar(1) + log(s1 / s0)) / 2;
  GaussianMoments<Scalar> q{Vec<Scalar>::Constant(1, m0), Mat<Scalar>::Constant(1, 1, s0)};
  GaussianMoments<Scalar> p{Vec<Scalar>::Constant(1, m1), Mat<Scalar>::Constant(1, 1, s1)};
  EXPECT_TRUE(test::rel_close<Scalar>(kl_gaussian(q, p), ref, rounding_budget<Scalar>(16, Scalar(8))));
}

TYPED_TEST(KlBregman, ZeroOnlyAtEquality) {
  using Scalar = TypeParam;
  using std::abs;
  data::Rng rng(11);
  const auto q = data::cast_moments<Scalar>(data::random_gaussian(4, 1e2, rng));
  const Scalar kl_self = kl_gaussian(q, q);
  const Scalar tol = rounding_budget<Scalar>(40, Scalar(1e2)) * Scalar(4);  // d terms of size ≤ 1 each
  EXPECT_TRUE(abs(kl_self) <= tol) << to_double(kl_self);
  EXPECT_TRUE(abs(bregman_conjugate(moments_to_expectation(q), moments_to_expectation(q))) <= tol * Scalar(100));
  auto p = q;
  p.mean(0) += Scalar(0.5);
  EXPECT_GT(kl_gaussian(q, p), tol);
}

TYPED_TEST(KlBregman, NaturalAndExpectationOverloadsAgree) {
  using Scalar = TypeParam;
  data::Rng rng(12);
  const auto q = data::cast_moments<Scalar>(data::random_gaussian(3, 10, rng));
  const auto p = data::cast_moments<Scalar>(data::random_gaussian(3, 10, rng));
  const Scalar ref = kl_gaussian(q, p);
  const Scalar tol = rounding_budget<Scalar>(40, Scalar(1e3));
  EXPECT_TRUE(test::rel_close<Scalar>(kl_gaussian(moments_to_natural(q), moments_to_natural(p)), ref, tol));
  EXPECT_TRUE(test::rel_close<Scalar>(kl_gaussian(moments_to_expectation(q), moments_to_expectation(p)), ref, tol));
}

TYPED_TEST(KlBregman, DimensionMismatchIsAnError) {
  using Scalar = TypeParam;
  GaussianMoments<Scalar> q{Vec<Scalar>::Zero(2), Mat<Scalar>::Identity(2, 2)};
  GaussianMoments<Scalar> p{Vec<Scalar>::Zero(3), Mat<Scalar>::Identity(3, 3)};
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { kl_gaussian(q, p); }, {"ngvi::kl_gaussian", "'p'", "dimension"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>(
      [&] { bregman_conjugate(moments_to_expectation(q), moments_to_expectation(p)); }, {"'mu_ref'"}));
}

// The factored form against the same hand-written d = 1 closed form, its errors naming the caller's
// function and argument, and the temporary it would dangle on refused at compile time.
TYPED_TEST(KlBregman, FactoredFormClosedFormAndErrors) {
  using Scalar = TypeParam;
  using std::log;
  const Scalar m0(1), s0(2), m1(-0.5), s1(0.25);
  const Scalar ref = (s0 / s1 + (m1 - m0) * (m1 - m0) / s1 - Scalar(1) + log(s1 / s0)) / 2;
  const GaussianMoments<Scalar> q{Vec<Scalar>::Constant(1, m0), Mat<Scalar>::Constant(1, 1, s0)};
  const GaussianMoments<Scalar> p{Vec<Scalar>::Constant(1, m1), Mat<Scalar>::Constant(1, 1, s1)};
  const FactoredGaussian<Scalar> fq(q, "caller", "q"), fp(p, "caller", "p");
  EXPECT_TRUE(test::rel_close<Scalar>(kl_gaussian(fq, fp), ref, rounding_budget<Scalar>(16, Scalar(8))));
  const GaussianMoments<Scalar> bad{Vec<Scalar>::Zero(1), Mat<Scalar>::Constant(1, 1, Scalar(-1))};
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { FactoredGaussian<Scalar>(bad, "caller", "post"); }, {"caller", "'post.cov'"}));
  const GaussianMoments<Scalar> wide{Vec<Scalar>::Zero(2), Mat<Scalar>::Identity(2, 2)};
  const FactoredGaussian<Scalar> fw(wide, "caller", "w");
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { kl_gaussian(fq, fw); }, {"ngvi::kl_gaussian", "'p'", "dimension"}));
  static_assert(!std::is_constructible_v<FactoredGaussian<Scalar>, GaussianMoments<Scalar>&&, const char*, const char*>);
}

}}  // namespace
}  // namespace ngvi
