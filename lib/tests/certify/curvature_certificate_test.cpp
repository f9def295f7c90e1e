// Unit tests of the MPFI curvature certificates: the enclosure contains an independently computed
// value (closed form in mp50 for Poisson; the model's Gauss–Hermite value for logistic, widened by
// its computed quadrature bound), the verdict follows the sign of the exact upper end, and bad
// input is rejected with the argument named.
#include <gtest/gtest.h>

#include "ngvi/certify/curvature_certificate.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

GaussianPair<double> e_mu1() { return GaussianPair<double>{Vec<double>::Ones(1), Mat<double>::Zero(1, 1)}; }

TEST(CurvatureCertificate, PoissonEnclosesTheClosedForm) {
  // d = 1, x = 1, q = N(1, 1): vᵀHv along e_{μ₁} = 3 − e^{3/2} (docs/math.md §6.2).
  const auto c = certify::certify_poisson_curvature(Mat<double>::Ones(1, 1), Vec<double>::Ones(1), Vec<double>::Ones(1), e_mu1());
  using std::exp;
  const mp50 exact = mp50(3) - exp(mp50(3) / 2);
  EXPECT_TRUE(c.negative);
  EXPECT_LE(mp50(c.lo), exact);
  EXPECT_GE(mp50(c.hi), exact);
  EXPECT_NE(c.describe().find("certified negative"), std::string::npos);
}

TEST(CurvatureCertificate, LogisticEnclosesTheModelAndFollowsTheSign) {
  const GaussianPair<double> v{Vec<double>::Zero(2), Mat<double>::Constant(2, 2, 0.5)};
  for (Index n : {40, 20}) {
    const auto c = certify::certify_logistic_curvature(Mat<double>::Ones(n, 2), Vec<double>::Zero(2), Vec<double>::Constant(2, 0.5), v, 256, 8.0);
    const auto model = make_logistic_regression(Dataset<double>{Mat<double>::Ones(n, 2), Vec<double>::Ones(n)}, standard_normal_prior<double>(2));
    const double val = model.hessian_quadratic_form(moments_to_expectation(GaussianMoments<double>{Vec<double>::Zero(2), Mat<double>(0.5 * Mat<double>::Identity(2, 2))}), v);
    const double quad = static_cast<double>(n) * model.family().quadrature_error_bound(1.0, 0.0, 1.0).e4;
    EXPECT_LE(c.lo, val + quad);
    EXPECT_GE(c.hi, val - quad);
    EXPECT_EQ(c.negative, n == 40);  // −0.496 for n = 40, +0.75 for n = 20
  }
}

TEST(CurvatureCertificate, BadInputNamesTheArgument) {
  EXPECT_TRUE(test::throws_with<std::domain_error>(
      [] { certify::certify_poisson_curvature(Mat<double>::Ones(1, 1), Vec<double>::Ones(1), Vec<double>::Zero(1), e_mu1()); },
      {"certify_poisson_curvature", "'s'", "positive"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>(
      [] { certify::certify_logistic_curvature(Mat<double>::Ones(1, 1), Vec<double>::Ones(1), Vec<double>::Ones(1), e_mu1(), 3); },
      {"certify_logistic_curvature", "'cells'"}));
  Mat<double> x = Mat<double>::Ones(1, 1);
  x(0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(test::throws_with<std::domain_error>(
      [&] { certify::certify_poisson_curvature(x, Vec<double>::Ones(1), Vec<double>::Ones(1), e_mu1()); }, {"certify_poisson_curvature", "X"}));
}

}}  // namespace
}  // namespace ngvi
