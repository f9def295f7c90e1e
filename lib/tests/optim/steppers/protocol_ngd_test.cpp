// A conjugate-NGD implementation given as a value (protocols/conjugate_ngd.hpp) run by the engine
// through ProtocolNgdStepper: the same trajectory as the library's NgdStepper on the same batches
// (two implementations of eq. (15) NGD, the reference written independently here), its own average
// at the checkpoints, and one failure naming the protocol call for each way an implementation can go
// wrong (it throws, returns a wrong shape or a non-finite entry, or has no step).
#include <cmath>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/protocol_ngd.hpp"
#include "ngvi/random/stream.hpp"
#include "protocols/hand_ngd.hpp"
#include "test_util.hpp"

namespace ngvi {
namespace { namespace NGVI_UNITY_ID {

using protocols::BlrProblem;
using protocols::ConjugateNgd;
using protocols::ConjugateNgdTrajectory;

LinearRegression<double> small_model() {
  return LinearRegression<double>(data::synthetic_regression(12, 3, 10.0, 0.7, 5), Mat<double>::Identity(3, 3), 0.5);
}

BlrProblem<double> problem_of(const LinearRegression<double>& m, Index batch) {
  return BlrProblem<double>{m.data().X, m.data().y, m.noise_var(), m.prior().mean, m.prior().cov, m.prior_natural(), batch,
                            standard_natural<double>(m.d())};
}

using test::hand_ngd;

// The engine's trajectory of `impl` on the batches drawn from Stream(seed, 0), with the claim's
// averaging (MeanAverage) unless the implementation keeps its own.
NgdResult<double> run_protocol(const ConjugateNgd<double>& impl, const LinearRegression<double>& m, Index batch, long T,
                               const std::vector<long>& checkpoints) {
  ProtocolNgdStepper<double> stepper(impl, problem_of(m, batch));
  MinibatchGradient<double> est(m, batch);
  random::Stream rng(7, 0);
  BatchIndices draws{est, [&rng](long, MinibatchGradient<double>& e) { e.draw(rng); }};
  if (stepper.has_average()) {
    ImplementationAverage<double> avg;
    return run_trajectory(stepper, draws, StepSchedule<double>::theorem1(), avg, RunOptions{T, true, checkpoints});
  }
  MeanAverage<ProtocolNgdStepper<double>> avg;
  return run_trajectory(stepper, draws, StepSchedule<double>::theorem1(), avg, RunOptions{T, true, checkpoints});
}

TEST(ProtocolNgdStepper, MatchesTheLibrarysStepperOnTheSameBatches) {
  const auto m = small_model();
  constexpr long kT = 50;
  const auto mine = run_protocol(hand_ngd(), m, 2, kT, {10, kT});
  ASSERT_TRUE(mine.ok()) << mine.failure->message();
  MinibatchGradient<double> est(m, 2);
  random::Stream rng(7, 0);
  MinibatchEstimator draws{est, rng};
  NgdStepper<double> lib(m.prior_natural(), standard_natural<double>(3));
  MeanAverage<NgdStepper<double>> avg;
  const auto ref = run_trajectory(lib, draws, StepSchedule<double>::theorem1(), avg, RunOptions{kT, true, {10, kT}});
  ASSERT_TRUE(ref.ok());
  // Each step forms (1 − γ)η + γ(η_p + ĝ) in a different order of a few operations: a rounding budget
  // of a few operations per step over T steps (the factors 1 − γ_t ≤ 1 do not amplify earlier errors),
  // relative to the size of the terms: for η₂, whose terms share one sign, the iterate's own size;
  // for η₁, whose terms x_i y_i may cancel, |η_p,1| + (n/M) Σ_i |x_i y_i| / σ², a bound on every term.
  const double tol = rounding_budget<double>(8 * kT);
  EXPECT_TRUE(test::mat_rel_close<double>(mine.last.eta2(), ref.last.eta2(), tol));
  const double n = static_cast<double>(m.data().n());
  const double terms1 = m.prior_natural().eta1().norm() +
                        (n / 2) * (m.data().X.array().colwise() * m.data().y.array()).abs().colwise().sum().matrix().norm() / m.noise_var();
  const double err1 = (mine.last.eta1() - ref.last.eta1()).norm();
  EXPECT_TRUE(std::isfinite(err1) && err1 <= tol * terms1) << err1 << " > " << tol * terms1;
  ASSERT_EQ(mine.checkpoint_averages.size(), 2u);
  EXPECT_TRUE(test::mat_rel_close<double>(mine.checkpoint_averages[1].second, ref.checkpoint_averages[1].second, tol));
}

TEST(ProtocolNgdStepper, ACheckpointReadsTheImplementationsOwnAverage) {
  const auto m = small_model();
  auto impl = hand_ngd();
  const auto inner = impl.start;
  // An implementation that reports the last iterate as its average (not Theorem 1's μ̄_T).
  impl.start = [inner](const BlrProblem<double>& p) {
    auto run = inner(p);
    auto last = std::make_shared<GaussianNatural<double>>();
    auto step = run.step;
    run.step = [step, last](long t, const GaussianNatural<double>& eta, std::span<const Index> b) {
      *last = step(t, eta, b);
      return *last;
    };
    run.average = [last] { return natural_to_expectation(*last); };
    return run;
  };
  const auto tr = run_protocol(impl, m, 2, 20, {20});
  ASSERT_TRUE(tr.ok());
  ASSERT_EQ(tr.checkpoint_averages.size(), 1u);
  const auto expected = natural_to_expectation(tr.last);
  EXPECT_EQ(tr.checkpoint_averages[0].first, expected.first);
  EXPECT_EQ(tr.checkpoint_averages[0].second, expected.second);
}

// Given the checkpoints and the step count, the averager asks the implementation for its average only
// after the steps the engine reads (one call per checkpoint and one at the end), with the same values.
TEST(ProtocolNgdStepper, TheAverageIsReadOnlyWhereTheEngineReadsIt) {
  const auto m = small_model();
  auto impl = hand_ngd();
  const auto inner = impl.start;
  auto calls = std::make_shared<long>(0);
  impl.start = [inner, calls](const BlrProblem<double>& p) {
    auto run = inner(p);
    auto last = std::make_shared<GaussianNatural<double>>();
    auto step = run.step;
    run.step = [step, last](long t, const GaussianNatural<double>& eta, std::span<const Index> b) { return *last = step(t, eta, b); };
    run.average = [last, calls] {
      ++*calls;
      return natural_to_expectation(*last);
    };
    return run;
  };
  const std::vector<long> cps{5, 12};
  constexpr long kT = 20;
  auto run_with = [&](ImplementationAverage<double> avg) {
    ProtocolNgdStepper<double> stepper(impl, problem_of(m, 2));
    MinibatchGradient<double> est(m, 2);
    random::Stream rng(7, 0);
    BatchIndices draws{est, [&rng](long, MinibatchGradient<double>& e) { e.draw(rng); }};
    return run_trajectory(stepper, draws, StepSchedule<double>::theorem1(), avg, RunOptions{kT, true, cps});
  };
  *calls = 0;
  const auto every = run_with(ImplementationAverage<double>());
  EXPECT_EQ(*calls, kT);
  *calls = 0;
  const auto read = run_with(ImplementationAverage<double>(cps, kT));
  EXPECT_EQ(*calls, 3);
  ASSERT_TRUE(every.ok() && read.ok());
  ASSERT_EQ(read.checkpoint_averages.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(read.checkpoint_averages[i].second, every.checkpoint_averages[i].second);
  EXPECT_EQ(read.average->second, every.average->second);
}

// Each way an implementation can break its protocol is an ImplementationError thrown out of the
// engine (not a StepFailure, which the claims read as an iterate leaving Omega), naming the protocol
// call, the step and the implementation.
TEST(ProtocolNgdStepper, AFailingImplementationThrowsOneErrorNamingTheCall) {
  const auto m = small_model();
  struct Case {
    std::string what;
    std::function<GaussianNatural<double>(long, const GaussianNatural<double>&)> step;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"throws", [](long t, const GaussianNatural<double>& e) { if (t == 3) throw std::runtime_error("out of memory"); return e; },
       "threw: out of memory"},
      {"wrong shape", [](long t, const GaussianNatural<double>& e) {
         return t == 3 ? GaussianNatural<double>(Vec<double>::Zero(2), Mat<double>::Zero(2, 2)) : e; },
       "returned a parameter of dimension 2"},
      {"non-finite", [](long t, const GaussianNatural<double>& e) {
         GaussianNatural<double> n = e;
         if (t == 3) n.first(0) = std::nan("");
         return n; },
       "returned a non-finite entry"},
      {"not symmetric", [](long t, const GaussianNatural<double>& e) {
         GaussianNatural<double> n = e;
         if (t == 3) n.second(0, 1) += 1e-3 * std::abs(n.second(0, 0));
         return n; },
       "returned eta2 that is not symmetric"},
  };
  for (const auto& c : cases) {
    ConjugateNgd<double> impl{"broken-ngd", "test", {}};
    impl.start = [&c](const BlrProblem<double>&) {
      ConjugateNgdTrajectory<double> run;
      run.step = [&c](long t, const GaussianNatural<double>& e, std::span<const Index>) { return c.step(t, e); };
      return run;
    };
    try {
      (void)run_protocol(impl, m, 2, 10, {});
      ADD_FAILURE() << c.what << ": nothing thrown";
    } catch (const ImplementationError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("conjugate-ngd call 'step' at step t = 3 of implementation 'broken-ngd'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(c.says), std::string::npos) << msg;
    }
  }
  ConjugateNgd<double> no_step{"no-step", "test", {}};
  no_step.start = [](const BlrProblem<double>&) { return ConjugateNgdTrajectory<double>{}; };
  EXPECT_THROW(ProtocolNgdStepper<double>(no_step, problem_of(m, 2)), ImplementationError);
  ConjugateNgd<double> no_start{"no-start", "test", {}};
  EXPECT_THROW(ProtocolNgdStepper<double>(no_start, problem_of(m, 2)), ImplementationError);
}

// A symmetric matrix computed by another route (an inverse in floating point) is asymmetric at the
// rounding level: within the budget 16 d eps cond max|A|, its symmetric part is kept, exactly
// symmetric; the trajectory is the one of the symmetrised steps.
TEST(ProtocolNgdStepper, RoundingLevelAsymmetryIsSymmetrised) {
  const auto m = small_model();
  ConjugateNgd<double> impl{"rounding-ngd", "test", {}};
  impl.start = [](const BlrProblem<double>&) {
    ConjugateNgdTrajectory<double> run;
    run.step = [](long, const GaussianNatural<double>& e, std::span<const Index>) {
      GaussianNatural<double> n = e;
      n.second(0, 1) *= 1 + 4 * std::numeric_limits<double>::epsilon();
      return n;
    };
    return run;
  };
  ProtocolNgdStepper<double> stepper(impl, problem_of(m, 2));
  std::vector<Index> batch{0, 1};
  ASSERT_TRUE(stepper.step(0, 1.0, batch).ok);
  const auto& e2 = stepper.point().second;
  EXPECT_EQ(e2(0, 1), e2(1, 0));
}

}}  // namespace
}  // namespace ngvi
