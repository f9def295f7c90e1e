// run_ngd_minibatch_lanes (optim/ngd_lanes.hpp): each lane against the one-replicate route
// (run_ngd with a MinibatchGradient on the same stream) within a derived rounding budget, with a
// control on shifted streams that must disagree; lanes independent of each other bitwise; streams
// advanced as the one-replicate route advances them; the gradient scale; argument errors.
#include <algorithm>
#include <Eigen/LU>
#include <cmath>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_lanes.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

LinearRegression<double> model_of(Index n, Index d, double kappa, std::uint64_t seed) {
  return LinearRegression<double>(data::synthetic_regression(n, d, kappa, 0.7, seed), Mat<double>::Identity(d, d), 0.5);
}

std::vector<random::Stream> streams_for(std::uint64_t seed, long first, long count) {
  std::vector<random::Stream> s;
  for (long r = first; r < first + count; ++r) s.emplace_back(seed, static_cast<std::uint64_t>(r));
  return s;
}

// The one-replicate route on stream (seed, r), with what the budget needs measured along it.
struct Reference {
  NgdResult<double> res;
  double eta_scale = 0;  // max over t of ‖η_t‖_F and ‖η_p‖_F + B (B bounds ‖|ĝ|‖_F for any batch)
  double cond = 1;       // max over t of ‖S_t‖_F ‖Λ_t‖_F (1 + ‖m_t‖²) · eta_scale / ‖η_t‖_F
};

Reference reference(const LinearRegression<double>& model, Index batch, std::uint64_t seed, long r, const NgdOptions& opt,
                    double gradient_scale = 1.0) {
  const double n = static_cast<double>(model.n()), m = static_cast<double>(batch);
  double max_yx = 0, max_xx = 0;
  for (Index i = 0; i < model.n(); ++i) {
    max_yx = std::max(max_yx, std::abs(model.data().y(i)) * model.data().X.row(i).norm());
    max_xx = std::max(max_xx, model.data().X.row(i).squaredNorm());
  }
  // ‖ĝ₁‖ ≤ n/(M s²) Σ|y_j|‖x_j‖ and ‖ĝ₂‖_F ≤ n/(2M s²) Σ‖x_j‖², each sum of M terms.
  const double bound = std::abs(gradient_scale) * n / (m * model.noise_var()) * m * (max_yx + max_xx / 2);
  const auto& prior = model.prior_natural();
  Reference ref;
  ref.eta_scale = std::sqrt(prior.first.squaredNorm() + prior.second.squaredNorm()) + bound;
  std::vector<double> eta_norm, factor;
  MinibatchGradient<double> est(model, batch);
  random::Stream rng(seed, static_cast<std::uint64_t>(r));
  ref.res = run_ngd(
      prior, standard_natural<double>(model.d()),
      [&](long, const GaussianNatural<double>&, GaussianPair<double>& g) {
        est.draw(rng);
        est.evaluate(g);
        if (gradient_scale != 1.0) g *= gradient_scale;
      },
      StepSchedule<double>::theorem1(), opt,
      OnStep{[&](const auto& e) {
        const GaussianNatural<double>& after = e.stepper.point();
        const Mat<double> lambda = -2.0 * after.eta2();
        const Mat<double> s = lambda.inverse();
        const Vec<double> mean = s * after.eta1();
        const double norm = std::sqrt(after.first.squaredNorm() + after.second.squaredNorm());
        eta_norm.push_back(norm);
        factor.push_back(s.norm() * lambda.norm() * (1.0 + mean.squaredNorm()) / norm);
      }});
  for (double v : eta_norm) ref.eta_scale = std::max(ref.eta_scale, v);
  for (double v : factor) ref.cond = std::max(ref.cond, v * ref.eta_scale);
  return ref;
}

double pair_distance(const GaussianPair<double>& a, const GaussianPair<double>& b) {
  return std::sqrt((a.first - b.first).squaredNorm() + (a.second - b.second).squaredNorm());
}
double pair_norm(const GaussianPair<double>& a) { return std::sqrt(a.first.squaredNorm() + a.second.squaredNorm()); }

// Rounding operations along one lane: M for a batch sum, about 4T/3 for the η recursion (its
// errors are damped by Π(1 − γ_s), which sums to about T/3 over the steps, four roundings each),
// written 2T, and 3d for the inverse, the mean and the average's pass.
long lane_ops(Index batch, long steps, Index d) { return batch + 2 * steps + 3 * d; }

