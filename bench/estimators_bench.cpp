// Bonnet/Price (eq. 11) and reparameterisation (Algorithm 1) gradient estimators for Bayesian
// logistic regression (n = 200 rows), d ∈ {10, 100}, K = 16 samples per call: each iteration is one
// estimator call (one Cholesky, one d × K block of draws, K likelihood evaluations, the map to μ).
// The log-likelihood is the model's (make_logistic_regression), which validates the data once and
// checks only z per call, as in the experiments.
// The counter "samples_per_s" gives the per-sample cost as its inverse. Inputs are built outside
// the timed loop; nothing is validated inside it beyond what the routines themselves do.
// BM_NgdNonconjugate{Price,Reparam} time whole runs of the non-conjugate NGD loop
// (optim/ngd_nonconjugate.hpp) on the same problems, T = 100 steps of K = 16 draws from
// q₀ = N(0, I/d) under a N(0, I) prior, γ = 0.1; the counter "steps_per_s" is per NGD step.
// Each is timed twice: with a point-by-point log-likelihood (a lambda around model.loglik: K
// evaluations, K Hessians for Price) and, in the *Block variants, with the model's block-capable
// callable (loglik_function: one product X Z for the K points, H̄ = −Xᵀdiag(c̄)X as one weighted Gram
// product; estimators/price.hpp, BlockLogLik).
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/estimators/price.hpp"
#include "ngvi/estimators/reparam.hpp"
#include "ngvi/models/logistic_regression.hpp"
#include "ngvi/optim/ngd_nonconjugate.hpp"

namespace ngvi {
namespace {

constexpr int kSamples = 16;
constexpr Index kRows = 200;

struct BenchProblem {
  Dataset<double> data;
  GaussianExpectation<double> mu;
};

BenchProblem bench_problem(Index d) {
  random::Stream rng(99, static_cast<std::uint64_t>(d));
  Mat<double> x(kRows, d - 1);
  for (Index i = 0; i < kRows; ++i)
    for (Index j = 0; j < d - 1; ++j) x(i, j) = rng.normal() / std::sqrt(static_cast<double>(d));
  Dataset<double> data{with_bias_column(x), Vec<double>(kRows)};
  for (Index i = 0; i < kRows; ++i) data.y(i) = rng.uniform01() < 0.5 ? 0.0 : 1.0;
  data::Rng r2(7 + d);
  const auto q = data::random_gaussian(d, 1e2, r2);
  return {data, moments_to_expectation(GaussianMoments<double>{q.mean, Mat<double>(q.cov / static_cast<double>(d))})};
}

// The log-likelihood callable: point by point (a lambda) or the model's block-capable one.
template <bool kBlock, class Model>
auto loglik_of(const Model& model) {
  if constexpr (kBlock) return loglik_function(model);
  else return [&model](const Vec<double>& z, bool h) { return model.loglik(z, h); };
}

template <bool kPrice, bool kBlock>
void BM_Estimator(benchmark::State& state) {
  const Index d = state.range(0);
  const auto p = bench_problem(d);
  const auto model = make_logistic_regression(p.data, standard_normal_prior<double>(d));  // data validated once
  const auto ll = loglik_of<kBlock>(model);
  random::Stream rng(5, 0);
  for (auto _ : state) {
    auto g = kPrice ? price_gradient(ll, p.mu, kSamples, rng) : reparam_gradient(ll, p.mu, kSamples, rng);
    benchmark::DoNotOptimize(g);
  }
  state.counters["samples_per_s"] = benchmark::Counter(kSamples, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PriceGradient(benchmark::State& s) { BM_Estimator<true, false>(s); }
void BM_ReparamGradient(benchmark::State& s) { BM_Estimator<false, false>(s); }
void BM_PriceGradientBlock(benchmark::State& s) { BM_Estimator<true, true>(s); }
void BM_ReparamGradientBlock(benchmark::State& s) { BM_Estimator<false, true>(s); }

template <class Route, bool kBlock>
void BM_NgdNonconjugate(benchmark::State& state) {
  constexpr long kSteps = 100;
  const Index d = state.range(0);
  const auto p = bench_problem(d);
  const GaussianMoments<double> prior = standard_normal_prior<double>(d);
  const auto model = make_logistic_regression(p.data, prior);
  const auto ll = loglik_of<kBlock>(model);
  const GaussianMoments<double> q0{Vec<double>::Zero(d), Mat<double>(Mat<double>::Identity(d, d) / static_cast<double>(d))};
  const auto schedule = StepSchedule<double>::constant(0.1);
  std::uint64_t r = 0;
  for (auto _ : state) {
    random::Stream rng(17, r++);
    auto run = ngd_nonconjugate(ll, prior, q0, schedule, kSamples, kSteps, rng, Route::name);
    benchmark::DoNotOptimize(run.last.eta1().data());
  }
  state.counters["steps_per_s"] = benchmark::Counter(kSteps, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_NgdNonconjugatePrice(benchmark::State& s) { BM_NgdNonconjugate<PriceRoute, false>(s); }
void BM_NgdNonconjugateReparam(benchmark::State& s) { BM_NgdNonconjugate<ReparamRoute, false>(s); }
void BM_NgdNonconjugatePriceBlock(benchmark::State& s) { BM_NgdNonconjugate<PriceRoute, true>(s); }
void BM_NgdNonconjugateReparamBlock(benchmark::State& s) { BM_NgdNonconjugate<ReparamRoute, true>(s); }

BENCHMARK(BM_PriceGradient)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReparamGradient)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NgdNonconjugatePrice)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NgdNonconjugateReparam)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PriceGradientBlock)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReparamGradientBlock)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NgdNonconjugatePriceBlock)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NgdNonconjugateReparamBlock)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ngvi
