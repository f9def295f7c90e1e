#include <gtest/gtest.h>

#include "ngvi/models/glm_likelihood.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class GlmLikelihood : public ::testing::Test {};
TYPED_TEST_SUITE(GlmLikelihood, test::Scalars);

template <class Scalar>
Dataset<Scalar> small_data(bool counts) {
  data::Rng rng(31);
  Dataset<double> d{data::gaussian_matrix(7, 3, rng) * 0.5, Vec<double>(7)};
  for (Index i = 0; i < 7; ++i) d.y(i) = counts ? double(i % 4) : double(i % 2);
  return cast_dataset<Scalar>(d);
}

// Gradient and Hessian against mp100 central differences of the value (step 1e-30: truncation
// ~1e-60 times third derivatives of order n·‖a‖³ ≤ 1e2, far below any scalar's epsilon here).
template <class Scalar, class F>
void check_derivatives(F loglik, const Dataset<Scalar>& data) {
  const Dataset<mp100> d100 = cast_dataset<mp100>(data);
  data::Rng rng(9);
  const Vec<double> z = data::gaussian_vector(data.d(), rng) * 0.5;
  const auto at = loglik(data, data::cast_vector<Scalar>(z), true);
  const mp100 h("1e-30");
  for (Index k = 0; k < data.d(); ++k) {
    Vec<mp100> zp = data::cast_vector<mp100>(z), zm = zp;
    zp(k) += h;
    zm(k) -= h;
    const auto lp = loglik(d100, zp, true), lm = loglik(d100, zm, true);
    const mp100 g_ref = (lp.value - lm.value) / (2 * h);
    const Vec<mp100> hcol_ref = (lp.grad - lm.grad) / (2 * h);
    const Scalar tol = rounding_budget<Scalar>(8 * data.n() * data.d(), Scalar(10));
    EXPECT_TRUE(test::rel_close<Scalar>(at.grad(k), Scalar(g_ref), tol)) << "grad " << k;
    for (Index j = 0; j < data.d(); ++j)
      EXPECT_TRUE(test::rel_close<Scalar>(at.hess(j, k), Scalar(hcol_ref(j)), tol)) << "hess " << j << "," << k;
  }
}

TYPED_TEST(GlmLikelihood, LogisticDerivativesMatchHighPrecisionDifferences) {
  check_derivatives<TypeParam>([](const auto& d, const auto& z, bool h) { return logistic_loglik(d, z, h); },
                               small_data<TypeParam>(false));
}

TYPED_TEST(GlmLikelihood, PoissonDerivativesMatchHighPrecisionDifferences) {
  check_derivatives<TypeParam>([](const auto& d, const auto& z, bool h) { return poisson_loglik(d, z, h); },
                               small_data<TypeParam>(true));
}

// softplus(u) = log(1 + e^u) against mp100: the naive formula where 1 + e^u keeps e^u's digits
// (u ≥ −100), and the series e^u − e^{2u}/2 (truncation e^{3u}/3 < 1e-130 relative) below. The
// budget carries exp's conditioning |u| (relative error of exp(u) grows like |u|·u_r).
TYPED_TEST(GlmLikelihood, SoftplusAndSigmoidAreStable) {
  using Scalar = TypeParam;
  for (double u : {-700.0, -30.0, -1.0, 0.0, 2.5, 40.0, 700.0}) {
    const mp100 e = exp(mp100(u));
    const mp100 ref = u < -100 ? mp100(e - e * e / 2) : mp100(log(mp100(1) + e));
    const Scalar tol = rounding_budget<Scalar>(8, Scalar(std::max(1.0, std::abs(u))));
    EXPECT_TRUE(test::rel_close<Scalar>(softplus(Scalar(u)), Scalar(ref), tol, Scalar(0))) << u;
    const mp100 sref = mp100(1) / (mp100(1) + exp(-mp100(u)));
    EXPECT_TRUE(test::rel_close<Scalar>(sigmoid(Scalar(u)), Scalar(sref), tol, Scalar(0))) << u;
  }
}

TYPED_TEST(GlmLikelihood, BadInputNamesTheArgument) {
  using Scalar = TypeParam;
  auto d = small_data<Scalar>(false);
  d.y(2) = Scalar(2);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { logistic_loglik(d, Vec<Scalar>(Vec<Scalar>::Zero(3))); },
                                                   {"ngvi::logistic_loglik", "'data.y'", "outside {0, 1}", "data row 3 (1-based)"}));
  auto c = small_data<Scalar>(true);
  c.y(1) = Scalar(-1);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { poisson_loglik(c, Vec<Scalar>(Vec<Scalar>::Zero(3))); },
                                                   {"ngvi::poisson_loglik", "non-negative integer", "data row 2 (1-based)"}));
  c.y(1) = Scalar(0.5);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { poisson_loglik(c, Vec<Scalar>(Vec<Scalar>::Zero(3))); }, {"data row 2 (1-based)"}));
  auto e = small_data<Scalar>(false);
  e.X(0, 0) = std::numeric_limits<Scalar>::infinity();
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { logistic_loglik(e, Vec<Scalar>(Vec<Scalar>::Zero(3))); }, {"'data.X'", "non-finite"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { logistic_loglik(small_data<Scalar>(false), Vec<Scalar>(Vec<Scalar>::Zero(2))); },
                                                       {"'z'", "expected 3"}));
  const Mat<Scalar> a = with_bias_column<Scalar>(Mat<Scalar>::Zero(2, 3));
  EXPECT_EQ(a.cols(), 4);
  EXPECT_EQ(a(1, 3), Scalar(1));
}

}}  // namespace
}  // namespace ngvi
