// Bonnet/Price (eq. 11) and reparameterisation (Algorithm 1) gradient estimators for Bayesian
// logistic regression (n = 200 rows), d ∈ {10, 100}, K = 16 samples per call: each iteration is one
// estimator call (one Cholesky, one d × K block of draws, K likelihood evaluations, the map to μ).
// The counter "samples_per_s" gives the per-sample cost as its inverse. Inputs are built outside
// the timed loop; nothing is validated inside it beyond what the routines themselves do.
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/estimators/price.hpp"
#include "ngvi/estimators/reparam.hpp"
#include "ngvi/models/logistic_regression.hpp"

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
  auto ll = [&](const Vec<double>& z, bool h) { return logistic_loglik(p.data, z, h); };
  random::Stream rng(5, 0);
  for (auto _ : state) {
    auto g = kPrice ? price_gradient(ll, p.mu, kSamples, rng) : reparam_gradient(ll, p.mu, kSamples, rng);
    benchmark::DoNotOptimize(g);
  }
  state.counters["samples_per_s"] = benchmark::Counter(kSamples, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_PriceGradient(benchmark::State& s) { BM_Estimator<true>(s); }
void BM_ReparamGradient(benchmark::State& s) { BM_Estimator<false>(s); }

BENCHMARK(BM_PriceGradient)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReparamGradient)->Arg(10)->Arg(100)->ArgName("d")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
