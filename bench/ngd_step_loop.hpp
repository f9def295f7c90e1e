#pragma once
// The timed loop of one stochastic NGD step (eq. (15), Bayesian linear regression), shared by the
// double benchmarks (ngd_bench.cpp) and the 50-digit ones (ngd_mp50_bench.cpp,
// ngd_mpfr50_bench.cpp): draw M indices, gather the batch, form ĝ^ℓ by one symmetric rank-M update,
// η ← (1−γ)η + γ(η_p + ĝ^ℓ) with γ = 2/(t+2) and, when `convert`, η → (m, S) through one LDLᵀ
// inverse plus Theorem 1's running average of μ = (m, S + mmᵀ). With a pool, the step's tiled
// products (orders above kTileWidth) run on it.
#include <benchmark/benchmark.h>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi::bench {

template <class Scalar>
void ngd_step_loop(benchmark::State& state, const LinearRegression<Scalar>& model, Index m, bool convert,
                   parallel::TilePool* pool = nullptr) {
  const Index d = model.d();
  MinibatchGradient<Scalar> est(model, m);
  est.set_pool(pool);
  random::Stream rng(1, 0);
  GaussianNatural<Scalar> eta = standard_natural<Scalar>(d);
  GaussianPair<Scalar> g{Vec<Scalar>::Zero(d), Mat<Scalar>::Zero(d, d)};
  MomentWorkspace<Scalar> ws(d, pool);
  IterateAverage<Scalar> avg;
  long t = 0;
  for (auto _ : state) {
    est.draw(rng);
    est.evaluate(g);
    ngd_step(eta, model.prior_natural(), g, Scalar(2) / Scalar(t + 2), pool);
    if (convert) {
      ws.convert(eta);
      avg.add_moments(ws.mean(), ws.cov(), pool);
    }
    ++t;
    benchmark::DoNotOptimize(eta.second.data());
  }
}

}  // namespace ngvi::bench