// True when every lane agrees with its reference within the budget: η_T absolutely against
// eta_scale, μ̄_T and the checkpoint averages relatively with the condition factor.
::testing::AssertionResult lanes_match(const std::vector<NgdResult<double>>& lanes, const std::vector<Reference>& refs, Index batch,
                                       long steps, Index d) {
  const long ops = lane_ops(batch, steps, d);
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    const auto& got = lanes[l];
    const auto& ref = refs[l];
    const double eta_err = pair_distance(got.last, ref.res.last), eta_tol = rounding_budget<double>(ops) * ref.eta_scale;
    if (!(eta_err <= eta_tol))
      return ::testing::AssertionFailure() << "lane " << l << ": |eta - ref| = " << eta_err << " exceeds " << eta_tol;
    if (got.average.has_value() != ref.res.average.has_value()) return ::testing::AssertionFailure() << "lane " << l << ": average presence";
    const double mu_tol = rounding_budget<double>(ops, ref.cond);
    if (got.average) {
      const double err = pair_distance(*got.average, *ref.res.average) / pair_norm(*ref.res.average);
      if (!(err <= mu_tol)) return ::testing::AssertionFailure() << "lane " << l << ": average rel. error " << err << " exceeds " << mu_tol;
    }
    if (got.checkpoint_averages.size() != ref.res.checkpoint_averages.size())
      return ::testing::AssertionFailure() << "lane " << l << ": checkpoint count";
    for (std::size_t k = 0; k < got.checkpoint_averages.size(); ++k) {
      const double err = pair_distance(got.checkpoint_averages[k], ref.res.checkpoint_averages[k]) / pair_norm(ref.res.checkpoint_averages[k]);
      if (!(err <= mu_tol))
        return ::testing::AssertionFailure() << "lane " << l << ": checkpoint " << k << " rel. error " << err << " exceeds " << mu_tol;
    }
  }
  return ::testing::AssertionSuccess();
}

struct Case {
  Index n, d, batch;
  double kappa;
  long steps, lanes;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << "n=" << c.n << " d=" << c.d << " M=" << c.batch << " kappa=" << c.kappa << " T=" << c.steps << " lanes=" << c.lanes;
}

class NgdLanesMatch : public ::testing::TestWithParam<Case> {};

