// Gradient routes (estimators/gradient_route.hpp): the shipped routes satisfy the concept; a caller's
// own route type runs the library's non-conjugate NGD without naming it in any enum, and the run
// takes that route and no other. Reference: the conjugate posterior of a quadratic log-likelihood in
// closed form, written out here.
#include <string_view>

#include "ngvi/estimators/gradient_route.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"
#include "ngvi/scalar/budget.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

// ℓ(z) = −½(z − c)ᵀA(z − c): a Gaussian likelihood, so q ∝ prior · exp ℓ is Gaussian.
struct QuadraticLogLik {
  Mat<double> a;
  Vec<double> c;
  LogLikDerivatives<double> operator()(const Vec<double>& z, bool with_hessian) const {
    const Vec<double> r = z - c;
    LogLikDerivatives<double> d{-0.5 * r.dot(a * r), -(a * r), Mat<double>()};
    if (with_hessian) d.hess = -a;
    return d;
  }
};

// A caller's route: E_q[∇ℓ] = −A(m − c) and E_q[∇²ℓ] = −A in closed form, so Price's ĝ = (ḡ − H̄m, ½H̄)
// is (Ac, −A/2) whatever the draws; NGD with γ = 1 then lands on the posterior in one step.
struct ClosedFormQuadraticRoute {
  static constexpr std::string_view name = "closed-form-quadratic";
  static constexpr bool needs_lower_inverse = false;
  template <class Scalar, class LogLik>
  static void natural_into(const LogLik& ll, const Vec<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&,
                           MonteCarloScratch<Scalar>&, GaussianPair<Scalar>& g) {
    g.first = ll.a * ll.c;
    g.second = -ll.a / Scalar(2);
  }
  template <class Scalar, class LogLik>
  static SqrtParamGradient<Scalar> mL_from(const LogLik& ll, const Vec<Scalar>& m, const Mat<Scalar>& l, const Mat<Scalar>&) {
    return {-(ll.a * (m - ll.c)), Mat<Scalar>((-(ll.a * l)).template triangularView<Eigen::Lower>())};
  }
};

struct NoSquareRootForm {
  static constexpr std::string_view name = "natural only";
  static constexpr bool needs_lower_inverse = false;
  template <class Scalar, class LogLik>
  static void natural_into(const LogLik&, const Vec<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&, const Mat<Scalar>&,
                           MonteCarloScratch<Scalar>&, GaussianPair<Scalar>&) {}
};

static_assert(GaussianGradientRoute<PriceRoute, double, QuadraticLogLik>);
static_assert(GaussianGradientRoute<ReparamRoute, double, QuadraticLogLik>);
static_assert(GaussianGradientRoute<ClosedFormQuadraticRoute, double, QuadraticLogLik>);
static_assert(!GaussianGradientRoute<NoSquareRootForm, double, QuadraticLogLik>);

TEST(GradientRoute, ACallersRouteRunsTheLibrarysNgd) {
  const Index d = 3;
  Mat<double> a(d, d);
  a << 2.0, 0.5, 0.0, 0.5, 1.5, -0.25, 0.0, -0.25, 1.0;
  const QuadraticLogLik ll{a, Vec<double>::LinSpaced(d, -1.0, 2.0)};
  const GaussianMoments<double> prior{Vec<double>::Constant(d, 0.5), Mat<double>::Identity(d, d) * 4.0};
  // The posterior's natural parameters: Λ = Λ_p + A, Λm = Λ_p m_p + Ac.
  const Mat<double> lambda_p = Mat<double>::Identity(d, d) / 4.0;
  const Vec<double> eta1 = lambda_p * prior.mean + a * ll.c;
  const Mat<double> eta2 = -(lambda_p + a) / 2.0;
  // A few roundings per entry: one length-d product, one sum, the halving (exact), the update's two.
  const double tol = rounding_budget<double>(d + 4);

  const auto schedule = StepSchedule<double>::constant(1.0);
  random::Stream rng(3, 1);
  const auto run = ngd_nonconjugate(ll, prior, prior, schedule, 4, 1, rng, GradientRoute<double, QuadraticLogLik>::of<ClosedFormQuadraticRoute>());
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(test::mat_rel_close<double>(run.last.eta1(), eta1, tol));
  EXPECT_TRUE(test::mat_rel_close<double>(run.last.eta2(), eta2, tol));

  // The shipped Price route on the same problem, same draws: its ĝ₁ carries the draws' noise
  // −A(z̄ − m), so the run differs from the posterior; the caller's route was the one taken.
  random::Stream rng2(3, 1);
  const auto price = ngd_nonconjugate(ll, prior, prior, schedule, 4, 1, rng2, PriceRoute::name);
  ASSERT_TRUE(price.ok());
  EXPECT_FALSE(test::mat_rel_close<double>(price.last.eta1(), eta1, tol));
  EXPECT_TRUE(test::mat_rel_close<double>(price.last.eta2(), eta2, tol));  // H̄ = −A exactly: no noise

  // By name, the shipped routes are the route types' (their functions, not only their names); a name
  // no shipped route has is one error naming it and listing the shipped ones.
  const auto by_name = route_of<double, QuadraticLogLik>(PriceRoute::name);
  EXPECT_EQ(by_name.name, PriceRoute::name);
  EXPECT_EQ(by_name.natural_into, (GradientRoute<double, QuadraticLogLik>::of<PriceRoute>().natural_into));
  const auto reparam = route_of<double, QuadraticLogLik>(ReparamRoute::name);
  EXPECT_EQ(reparam.name, ReparamRoute::name);
  EXPECT_EQ(reparam.mL_from, (GradientRoute<double, QuadraticLogLik>::of<ReparamRoute>().mL_from));
  EXPECT_EQ(shipped_route_names(), "price, reparam");
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { (void)route_of<double, QuadraticLogLik>("bonnet"); },
                                                       {"'bonnet'", "price, reparam"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>(
      [&] { MonteCarloGradient<double, QuadraticLogLik>(ll, d, 4, rng, GradientRoute<double, QuadraticLogLik>{}); }, {"'route'"}));
}

}  // namespace NGVI_UNITY_ID
}  // namespace
}  // namespace ngvi
