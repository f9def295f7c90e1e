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

template <bool kPrice>
void BM_Estimator(benchmark::State& state) {
  const Index d = state.range(0);
  const auto p = bench_problem(d);
  const auto model = make_logistic_regression(p.data, standard_normal_prior<double>(d));  // data validated once
  auto ll = [&](const Vec<double>& z, bool h) { return model.loglik(z, h); };
  random::Stream rng(5, 0);
  for (auto _ : state) {
    auto g = kPrice ? price_gradient(ll, p.mu, kSamples, rng) : reparam_gradient(ll, p.mu, kSamples, rng);
    benchmark::DoNotOptimize(g);
  }
  state.counters["samples_per_s"] = benchmark::Counter(kSamples, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PriceGradient(benchmark::State& s) { BM_Estimator<true>(s); }
void BM_ReparamGradient(benchmark::State& s) { BM_Estimator<false>(s); }

template <GradientEstimator kEstimator>
void BM_NgdNonconjugate(benchmark::State& state) {
  constexpr long kSteps = 100;
  const Index d = state.range(0);
  const auto p = bench_problem(d);
  const GaussianMoments<double> prior = standard_normal_prior<double>(d);
  const auto model = make_logistic_regression(p.data, prior);
  auto ll = [&](const Vec<double>& z, bool h) { return model.loglik(z, h); };
  const GaussianMoments<double> q0{Vec<double>::Zero(d), Mat<double>(Mat<double>::Identity(d, d) / static_cast<double>(d))};
  const auto schedule = StepSchedule<double>::constant(0.1);
  std::uint64_t r = 0;
  for (auto _ : state) {
    random::Stream rng(17, r++);
    auto run = ngd_nonconjugate(ll, prior, q0, schedule, kSamples, kSteps, rng, kEstimator);
    benchmark::DoNotOptimize(run.last.eta1().data());
  }
  state.counters["steps_per_s"] = benchmark::Counter(kSteps, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_NgdNonconjugatePrice(benchmark::State& s) { BM_NgdNonconjugate<GradientEstimator::kPrice>(s); }
void BM_NgdNonconjugateReparam(benchmark::State& s) { BM_NgdNonconjugate<GradientEstimator::kReparam>(s); }

BENCHMARK(BM_PriceGradient)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReparamGradient)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NgdNonconjugatePrice)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NgdNonconjugateReparam)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ngvi