TEST_P(NgdLanesMatch, EachLaneIsTheOneReplicateRouteWithinBudgetAndShiftedStreamsAreNot) {
  const Case c = GetParam();
  const auto model = model_of(c.n, c.d, c.kappa, 3);
  NgdOptions opt;
  opt.steps = c.steps;
  opt.checkpoints = {1, c.steps / 3, c.steps};
  constexpr std::uint64_t kSeed = 41;
  std::vector<Reference> refs;
  for (long r = 0; r < c.lanes; ++r) refs.push_back(reference(model, c.batch, kSeed, 100 + r, opt));
  auto streams = streams_for(kSeed, 100, c.lanes);
  const auto lanes = run_ngd_minibatch_lanes(model, standard_natural<double>(c.d), c.batch, streams, StepSchedule<double>::theorem1(), opt);
  ASSERT_EQ(lanes.size(), static_cast<std::size_t>(c.lanes));
  EXPECT_TRUE(lanes_match(lanes, refs, c.batch, c.steps, c.d));
  // Control: the same lanes on the next streams (the references' draws shifted by one replicate).
  auto shifted = streams_for(kSeed, 101, c.lanes);
  const auto wrong = run_ngd_minibatch_lanes(model, standard_natural<double>(c.d), c.batch, shifted, StepSchedule<double>::theorem1(), opt);
  for (std::size_t l = 0; l < wrong.size(); ++l) {
    const std::vector<NgdResult<double>> one{wrong[l]};
    const std::vector<Reference> ref_one{refs[l]};
    EXPECT_FALSE(lanes_match(one, ref_one, c.batch, c.steps, c.d)) << "lane " << l;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, NgdLanesMatch,
                         ::testing::Values(Case{12, 3, 2, 10.0, 300, 5}, Case{400, 10, 32, 1e3, 200, 8}, Case{60, 5, 7, 1.0, 50, 1}));

TEST(NgdLanes, ALaneDoesNotDependOnTheOtherLanesBitwise) {
  const auto model = model_of(200, 6, 100.0, 5);
  NgdOptions opt;
  opt.steps = 150;
  opt.checkpoints = {75};
  auto alone = streams_for(9, 4, 1);
  auto group = streams_for(9, 0, 8);  // stream 4 sits in lane 4
  const auto a = run_ngd_minibatch_lanes(model, standard_natural<double>(6), 16, alone, StepSchedule<double>::theorem1(), opt);
  const auto g = run_ngd_minibatch_lanes(model, standard_natural<double>(6), 16, group, StepSchedule<double>::theorem1(), opt);
  EXPECT_TRUE(a[0].last.first == g[4].last.first && a[0].last.second == g[4].last.second);
  EXPECT_TRUE(a[0].average->first == g[4].average->first && a[0].average->second == g[4].average->second);
  EXPECT_TRUE(a[0].checkpoint_averages[0].second == g[4].checkpoint_averages[0].second);
  EXPECT_FALSE(a[0].last.second == g[3].last.second);  // and lanes do differ
}

TEST(NgdLanes, StreamsAdvanceAsTheOneReplicateRouteAdvancesThem) {
  const auto model = model_of(50, 4, 10.0, 6);
  NgdOptions opt;
  opt.steps = 40;
  auto streams = streams_for(12, 0, 3);
  run_ngd_minibatch_lanes(model, standard_natural<double>(4), 5, streams, StepSchedule<double>::theorem1(), opt);
  for (long r = 0; r < 3; ++r) {
    MinibatchGradient<double> est(model, 5);
    random::Stream rng(12, static_cast<std::uint64_t>(r));
    run_ngd_minibatch(model, standard_natural<double>(4), est, rng, StepSchedule<double>::theorem1(), opt);
    EXPECT_EQ(streams[static_cast<std::size_t>(r)](), rng()) << "stream " << r;
  }
}

TEST(NgdLanes, GradientScaleIsTheScaledEstimateAndWithoutAverageOnlyEtaIsKept) {
  const auto model = model_of(30, 3, 10.0, 7);
  NgdOptions opt;
  opt.steps = 120;
  const double bias = 1.0 / 30.0;
  auto streams = streams_for(2, 0, 4);
  const auto lanes = run_ngd_minibatch_lanes(model, standard_natural<double>(3), 3, streams, StepSchedule<double>::theorem1(), opt, bias);
  std::vector<Reference> refs;
  for (long r = 0; r < 4; ++r) refs.push_back(reference(model, 3, 2, r, opt, bias));
  EXPECT_TRUE(lanes_match(lanes, refs, 3, 120, 3));
  std::vector<Reference> unscaled;
  for (long r = 0; r < 4; ++r) unscaled.push_back(reference(model, 3, 2, r, opt));
  EXPECT_FALSE(lanes_match(lanes, unscaled, 3, 120, 3));
  opt.average = false;
  auto again = streams_for(2, 0, 4);
  const auto plain = run_ngd_minibatch_lanes(model, standard_natural<double>(3), 3, again, StepSchedule<double>::theorem1(), opt, bias);
  EXPECT_FALSE(plain[0].average.has_value());
  EXPECT_TRUE(plain[2].last.second == lanes[2].last.second);
}

TEST(NgdLanes, BadArgumentsAreNamed) {
  const auto model = model_of(20, 3, 1.0, 8);
  const auto th = StepSchedule<double>::theorem1();
  const auto eta0 = standard_natural<double>(3);
  NgdOptions opt;
  opt.steps = 10;
  auto call = [&](std::vector<random::Stream> s, Index batch, const GaussianNatural<double>& e0, const StepSchedule<double>& sch,
                  const NgdOptions& o, double scale = 1.0) { run_ngd_minibatch_lanes(model, e0, batch, s, sch, o, scale); };
  using test::throws_with;
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { call({}, 2, eta0, th, opt); }, {"'streams'", "1 to 8"}));
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { call(streams_for(1, 0, 9), 2, eta0, th, opt); }, {"'streams'"}));
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { call(streams_for(1, 0, 2), 0, eta0, th, opt); }, {"'batch'"}));
  EXPECT_TRUE(throws_with<std::invalid_argument>([&] { call(streams_for(1, 0, 2), 2, standard_natural<double>(4), th, opt); }, {"'eta0'"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { call(streams_for(1, 0, 2), 2, eta0, StepSchedule<double>::constant(2.0), opt); },
                                             {"'schedule'"}));
  NgdOptions bad_cp = opt;
  bad_cp.checkpoints = {5, 5};
  EXPECT_TRUE(throws_with<std::domain_error>([&] { call(streams_for(1, 0, 2), 2, eta0, th, bad_cp); }, {"'options.checkpoints'"}));
  NgdOptions cp_without_average = opt;
  cp_without_average.checkpoints = {5};
  cp_without_average.average = false;
  EXPECT_TRUE(throws_with<std::domain_error>([&] { call(streams_for(1, 0, 2), 2, eta0, th, cp_without_average); },
                                             {"'options.checkpoints'", "average"}));
  EXPECT_TRUE(throws_with<std::domain_error>([&] { call(streams_for(1, 0, 2), 2, eta0, th, opt, std::nan("")); }, {"'gradient_scale'"}));
  // η₀ with −η₂ = −5I: half a step keeps −η₂ indefinite, so the conversion must refuse it.
  const GaussianNatural<double> outside(Vec<double>::Zero(3), Mat<double>(5.0 * Mat<double>::Identity(3, 3)));
  // The run ends at step 0 on every lane, with the failure named and η₀ kept as the last valid iterate.
  auto s2 = streams_for(1, 0, 2);
  const auto res = run_ngd_minibatch_lanes(model, outside, 2, s2, StepSchedule<double>::constant(0.5), opt);
  ASSERT_EQ(res.size(), 2u);
  for (const auto& r : res) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.failure->step, 0);
    EXPECT_EQ(r.failure->argument, "eta");
    EXPECT_NE(r.failure->message().find("lane 0"), std::string::npos) << r.failure->message();
    EXPECT_TRUE(r.last.second == outside.second);
  }
}

}}  // namespace
}  // namespace ngvi
