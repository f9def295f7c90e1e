// The trajectory engine (optim/engine.hpp): the loop's order of calls, its one failure convention
// (the last valid iterate and the failing step), observers and early stop, checkpoints, and the
// averagers' weights against their closed forms.
#include <cmath>
#include <vector>

#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/schedule.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

/// A scalar stepper x ← x − γ·dir, whose domain is x > 0: enough to see the loop's bookkeeping.
struct HalfLine {
  using Scalar = double;
  using Point = double;
  using Direction = double;
  double x = 1;
  std::vector<long> calls;
  const double& point() const { return x; }
  double make_direction() const { return 0; }
  StepStatus step(long t, const double& gamma, const double& dir) {
    calls.push_back(t);
    const double next = x - gamma * dir;
    if (!(next > 0)) return StepStatus::left("x", "must stay positive");
    x = next;
    return StepStatus::fine();
  }
};

struct ConstantDirection {
  double value;
  std::vector<long> seen;
  void estimate(long t, const HalfLine&, double& dir) {
    seen.push_back(t);
    dir = value;
  }
};

TEST(Engine, CallsEachPartOncePerStepInOrder) {
  HalfLine s;
  ConstantDirection e{0.1, {}};
  const auto schedule = StepSchedule<double>::constant(0.5);
  NoAverage avg;
  std::vector<long> observed;
  const auto tr = run_trajectory(s, e, schedule, avg, RunOptions{4}, OnStep{[&](const auto& ev) { observed.push_back(ev.t); }});
  EXPECT_TRUE(tr.ok());
  EXPECT_EQ(tr.steps, 4);
  EXPECT_EQ(e.seen, (std::vector<long>{0, 1, 2, 3}));
  EXPECT_EQ(s.calls, (std::vector<long>{0, 1, 2, 3}));
  EXPECT_EQ(observed, (std::vector<long>{0, 1, 2, 3}));
  EXPECT_NEAR(tr.last, 0.8, 4 * std::numeric_limits<double>::epsilon());  // 1 − 4·(½·0.1), four roundings
}

TEST(Engine, FailureCarriesTheLastValidIterateAndTheStep) {
  HalfLine s;
  ConstantDirection e{0.3, {}};  // x: 1, 0.7, 0.4, 0.1, then −0.2 leaves x > 0 at step t = 3
  const auto schedule = StepSchedule<double>::constant(1.0);
  NoAverage avg;
  const auto tr = run_trajectory(s, e, schedule, avg, RunOptions{10});
  ASSERT_FALSE(tr.ok());
  EXPECT_EQ(tr.failure->step, 3);
  EXPECT_EQ(tr.steps, 3);
  EXPECT_EQ(tr.failure->argument, "x");
  EXPECT_NEAR(tr.last, 1 - 3 * 0.3, 4 * std::numeric_limits<double>::epsilon());
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { tr.value_or_throw("caller"); }, {"caller", "step 3", "'x'", "positive"}));
  try {
    tr.value_or_throw("caller");
  } catch (const TrajectoryError<double>& err) {
    EXPECT_EQ(err.last_valid(), tr.last);
    EXPECT_EQ(err.failure().step, 3);
  }
}

TEST(Engine, TheoremStepsAndBadSchedulesEndTheRunOrAreRefused) {
  HalfLine s;
  ConstantDirection e{0.01, {}};
  NoAverage avg;
  RunOptions opt{5, /*theorem_steps=*/true, {}};
  EXPECT_TRUE(test::throws_with<std::domain_error>([&] { run_trajectory(s, e, StepSchedule<double>::constant(1.5), avg, opt); },
                                                   {"ngvi::run_trajectory", "schedule", "(0, 1]"}));
  // A user schedule that cannot say in advance: the step with γ > 1 ends the run.
  struct Jump {
    double at(long t) const { return t < 2 ? 0.5 : 2.0; }
  };
  const auto tr = run_trajectory(s, e, Jump{}, avg, opt);
  ASSERT_FALSE(tr.ok());
  EXPECT_EQ(tr.failure->step, 2);
  EXPECT_EQ(tr.failure->argument, "schedule");
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { run_trajectory(s, e, Jump{}, avg, RunOptions{-1}); }, {"options.steps"}));
}

