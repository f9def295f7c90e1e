// The NGD step η ← (1 − γ)η + γ(η_p + ĝ) (optim/natural_update.hpp on the Gaussian pair, the
// update NgdStepper makes) and Theorem 1's iterate average (optim/averaging.hpp).
#include <gtest/gtest.h>

#include "ngvi/expfam.hpp"
#include "ngvi/optim/averaging.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
class NgdStep : public ::testing::Test {};
TYPED_TEST_SUITE(NgdStep, test::Scalars);

// With γ = 1 the step lands exactly on η_p + ĝ; with γ = 1/2 it is the midpoint (dyadic, exact).
TYPED_TEST(NgdStep, IsTheConvexCombination) {
  using Scalar = TypeParam;
  data::Rng rng(5);
  const auto q = data::cast_moments<Scalar>(data::random_gaussian(3, 10, rng));
  const auto p = data::cast_moments<Scalar>(data::random_gaussian(3, 10, rng));
  const auto eta0 = moments_to_natural(q);
  const auto eta_p = moments_to_natural(p);
  GaussianPair<Scalar> g{Vec<Scalar>::Ones(3), Scalar(-0.25) * Mat<Scalar>::Identity(3, 3)};
  auto eta = eta0;
  natural_update(eta, eta_p, g, Scalar(1));
  EXPECT_EQ(eta.eta1(), Vec<Scalar>(eta_p.eta1() + g.first));
  EXPECT_EQ(eta.eta2(), Mat<Scalar>(eta_p.eta2() + g.second));
  eta = eta0;
  natural_update(eta, eta_p, g, Scalar(0.5));
  EXPECT_EQ(eta.eta2(), Mat<Scalar>(Scalar(0.5) * eta0.eta2() + Scalar(0.5) * (eta_p.eta2() + g.second)));
  EXPECT_TRUE(in_natural_domain(eta));
}

// At a γ that is not dyadic, on symmetric inputs, every entry of the result in both triangles is
// the formula (1 − γ)η + γ(η_p + ĝ) evaluated on its own. Software scalars compute the lower
// triangle and mirror it, and their arithmetic is not contracted, so their entries must be the
// formula's exactly; in hardware floating point the compiler may fuse a multiply-add in one
// evaluation and not in the other, so the budget there is γ₄ (four roundings per entry). In both,
// the result is exactly symmetric.
TYPED_TEST(NgdStep, EveryEntryIsTheFormulasOnSymmetricInputs) {
  using Scalar = TypeParam;
  using std::abs;
  constexpr bool kExact = !std::is_floating_point_v<Scalar>;
  data::Rng rng(6);
  for (Index d : {1, 4, 9}) {
    const auto eta0 = moments_to_natural(data::cast_moments<Scalar>(data::random_gaussian(d, 100, rng)));
    const auto eta_p = moments_to_natural(data::cast_moments<Scalar>(data::random_gaussian(d, 100, rng)));
    const auto gq = data::cast_moments<Scalar>(data::random_gaussian(d, 10, rng));
    const GaussianPair<Scalar> g{gq.mean, Mat<Scalar>(Scalar(-1) * gq.cov)};
    const Scalar gamma = Scalar(1) / Scalar(3);
    const Scalar keep = Scalar(1) - gamma;
    auto eta = eta0;
    natural_update(eta, eta_p, g, gamma);
    auto formula = [&](const Scalar& e, const Scalar& p, const Scalar& gh) { return keep * e + gamma * (p + gh); };
    auto check = [&](const Scalar& got, const Scalar& e, const Scalar& p, const Scalar& gh) {
      const Scalar want = formula(e, p, gh);
      if constexpr (kExact) return got == want;
      // γ₄ of the terms' magnitudes: each term is within (1 + u)^4 of its exact value.
      return abs(got - want) <= gamma_n<Scalar>(4) * (abs(keep * e) + abs(gamma * (p + gh)) + abs(gamma * p) + abs(gamma * gh));
    };
    for (Index j = 0; j < d; ++j) {
      EXPECT_TRUE(check(eta.eta1()(j), eta0.eta1()(j), eta_p.eta1()(j), g.first(j))) << d << " " << j;
      for (Index i = 0; i < d; ++i) {
        EXPECT_TRUE(check(eta.eta2()(i, j), eta0.eta2()(i, j), eta_p.eta2()(i, j), g.second(i, j))) << d << " " << i << " " << j;
        EXPECT_EQ(eta.eta2()(i, j), eta.eta2()(j, i));
      }
    }
  }
}

