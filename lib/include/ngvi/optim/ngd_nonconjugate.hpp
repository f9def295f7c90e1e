#pragma once
/// @file
/// The library's non-conjugate NGD algorithm as one call (docs/math.md §2.4, §7.2): the
/// NgdFactorStepper, the Monte Carlo gradient (Price or reparameterisation) and a step-size
/// schedule, run by the trajectory engine, returning the last iterate inside Ω and the tail average
/// of η over the second half of the run (Ω is convex). Leaving Ω is found after every step and
/// returned in the trajectory's failure (with the last iterate inside Ω), never silently continued.
#include <utility>

#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/ngd_nonconjugate.hpp"

namespace ngvi {

/// The trajectory of a non-conjugate NGD run: η_T (or the last iterate inside Ω) and the tail average of η.
template <class Scalar>
using NgdRun = Trajectory<GaussianNatural<Scalar>, GaussianNatural<Scalar>>;

/// Runs T steps of stochastic NGD from q0; `observers` see the engine's StepEvent after every step
/// that stays in Ω (optim/engine.hpp: OnStep, StopWhen, Progress).
/// @pre K ≥ 1, T ≥ 1, q0 and prior valid moments of the likelihood's dimension.
/// @throws std::invalid_argument naming 'K' / 'T', std::domain_error naming 'q0' / 'prior'.
/// `route`: the Monte Carlo gradient route (estimators/gradient_route.hpp; a caller's own route type
/// R as GradientRoute<Scalar, LogLik>::of<R>()).
template <class Scalar, class LogLik, class Schedule, class... Obs>
NgdRun<Scalar> ngd_nonconjugate(const LogLik& loglik, const GaussianMoments<Scalar>& prior, const GaussianMoments<Scalar>& q0,
                               const Schedule& schedule, int K, long T, random::Stream& rng, GradientRoute<Scalar, LogLik> route,
                               Obs&&... observers) {
  constexpr const char* f = "ngvi::ngd_nonconjugate";
  if (K < 1) throw_size(f, "K", "must be >= 1 (number of Monte Carlo samples)");
  if (T < 1) throw_size(f, "T", "must be >= 1");
  NgdFactorStepper<Scalar> stepper(prior, q0);
  MonteCarloGradient<Scalar, LogLik> est(loglik, q0.dim(), K, rng, route);
  PointAverage<NgdFactorStepper<Scalar>> tail(AverageWeights::kTail);
  return run_trajectory(stepper, est, schedule, tail, RunOptions{T}, std::forward<Obs>(observers)...);
}

/// The same with a shipped route by name (Bonnet–Price by default).
template <class Scalar, class LogLik, class Schedule, class... Obs>
NgdRun<Scalar> ngd_nonconjugate(const LogLik& loglik, const GaussianMoments<Scalar>& prior, const GaussianMoments<Scalar>& q0,
                               const Schedule& schedule, int K, long T, random::Stream& rng,
                               std::string_view estimator = PriceRoute::name, Obs&&... observers) {
  return ngd_nonconjugate(loglik, prior, q0, schedule, K, T, rng, route_of<Scalar, LogLik>(estimator), std::forward<Obs>(observers)...);
}

}  // namespace ngvi
