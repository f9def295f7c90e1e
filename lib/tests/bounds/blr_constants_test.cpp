// Lemma 3's data constants (bounds/blr_constants.hpp): the data-moment forms lie below their
// data-maximum forms, λ ∈ (0, 1], Theorem 1's bound at a hand-checked point; bad input is named.
#include "ngvi/bounds/blr_constants.hpp"

#include <gtest/gtest.h>

#include "ngvi/data/synthetic_regression.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

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

}}  // namespace
}  // namespace ngvi
