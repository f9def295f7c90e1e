#pragma once
// The timed loop of one stochastic NGD step (eq. (15), Bayesian linear regression), shared by the
// double benchmarks (ngd_bench.cpp) and the 50-digit ones (ngd_mp50_bench.cpp,
// ngd_mpfr50_bench.cpp): draw M indices, gather the batch, form ĝ^ℓ by one symmetric rank-M update,
// η ← (1−γ)η + γ(η_p + ĝ^ℓ) with γ = 2/(t+2) and, when `convert`, η → (m, S) through one LDLᵀ
// inverse plus Theorem 1's running average of μ = (m, S + mmᵀ), through the trajectory engine
// (optim/engine.hpp). With a pool, the step uses it as the engine's execution context says
// (kernels/execution.hpp): the tiles of the products from order kTiledOrder, and below it the next
// batch's draw and estimate beside this step's conversion and average.
#include <benchmark/benchmark.h>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi::bench {

/// A run length no benchmark reaches: the benchmark's own iteration count ends the run.
inline constexpr long kUnboundedSteps = long(1) << 60;

/// Rows of the step benchmarks' data set.
inline constexpr Index kStepRows = 4096;

/// The step benchmarks' model at order d: kStepRows synthetic rows (seed 77), cast exactly from
/// double to Scalar, so that every scalar type steps on the same data.
template <class Scalar>
LinearRegression<Scalar> step_model(Index d) {
  return LinearRegression<Scalar>(cast_dataset<Scalar>(data::synthetic_regression(kStepRows, d, 1.0, 1.0, 77)),
                                  Mat<Scalar>::Identity(d, d), Scalar(1));
}

/// Steps of the library's conjugate NGD, run by the trajectory engine, one benchmark iteration per
/// step: an observer asks the benchmark after each step whether to go on.
template <class Scalar>
void ngd_step_loop(benchmark::State& state, const LinearRegression<Scalar>& model, Index m, bool convert,
                   parallel::TilePool* pool = nullptr) {
  const Index d = model.d();
  const kernels::ExecutionContext exec{pool};
  MinibatchGradient<Scalar> est(model, m);
  est.set_tiles(exec.tiles(d, convert));
  random::Stream rng(1, 0);
  NgdStepper<Scalar> stepper(model.prior_natural(), standard_natural<Scalar>(d), exec);
  MinibatchEstimator estimator{est, rng};
  MeanAverage<NgdStepper<Scalar>> avg(IterateAverage<Scalar>::Weights::kLinear, convert);
  StopWhen keep_going([&](const auto&) { return !state.KeepRunning(); });
  if (!state.KeepRunning()) return;
  const auto tr = run_trajectory(stepper, estimator, StepSchedule<Scalar>::theorem1(), avg, RunOptions{kUnboundedSteps}, keep_going);
  if (!tr.ok()) state.SkipWithError(tr.failure->message().c_str());
  benchmark::DoNotOptimize(stepper.point().second.data());
}

/// The full step (with the conversion and the average) at (d, M) = (range(0), range(1)) in a
/// multiprecision Scalar, on step_model's data: BM_NgdStepMp50 and BM_NgdStepMpfr50.
template <class Scalar>
void full_step_in(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  ngd_step_loop<Scalar>(state, step_model<Scalar>(d), m, /*convert=*/true);
}

}  // namespace ngvi::bench