// A step with γ > 1 may leave Ω: the update does not hide it, and the domain test finds it.
TYPED_TEST(NgdStep, AStepBeyondOneCanLeaveTheDomain) {
  using Scalar = TypeParam;
  const GaussianNatural<Scalar> prior(Vec<Scalar>::Zero(2), Scalar(-0.5) * Mat<Scalar>::Identity(2, 2));
  GaussianPair<Scalar> push{Vec<Scalar>::Zero(2), Scalar(0.5) * Mat<Scalar>::Identity(2, 2)};
  GaussianNatural<Scalar> e2 = prior;
  natural_update(e2, GaussianNatural<Scalar>(Vec<Scalar>::Zero(2), Mat<Scalar>::Zero(2, 2)), push, Scalar(2));
  // η₂ = −(−½ I) + 2·(½ I) = 1.5 I: −2η₂ is negative definite.
  EXPECT_EQ(e2.eta2(), Mat<Scalar>(Scalar(1.5) * Mat<Scalar>::Identity(2, 2)));
  EXPECT_FALSE(in_natural_domain(e2));
}

// Theorem 1's average (2/(T(T+1))) Σ t μ_t, compared with the explicit sum. μ_t's second block is
// symmetric with distinct entries, so a slip in which triangle the average keeps (it averages the
// lower one and mirrors it) shows.
TYPED_TEST(NgdStep, LinearWeightAverageMatchesExplicitSum) {
  using Scalar = TypeParam;
  IterateAverage<Scalar> avg;
  GaussianPair<Scalar> sum{Vec<Scalar>::Zero(3), Mat<Scalar>::Zero(3, 3)};
  const long T = 9;
  for (long t = 1; t <= T; ++t) {
    GaussianPair<Scalar> mu{Vec<Scalar>::Constant(3, Scalar(t)), Mat<Scalar>(3, 3)};
    for (Index i = 0; i < 3; ++i)
      for (Index j = 0; j < 3; ++j) mu.second(i, j) = Scalar(t * t + (i + 1) * (j + 1) * t + (i + j) * (i + j));
    avg.add(mu);
    sum += Scalar(t) * mu;
  }
  sum *= Scalar(2) / Scalar(T * (T + 1));
  const auto v = avg.value();
  EXPECT_TRUE(test::mat_rel_close<Scalar>(v.mu1(), sum.first, rounding_budget<Scalar>(4 * T)));
  EXPECT_TRUE(test::mat_rel_close<Scalar>(v.mu2(), sum.second, rounding_budget<Scalar>(4 * T)));
  EXPECT_EQ(v.mu2(), v.mu2().transpose());
  EXPECT_EQ(avg.count(), T);
  IterateAverage<Scalar> empty;
  EXPECT_THROW(empty.value(), std::logic_error);
}

// add_moments(m, S) averages μ = (m, S + mmᵀ) without forming it. Compared with the explicit
// weighted sum of the formed pairs, at d = 3 (the whole-matrix pass at a compile-time order in
// double), d = 20 (the whole-matrix pass at a run-time order) and d = 40 (the lower-triangle pass),
// where S has distinct entries so that a slip in a triangle or in the mmᵀ term's indices shows; a
// wrong shape is rejected naming the argument and leaves the count alone.
TYPED_TEST(NgdStep, AverageOfMomentsMatchesTheExplicitSumOfFormedPairs) {
  using Scalar = TypeParam;
  for (Index d : {Index(3), Index(20), Index(40)}) {
    IterateAverage<Scalar> avg;
    GaussianPair<Scalar> sum{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
    const long T = 7;
    for (long t = 1; t <= T; ++t) {
      Vec<Scalar> m(d);
      Mat<Scalar> cov(d, d);
      for (Index i = 0; i < d; ++i) {
        m(i) = Scalar(t - 3 * i) / Scalar(5);
        for (Index j = 0; j < d; ++j) cov(i, j) = Scalar(t * t + (i + 1) * (j + 1) * t + (i + j) * (i + j));
      }
      avg.add_moments(m, cov);
      Mat<Scalar> mu2 = cov;
      for (Index j = 0; j < d; ++j)
        for (Index i = 0; i < d; ++i) mu2(i, j) += m(i) * m(j);
      sum.first += Scalar(t) * m;
      sum.second += Scalar(t) * mu2;
    }
    sum.first *= Scalar(2) / Scalar(T * (T + 1));
    sum.second *= Scalar(2) / Scalar(T * (T + 1));
    const auto v = avg.value();
    EXPECT_TRUE(test::mat_rel_close<Scalar>(v.mu1(), sum.first, rounding_budget<Scalar>(4 * T))) << "d " << d;
    EXPECT_TRUE(test::mat_rel_close<Scalar>(v.mu2(), sum.second, rounding_budget<Scalar>(6 * T))) << "d " << d;
    EXPECT_EQ(v.mu2(), v.mu2().transpose()) << "d " << d;
    EXPECT_TRUE(test::throws_with<std::invalid_argument>(
        [&] { avg.add_moments(Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d + 1)); }, {"add_moments", "'cov'"}));
    EXPECT_TRUE(test::throws_with<std::invalid_argument>(
        [&] { avg.add_moments(Vec<Scalar>::Zero(d + 1), Mat<Scalar>::Zero(d + 1, d + 1)); }, {"add_moments", "'mean'"}));
    EXPECT_EQ(avg.count(), T);
  }
}

}}  // namespace
}  // namespace ngvi
