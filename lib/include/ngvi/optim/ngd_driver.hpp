#pragma once
/// @file
/// The library's conjugate NGD algorithm as one call: the NgdStepper (steppers/ngd_gaussian.hpp),
/// the caller's estimator, a step-size schedule, Theorem 1's t-weighted average μ̄_T of the
/// expectation parameters, and an optional trajectory recorder, run by the trajectory engine
/// (optim/engine.hpp). A failure (an iterate leaving Ω, found when the average converts it) is
/// returned in the trajectory, with the last valid iterate.
#include <string>
#include <type_traits>
#include <vector>

#include "ngvi/models/linear_regression.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/recorder.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/ngd_gaussian.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

struct NgdOptions {
  long steps = 0;                 ///< T ≥ 0
  bool average = true;            ///< keep μ̄_T (one conversion per step)
  bool theorem_steps = true;      ///< require γ_t ∈ (0, 1] (Remark 2, Theorem 1)
  std::vector<long> checkpoints;  ///< increasing T' ≤ T at which μ̄_{T'} is also kept (needs average)
  /// Threads for the work inside one step and the overlap of the next estimate with the conversion
  /// (kernels/execution.hpp); the default runs everything on the caller. Results are bitwise the
  /// same for any context.
  kernels::ExecutionContext execution;
};

/// The trajectory of a conjugate NGD run: η_T and μ̄_T.
template <class Scalar>
using NgdResult = Trajectory<GaussianNatural<Scalar>, GaussianExpectation<Scalar>>;

/// Records η_t in a TrajectoryRecorder (t = 0 at the start, then every k-th step and the last).
template <class Scalar>
struct RecordTrajectory {
  TrajectoryRecorder<Scalar>* recorder;
  template <class S>
  void on_start(const S& s, long steps) {
    if (recorder) recorder->observe(0, s.point(), steps == 0);
  }
  template <class Event>
  void on_step(const Event& e) {
    if (recorder) recorder->observe(e.t + 1, e.stepper.point(), e.last());
  }
};

/// Runs T steps from η₀ with the library's parts: `estimate(t, η_t, ĝ)` writes ĝ_t; `observers` see
/// each step (optim/engine.hpp's StepEvent: e.stepper.previous() is η_t, e.stepper.point() η_{t+1};
/// RecordTrajectory{&recorder} records the iterates in a TrajectoryRecorder).
/// @throws std::domain_error naming 'schedule' if theorem_steps is set and some γ_t ∉ (0, 1];
///         std::invalid_argument on dimension mismatches or a negative T. A step that leaves Ω is
///         returned in the trajectory's failure.
template <class Scalar, class Estimate, class Schedule, class... Obs>
NgdResult<Scalar> run_ngd(const GaussianNatural<Scalar>& eta_prior, GaussianNatural<Scalar> eta0, Estimate&& estimate,
                          const Schedule& schedule, const NgdOptions& options, Obs&&... observers) {
  NgdStepper<Scalar> stepper(eta_prior, std::move(eta0), options.execution);
  FunctionEstimator<std::decay_t<Estimate>> est{std::forward<Estimate>(estimate)};
  MeanAverage<NgdStepper<Scalar>> avg(IterateAverage<Scalar>::Weights::kLinear, options.average);
  const RunOptions run{options.steps, options.theorem_steps, options.checkpoints};
  if (!options.checkpoints.empty() && !options.average) throw_domain("ngvi::run_ngd", "options.checkpoints", "need options.average");
  return run_trajectory(stepper, est, schedule, avg, run, std::forward<Obs>(observers)...);
}

/// Runs T steps of eq. (15) NGD on a linear-regression model from η₀ with the mini-batch estimator
/// drawing from `rng`. An estimator with `set_tiles` (MinibatchGradient) is given the step's tile
/// threads for its Gram product (none where the engine overlaps the estimate with the conversion).
template <class Scalar, class Estimator, class Schedule, class... Obs>
NgdResult<Scalar> run_ngd_minibatch(const LinearRegression<Scalar>& model, const GaussianNatural<Scalar>& eta0, Estimator& estimator,
                                    random::Stream& rng, const Schedule& schedule, const NgdOptions& options,
                                    Obs&&... observers) {
  if constexpr (requires { estimator.set_tiles(kernels::TileThreads{}); })
    estimator.set_tiles(options.execution.tiles(eta0.dim(), options.average));
  NgdStepper<Scalar> stepper(model.prior_natural(), eta0, options.execution);
  MinibatchEstimator est{estimator, rng};
  MeanAverage<NgdStepper<Scalar>> avg(IterateAverage<Scalar>::Weights::kLinear, options.average);
  const RunOptions run{options.steps, options.theorem_steps, options.checkpoints};
  if (!options.checkpoints.empty() && !options.average)
    throw_domain("ngvi::run_ngd_minibatch", "options.checkpoints", "need options.average");
  return run_trajectory(stepper, est, schedule, avg, run, std::forward<Obs>(observers)...);
}

/// q₀ = N(0, I): η₀ = (0, −½I) (docs/math.md §5.1).
template <class Scalar>
GaussianNatural<Scalar> standard_natural(Index d) {
  Mat<Scalar> e2 = Mat<Scalar>::Identity(d, d);
  e2 *= Scalar(-0.5);
  return GaussianNatural<Scalar>(Vec<Scalar>::Zero(d), std::move(e2));
}

}  // namespace ngvi
