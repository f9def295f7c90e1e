#include <gtest/gtest.h>

#include <boost/math/constants/constants.hpp>

#include "ngvi/expfam/entropy.hpp"
#include "ngvi/expfam/log_partition.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class LogPartition : public ::testing::Test {};
TYPED_TEST_SUITE(LogPartition, test::Scalars);

// d = 1, q = N(m, s): A = m²/(2s) + ½ log s + ½ log 2π and A* = −½ log s − ½ − ½ log 2π, written out
// by hand in mp100 (an independent route) and compared in the scalar under test.
TYPED_TEST(LogPartition, OneDimensionalClosedForms) {
  using Scalar = TypeParam;
  for (const auto& [m, s] : {std::pair{0.5, 2.0}, std::pair{-3.0, 0.125}, std::pair{10.0, 1e6}}) {
    const mp100 m100(m), s100(s);
    const mp100 two_pi = boost::math::constants::two_pi<mp100>();
    const mp100 a_ref = m100 * m100 / (2 * s100) + log(s100) / 2 + log(two_pi) / 2;
    const mp100 ac_ref = -log(s100) / 2 - mp100(1) / 2 - log(two_pi) / 2;
    GaussianMoments<Scalar> q{Vec<Scalar>::Constant(1, Scalar(m)), Mat<Scalar>::Constant(1, 1, Scalar(s))};
    const auto eta = moments_to_natural(q);
    const auto mu = moments_to_expectation(q);
    const Scalar tol = rounding_budget<Scalar>(20, Scalar(1 + m * m / s));
    EXPECT_TRUE(test::rel_close<Scalar>(log_partition(eta), Scalar(a_ref), tol));
    EXPECT_TRUE(test::rel_close<Scalar>(conjugate_log_partition(mu), Scalar(ac_ref), tol));
    EXPECT_TRUE(test::rel_close<Scalar>(entropy(q), Scalar(-ac_ref), tol));
  }
}

TYPED_TEST(LogPartition, EntropyIsMinusConjugate) {
  using Scalar = TypeParam;
  data::Rng rng(3);
  const auto q = data::cast_moments<Scalar>(data::random_gaussian(5, 1e3, rng));
  const Scalar tol = rounding_budget<Scalar>(60, Scalar(1e3));
  EXPECT_TRUE(test::rel_close<Scalar>(entropy(q), -conjugate_log_partition(moments_to_expectation(q)), tol));
}

TYPED_TEST(LogPartition, RejectsPointsOutsideTheDomain) {
  using Scalar = TypeParam;
  GaussianNatural<Scalar> eta(Vec<Scalar>::Zero(2), Mat<Scalar>::Zero(2, 2));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { log_partition(eta); }, {"ngvi::log_partition", "eta2"}));
  GaussianExpectation<Scalar> mu(Vec<Scalar>::Zero(2), -Mat<Scalar>::Identity(2, 2));
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { conjugate_log_partition(mu); },
                                                   {"ngvi::conjugate_log_partition", "not positive definite"}));
}

}}  // namespace
}  // namespace ngvi
