// Remark 2 as a property (docs/math.md §3.1, §5.2): for random SPD priors, random regression data,
// random batch sizes and a random valid current iterate, one eq. (15) NGD step with γ ∈ (0, 1]
// keeps −η₂ ≻ 0. For γ ∈ (1, 2] the property is false: RapidCheck must find (and shrink) a
// counterexample, which the second test expects.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "generators.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/optim/natural_update.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

struct StepCase {
  gen::SpdSpec prior;
  Index n;
  Index batch;
  double cov_floor;     // smallest eigenvalue of the current covariance
  std::uint64_t seed;
};

rc::Gen<StepCase> step_case() {
  return rc::gen::apply(
      [](gen::SpdSpec p, Index n, Index m, double lf, std::uint64_t seed) {
        return StepCase{p, n, std::min(m, n), std::ldexp(1.0, -static_cast<int>(lf)), seed};
      },
      gen::spd_spec(1, 6, 1e6), rc::gen::inRange<Index>(1, 40), rc::gen::inRange<Index>(1, 16),
      gen::dyadic(0.0, 10.0, 0), rc::gen::arbitrary<std::uint64_t>());
}

// One step from a random valid iterate; true when the result stays in Ω.
bool step_stays_valid(const StepCase& c, double gamma) {
  const Index d = c.prior.d;
  const Mat<double> sp = gen::spd_from<double>(c.prior);
  const LinearRegression<double> model(data::synthetic_regression(c.n, d, 1.0, 0.5, c.seed), sp, 0.5);
  data::Rng rng(c.seed + 1);
  GaussianMoments<double> q{data::gaussian_vector(d, rng), data::random_spd(d, 1e2, rng, c.cov_floor)};
  GaussianNatural<double> eta = moments_to_natural(q);
  MinibatchGradient<double> est(model, c.batch);
  random::Stream s(c.seed, 0);
  const auto g = est(s);
  natural_update(eta, model.prior_natural(), g, gamma);
  return in_natural_domain(eta);
}

RC_GTEST_PROP(NgdProperties, UpdateStaysInDomainForGammaUpToOne, ()) {
  const auto c = *step_case();
  const double gamma = *gen::dyadic(0.0, 1.0, 10).as("gamma");
  RC_PRE(gamma > 0.0);
  RC_CLASSIFY(c.prior.kappa > 1e3, "ill-conditioned prior");
  RC_CLASSIFY(c.batch < c.prior.d, "M < d (rank-deficient batch)");
  RC_ASSERT(step_stays_valid(c, gamma));
}

TEST(NgdProperties, GammaAboveOneHasAShrunkCounterexample) {
  const bool holds = rc::check("NGD update stays in Omega for gamma in (1, 2]", [] {
    const auto c = *step_case();
    const double gamma = *gen::dyadic(1.0, 2.0, 10).as("gamma");
    RC_PRE(gamma > 1.0);
    RC_ASSERT(step_stays_valid(c, gamma));
  });
  EXPECT_FALSE(holds) << "RapidCheck found no step with gamma > 1 that leaves Omega";
}

}}  // namespace
}  // namespace ngvi