TEST(Engine, AnObserverStopsTheRun) {
  HalfLine s;
  ConstantDirection e{0.01, {}};
  NoAverage avg;
  StopWhen stop([](const auto& ev) { return ev.t == 6; });
  const auto tr = run_trajectory(s, e, StepSchedule<double>::constant(1.0), avg, RunOptions{100}, stop);
  EXPECT_TRUE(tr.ok());
  EXPECT_TRUE(tr.stopped);
  EXPECT_EQ(tr.steps, 7);
}

// Each weighting against the average written out: linear Σ t a_t / Σ t, uniform, tail (t > T/2), last.
TEST(Engine, RunningAverageWeightsMatchTheirSums) {
  const long T = 9;
  std::vector<double> a(T + 1);
  for (long t = 1; t <= T; ++t) a[static_cast<std::size_t>(t)] = std::sin(double(t)) + 0.25 * double(t);
  auto expect = [&](AverageWeights w, double num, double den) {
    RunningAverage<double, double> avg(w);
    avg.start(T);
    for (long t = 1; t <= T; ++t) avg.add(t, a[static_cast<std::size_t>(t)]);
    ASSERT_TRUE(avg.value().has_value());
    EXPECT_NEAR(*avg.value(), num / den, 16 * T * std::numeric_limits<double>::epsilon()) << to_string(w);
  };
  double lin = 0, uni = 0, tail = 0;
  for (long t = 1; t <= T; ++t) {
    lin += double(t) * a[static_cast<std::size_t>(t)];
    uni += a[static_cast<std::size_t>(t)];
    if (2 * t > T) tail += a[static_cast<std::size_t>(t)];
  }
  expect(AverageWeights::kLinear, lin, double(T * (T + 1) / 2));
  expect(AverageWeights::kUniform, uni, double(T));
  expect(AverageWeights::kTail, tail, double(T - T / 2));
  expect(AverageWeights::kLast, a[T], 1.0);
}

// The Gaussian stepper through the engine: with the exact gradient and γ_0 = 1 one step lands on
// the posterior (η_p + ∇ E ℓ is the posterior's natural parameter, a closed form), and a step that
// leaves Ω is rolled back: the trajectory holds η_t, not η_{t+1}.
TEST(Engine, GaussianStepperReachesThePosteriorAndRollsBackALeavingStep) {
  const LinearRegression<double> model(data::synthetic_regression(12, 3, 10.0, 0.7, 5), Mat<double>::Identity(3, 3), 0.5);
  const auto g = model.loglik_gradient();
  NgdStepper<double> s(model.prior_natural(), standard_natural<double>(3));
  ExactEstimator e{g};
  MeanAverage<NgdStepper<double>> avg;
  const auto tr = run_trajectory(s, e, StepSchedule<double>::theorem1(), avg, RunOptions{1, true, {}});
  ASSERT_TRUE(tr.ok());
  EXPECT_TRUE(test::mat_rel_close<double>(tr.last.eta2(), model.posterior_natural().eta2(), rounding_budget<double>(8)));

  // ĝ₂ = +c·I pushes η₂ = −½I past 0 at the second step of γ = 1/2: η₂ → −¼I + c/2 I.
  GaussianPair<double> up{Vec<double>::Zero(3), Mat<double>::Identity(3, 3)};
  GaussianNatural<double> flat(Vec<double>::Zero(3), Mat<double>::Zero(3, 3));
  NgdStepper<double> s2(flat, standard_natural<double>(3));
  ExactEstimator e2{up};
  MeanAverage<NgdStepper<double>> avg2;
  up.second *= 0.375;  // η₂: −½ → −1/16 (t = 0, γ = ½) → +5/32 (t = 1): leaves Ω at step 1
  const auto tr2 = run_trajectory(s2, e2, StepSchedule<double>::constant(0.5), avg2, RunOptions{5});
  ASSERT_FALSE(tr2.ok());
  EXPECT_EQ(tr2.failure->step, 1);
  EXPECT_EQ(tr2.failure->argument, "eta");
  EXPECT_EQ(tr2.last.eta2()(0, 0), -0.0625);
}

}}  // namespace
}  // namespace ngvi
