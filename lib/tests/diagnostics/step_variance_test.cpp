// σ_t² (docs/math.md §4.2): the symmetrised-KL form equals the defining form (12) batch by batch
// (so their enumerated means agree); Monte Carlo brackets the exact enumeration; along a trajectory
// (the one routine behind the Theorem 1 claim and `ngvi bound`) every measured σ_t² matches the
// defining form (12) enumerated in long double at the iterates of an independently driven
// trajectory; bad input is named.
#include "ngvi/diagnostics/step_variance.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

TEST(StepVariance, JeffreysFormEqualsDefinition) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 2);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  MinibatchGradient<double> est(model, 2);
  const auto eta = standard_natural<double>(2);
  for (double gamma : {1.0, 0.5, 0.1}) {
    GaussianPair<double> g;
    for_each_batch(6, 2, 100, [&](const std::vector<Index>& idx) {
      est.set_indices(idx);
      est.evaluate(g);
      const double a = step_variance_sample(model, eta, g, gamma);
      const double b = step_variance_sample_eq12(model, eta, g, gamma);
      // Both are differences of O(1/γ²)-scaled terms of size ‖η‖‖μ‖; the map η → μ has
      // condition ≤ 1e3 on this instance and d = 2 (24 operations per KL, Higham Thm 3.5).
      EXPECT_TRUE(test::rel_close<double>(a, b, rounding_budget<double>(64, 1e3) / (gamma * gamma), 1.0));
    });
  }
}

TEST(StepVariance, MonteCarloBracketsEnumeration) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 4);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  MinibatchGradient<double> est(model, 2);
  const auto eta = standard_natural<double>(2);
  const double exact = step_variance_exact(est, eta, 0.5);
  random::Stream rng(11, 0);
  const auto mc = step_variance_mc(est, eta, 0.5, rng, 4000);
  // Two-sided 99.9% normal interval for the mean of 4000 draws.
  const double z = boost::math::quantile(boost::math::normal(), 0.9995);
  EXPECT_LE(std::abs(mc.mean - exact), z * mc.std_error);
  EXPECT_GT(exact, 0.0);
}

// The reference for the trajectory routine: η_t at the grid steps from run_ngd driven with the same
// trajectory stream (the routine's probe batches must not move it), then σ_t² by the defining form
// (12), ⟨ĝ − ∇ℓ, μ_{t+1} − μ̃_{t+1}⟩/γ_t, averaged over all n^M batches in long double.
struct TrajectoryReference {
  std::vector<double> sigma2;  // one per grid step
};

TrajectoryReference eq12_reference(const Dataset<double>& dd, long batch, const std::vector<long>& grid, std::uint64_t seed) {
  const Index d = dd.d();
  const LinearRegression<double> model(dd, Mat<double>::Identity(d, d), 0.5);
  MinibatchGradient<double> est(model, batch);
  random::Stream rng(seed, 0);
  std::vector<GaussianNatural<double>> at_grid;
  NgdOptions run;
  run.steps = grid.back() + 1;
  run.average = false;
  run_ngd(
      model.prior_natural(), standard_natural<double>(d),
      [&](long, const GaussianNatural<double>&, GaussianPair<double>& g) {
        est.draw(rng);
        est.evaluate(g);
      },
      StepSchedule<double>::theorem1(), run,
      OnStep{[&](const auto& e) {  // η_t is the stepper's previous iterate after step t
        if (std::find(grid.begin(), grid.end(), e.t) != grid.end()) at_grid.push_back(e.stepper.previous());
      }});
  using LD = long double;
  const LinearRegression<LD> model_ld(cast_dataset<LD>(dd), Mat<LD>::Identity(d, d), LD(0.5));
  MinibatchGradient<LD> est_ld(model_ld, batch);
  TrajectoryReference ref;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const GaussianNatural<LD> eta(data::cast_pair<LD>(at_grid[k]));
    const LD gamma = LD(2) / LD(grid[k] + 2);
    LD total = 0;
    long count = 0;
    GaussianPair<LD> g;
    for_each_batch(dd.n(), batch, 1L << 20, [&](const std::vector<Index>& idx) {
      est_ld.set_indices(idx);
      est_ld.evaluate(g);
      total += step_variance_sample_eq12(model_ld, eta, g, gamma);
      ++count;
    });
    ref.sigma2.push_back(static_cast<double>(total / LD(count)));
  }
  return ref;
}

