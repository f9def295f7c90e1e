// The Dirichlet family's Newton inverse of the digamma map (tolerance, iteration report, failure and
// the error it names) and its KL against numerical integration in the Beta case.
#include <gtest/gtest.h>

#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <Eigen/Eigenvalues>

#include "ngvi/expfam/dirichlet.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class DirichletNewton : public ::testing::Test {};
TYPED_TEST_SUITE(DirichletNewton, test::Scalars);

// The solve stops at the stated tolerance, and the residual it reports is the true one: recomputed
// in mp100 at the returned α (cast exactly), it is within the reported residual plus the rounding
// of the working-precision evaluation (4γ₁₆ of the terms, as in dirichlet_newton_tolerance).
TYPED_TEST(DirichletNewton, StopsAtTheStatedTolerance) {
  using Scalar = TypeParam;
  using std::abs;
  const double cases[3][4] = {{0.5, 0.5, 0.5, 0.5}, {0.125, 3, 40, 1}, {64, 96, 32, 100}};
  for (const auto& c : cases) {
    DirichletFamily<Scalar> f(4);
    Vec<Scalar> alpha(4);
    for (Index i = 0; i < 4; ++i) alpha(i) = Scalar(c[i]);
    const Vec<Scalar> mu = f.to_mean(alpha);
    const auto rep = f.to_natural_report(mu);
    EXPECT_TRUE(rep.residual <= rep.tolerance) << to_double(rep.residual) << " > " << to_double(rep.tolerance);
    EXPECT_GE(rep.iterations, 1);
    EXPECT_LE(rep.iterations, f.max_newton_iterations());
    const Vec<mp100> a100 = cast_flat<mp100>(rep.alpha);
    const mp100 psi0 = boost::math::digamma(mp100(a100.sum()));
    mp100 worst(0);
    for (Index i = 0; i < 4; ++i) {
      const mp100 r = abs(mp100(mu(i)) - (boost::math::digamma(a100(i)) - psi0));
      worst = r > worst ? r : worst;
    }
    EXPECT_TRUE(worst <= mp100(rep.residual + rep.tolerance)) << to_double(worst);
  }
}

// A cap of one Newton step cannot reach the tolerance from Minka's start on a far-from-uniform α:
// the error names 'mu' and says why.
TYPED_TEST(DirichletNewton, FailureNamesTheArgument) {
  using Scalar = TypeParam;
  DirichletFamily<Scalar> f(3, /*max_newton_iterations=*/1);
  Vec<Scalar> alpha(3);
  alpha << Scalar(0.125), Scalar(20), Scalar(1);
  const Vec<Scalar> mu = DirichletFamily<Scalar>(3).to_mean(alpha);
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { f.to_natural(mu); },
                                                   {"ngvi::DirichletFamily::to_natural", "'mu'", "did not reach", "1 steps"}));
  EXPECT_TRUE(test::throws_with<std::domain_error>([] { DirichletFamily<Scalar>(3, 0); }, {"'max_newton_iterations'"}));
}

// Near the boundary of M (a Dirichlet close to a point mass, α₀ = 2^20): the solve still converges.
TYPED_TEST(DirichletNewton, ConcentratedDirichlet) {
  using Scalar = TypeParam;
  DirichletFamily<Scalar> f(3);
  Vec<Scalar> alpha(3);
  alpha << Scalar(1 << 18), Scalar(1 << 19), Scalar(1 << 18);
  const auto rep = f.to_natural_report(f.to_mean(alpha));
  EXPECT_TRUE(rep.residual <= rep.tolerance);
  // α moves by ‖F⁻¹r‖ ≤ ‖F⁻¹‖₂√K‖r‖_∞; ‖F⁻¹‖₂ (about α₀², the concentration is poorly determined)
  // from Boost's trigamma in double, with the rounding of the final α (4γ₄) on top.
  Mat<double> fm = Mat<double>::Constant(3, 3, -boost::math::trigamma(double(1 << 20)));
  for (Index i = 0; i < 3; ++i) fm(i, i) += boost::math::trigamma(to_double(alpha(i)));
  const double finv = 1 / Eigen::SelfAdjointEigenSolver<Mat<double>>(fm).eigenvalues().minCoeff();
  const Scalar rel = Scalar((rep.alpha - alpha).norm() / alpha.norm());
  // Factor 2: the given μ is itself rounded, by less than the tolerance.
  const Scalar bound = Scalar(2 * finv * std::sqrt(3.0)) * rep.tolerance / Scalar(alpha.norm()) + rounding_budget<Scalar>(4);
  EXPECT_TRUE(rel <= bound) << to_double(rel) << " vs " << to_double(bound);
}

// KL(Beta(a) ‖ Beta(b)) by tanh-sinh quadrature of q log(q/p) on (0, 1) in double (integrable
// endpoint singularities for a < 1 are what tanh-sinh is for), against the family's closed form.
// Tolerance: the quadrature's own error estimate plus 4γ_64 of the integral's L1 norm.
TEST(DirichletKl, BetaMatchesNumericalIntegration) {
  const double cases[3][4] = {{0.5, 2, 3, 1.5}, {4, 4, 1, 1}, {2.5, 0.75, 0.75, 2.5}};
  boost::math::quadrature::tanh_sinh<double> integrator;
  for (const auto& c : cases) {
    const double a1 = c[0], a2 = c[1], b1 = c[2], b2 = c[3];
    const double lba = std::log(boost::math::beta(a1, a2)), lbb = std::log(boost::math::beta(b1, b2));
    // tanh_sinh's second argument is the signed distance to the nearer endpoint: 0 − x (≤ 0) on the
    // left half, 1 − x (> 0, accurate near 1) on the right half.
    auto integrand = [&](double x, double xc) {
      const double x1 = xc > 0 ? xc : 1 - x;  // 1 − x, exact on the left half (x ≤ ½, Sterbenz)
      const double lq = (a1 - 1) * std::log(x) + (a2 - 1) * std::log(x1) - lba;
      const double lp = (b1 - 1) * std::log(x) + (b2 - 1) * std::log(x1) - lbb;
      return std::exp(lq) * (lq - lp);
    };
    double err = 0, l1 = 0;
    const double kl_quad = integrator.integrate(integrand, 0.0, 1.0, std::sqrt(eps<double>()), &err, &l1);
    DirichletFamily<double> f(2);
    Vec<double> a(2), b(2);
    a << a1, a2;
    b << b1, b2;
    const double kl = f.kl(a, b);
    const double tol = err + rounding_budget<double>(64) * l1;
    EXPECT_TRUE(std::abs(kl - kl_quad) <= tol) << kl << " vs " << kl_quad << " tol " << tol;
    EXPECT_TRUE(std::abs(f.bregman_conjugate(f.to_mean(a), f.to_mean(b)) - kl_quad) <= tol);
  }
}

}}  // namespace
}  // namespace ngvi
