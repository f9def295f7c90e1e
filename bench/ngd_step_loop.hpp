#pragma once
// The timed loop of one stochastic NGD step (eq. (15), Bayesian linear regression), shared by the
// double benchmarks (ngd_bench.cpp) and the 50-digit ones (ngd_mp50_bench.cpp,
// ngd_mpfr50_bench.cpp): draw M indices, gather the batch, form ĝ^ℓ by one symmetric rank-M update,
// η ← (1−γ)η + γ(η_p + ĝ^ℓ) with γ = 2/(t+2) and, when `convert`, η → (m, S) through one LDLᵀ
// inverse plus Theorem 1's running average of μ = (m, S + mmᵀ). With a pool, the step uses it as
// run_ngd does (optim/ngd_driver.hpp): the tiles of the products from order kTiledOrder, and below
// it (overlaps_estimate) the next batch's draw and estimate beside this step's conversion and
// average.
#include <benchmark/benchmark.h>

#include <exception>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi::bench {

/// Rows of the step benchmarks' data set.
inline constexpr Index kStepRows = 4096;

/// The step benchmarks' model at order d: kStepRows synthetic rows (seed 77), cast exactly from
/// double to Scalar, so that every scalar type steps on the same data.
template <class Scalar>
LinearRegression<Scalar> step_model(Index d) {
  return LinearRegression<Scalar>(cast_dataset<Scalar>(data::synthetic_regression(kStepRows, d, 1.0, 1.0, 77)),
                                  Mat<Scalar>::Identity(d, d), Scalar(1));
}

template <class Scalar>
void ngd_step_loop(benchmark::State& state, const LinearRegression<Scalar>& model, Index m, bool convert,
                   parallel::TilePool* pool = nullptr) {
  const Index d = model.d();
  const bool overlap = overlaps_estimate(pool, d, convert);
  parallel::TilePool* const tiles = overlap ? nullptr : pool;
  MinibatchGradient<Scalar> est(model, m);
  est.set_pool(tiles);
  random::Stream rng(1, 0);
  GaussianNatural<Scalar> eta = standard_natural<Scalar>(d);
  GaussianPair<Scalar> g{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  MomentWorkspace<Scalar> ws(d, tiles);
  IterateAverage<Scalar> avg;
  auto estimate = [&](GaussianPair<Scalar>& out) {
    est.draw(rng);
    est.evaluate(out);
  };
  auto convert_and_average = [&] {
    ws.convert(eta);
    avg.add_moments(ws.mean(), ws.cov(), tiles);
    return true;
  };
  long t = 0;
  if (overlap) estimate(g);  // each iteration then estimates the next step's batch
  for (auto _ : state) {
    if (!overlap) estimate(g);
    ngd_step(eta, model.prior_natural(), g, Scalar(2) / Scalar(t + 2), tiles);
    if (overlap) {
      std::exception_ptr next_error;
      detail::finish_beside_next(*pool, convert_and_average, [&] { estimate(g); }, next_error);
      if (next_error) std::rethrow_exception(next_error);
    } else if (convert) {
      convert_and_average();
    }
    ++t;
    benchmark::DoNotOptimize(eta.second.data());
  }
}

/// The full step (with the conversion and the average) at (d, M) = (range(0), range(1)) in a
/// multiprecision Scalar, on step_model's data: BM_NgdStepMp50 and BM_NgdStepMpfr50.
template <class Scalar>
void full_step_in(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  ngd_step_loop<Scalar>(state, step_model<Scalar>(d), m, /*convert=*/true);
}

}  // namespace ngvi::bench