TEST(StepVarianceAlongTrajectory, ExactPointsMatchTheDefiningFormInLongDouble) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 8);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  const std::vector<long> grid{0, 1, 2, 3, 5, 8, 13, 21};
  const auto prof = step_variance_along_trajectory(model, 2, standard_natural<double>(2), StepSchedule<double>::theorem1(), grid,
                                                   random::Stream(5, 0), random::Stream(5, 1));
  const auto ref = eq12_reference(dd, 2, grid, 5);
  ASSERT_TRUE(prof.exact);  // n^M = 36 batches
  ASSERT_EQ(prof.points.size(), grid.size());
  double max_ref = 0;
  long arg_ref = -1;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const auto& p = prof.points[k];
    EXPECT_EQ(p.t, grid[k]);
    const double gamma = 2.0 / static_cast<double>(grid[k] + 2);
    EXPECT_EQ(p.gamma, gamma);
    EXPECT_EQ(p.std_error, 0.0);
    EXPECT_EQ(p.upper, p.mean);
    // As in JeffreysFormEqualsDefinition: both forms are differences of O(1/γ²)-scaled terms of
    // size ‖η‖‖μ‖, the map η → μ has condition ≤ 1e3 here and d = 2 (24 operations per KL, Higham
    // Thm 3.5); the long double reference adds nothing at double's scale.
    EXPECT_TRUE(test::rel_close<double>(p.mean, ref.sigma2[k], rounding_budget<double>(64, 1e3) / (gamma * gamma), 1.0))
        << "t = " << grid[k];
    if (ref.sigma2[k] > max_ref) max_ref = ref.sigma2[k], arg_ref = grid[k];
  }
  EXPECT_EQ(prof.argmax_t, arg_ref);
  EXPECT_EQ(prof.max_upper, prof.max_mean);
  for (const auto& p : prof.points) {
    if (p.t == prof.argmax_t) {
      EXPECT_EQ(prof.max_mean, p.mean);
    }
  }
}

TEST(StepVarianceAlongTrajectory, MonteCarloPointsCoverTheReferenceAndTheGridDoesNotMoveTheTrajectory) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 8);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  const std::vector<long> grid{0, 2, 4, 9, 17};
  StepVarianceOptions opt;
  opt.enumeration_limit = 0;  // force Monte Carlo
  opt.samples = 2000;
  opt.confidence = 0.99;
  const auto prof = step_variance_along_trajectory(model, 2, standard_natural<double>(2), StepSchedule<double>::theorem1(), grid,
                                                   random::Stream(5, 0), random::Stream(5, 1), opt);
  const auto ref = eq12_reference(dd, 2, grid, 5);
  ASSERT_FALSE(prof.exact);
  ASSERT_EQ(prof.points.size(), grid.size());
  // Five Monte Carlo means of 2000 i.i.d. batches: a two-sided normal interval at family level
  // 99.9% (Bonferroni, 0.001/(2·5) per side per point) covers every σ_t².
  const double z_cover = boost::math::quantile(boost::math::normal(), 1.0 - 0.001 / (2.0 * 5));
  const double z99 = boost::math::quantile(boost::math::normal(), 0.99);
  double max_upper = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const auto& p = prof.points[k];
    EXPECT_GT(p.std_error, 0.0);
    EXPECT_LE(std::abs(p.mean - ref.sigma2[k]), z_cover * p.std_error) << "t = " << grid[k];
    EXPECT_TRUE(test::rel_close<double>(p.upper, p.mean + z99 * p.std_error, 4 * eps<double>(), 1.0));
    max_upper = std::max(max_upper, p.upper);
  }
  EXPECT_EQ(prof.max_upper, max_upper);
  // Exact mode draws nothing from the probe stream, so a point depends only on the trajectory:
  // measuring at t = 9 alone gives the same bits as measuring along the whole grid.
  const auto all = step_variance_along_trajectory(model, 2, standard_natural<double>(2), StepSchedule<double>::theorem1(), grid,
                                                  random::Stream(5, 0), random::Stream(5, 1));
  const auto one = step_variance_along_trajectory(model, 2, standard_natural<double>(2), StepSchedule<double>::theorem1(),
                                                  std::vector<long>{9}, random::Stream(5, 0), random::Stream(7, 7));
  ASSERT_EQ(one.points.size(), 1u);
  EXPECT_EQ(one.points[0].mean, all.points[3].mean);
}

TEST(StepVarianceAlongTrajectory, BadArgumentsAreNamed) {
  const auto dd = data::synthetic_regression(6, 2, 5.0, 0.5, 8);
  const LinearRegression<double> model(dd, Mat<double>::Identity(2, 2), 0.5);
  const auto eta0 = standard_natural<double>(2);
  const auto sched = StepSchedule<double>::theorem1();
  auto call = [&](long batch, std::vector<long> grid, StepVarianceOptions opt) {
    step_variance_along_trajectory(model, batch, eta0, sched, grid, random::Stream(1, 0), random::Stream(1, 1), opt);
  };
  const char* f = "ngvi::step_variance_along_trajectory";
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { call(0, {0, 1}, {}); }, {f, "batch"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { call(2, {1, 1}, {}); }, {f, "grid"}));
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { call(2, {-1, 1}, {}); }, {f, "grid"}));
  StepVarianceOptions bad_conf;
  bad_conf.confidence = 1.0;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { call(2, {0}, bad_conf); }, {f, "opt.confidence"}));
  StepVarianceOptions bad_samples;
  bad_samples.enumeration_limit = 0;
  bad_samples.samples = 1;
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { call(2, {0}, bad_samples); }, {f, "opt.samples"}));
}

}}  // namespace
}  // namespace ngvi
