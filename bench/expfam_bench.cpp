// Parameter maps and KL for d = 2 … 512, templated on Scalar, with a complexity fit. Inputs are
// built outside the timed loop; nothing is validated inside it beyond what the routines themselves do.
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/expfam.hpp"

namespace ngvi {
namespace {

// FLOPs of a d × d Cholesky (d³/3) plus the inverse from it (≈ 2d³/3 for the two triangular
// solves with an identity right-hand side, exploiting nothing): d³ in all.
double map_flops(double d) { return d * d * d; }

template <class Scalar>
GaussianMoments<Scalar> bench_gaussian(Index d) {
  data::Rng rng(1234 + d);
  return data::cast_moments<Scalar>(data::random_gaussian(d, 1e3, rng));
}

template <class Scalar>
void BM_MomentsToNatural(benchmark::State& state) {
  const Index d = state.range(0);
  const auto q = bench_gaussian<Scalar>(d);
  for (auto _ : state) {
    auto eta = moments_to_natural(q);
    benchmark::DoNotOptimize(eta);
  }
  state.SetComplexityN(d);
  state.counters["GFLOPS"] = benchmark::Counter(map_flops(double(d)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Scalar>
void BM_NaturalToExpectation(benchmark::State& state) {
  const Index d = state.range(0);
  const auto eta = moments_to_natural(bench_gaussian<Scalar>(d));
  for (auto _ : state) {
    auto mu = natural_to_expectation(eta);
    benchmark::DoNotOptimize(mu);
  }
  state.SetComplexityN(d);
  state.counters["GFLOPS"] = benchmark::Counter(map_flops(double(d)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Scalar>
void BM_ExpectationToNatural(benchmark::State& state) {
  const Index d = state.range(0);
  const auto mu = moments_to_expectation(bench_gaussian<Scalar>(d));
  for (auto _ : state) {
    auto eta = expectation_to_natural(mu);
    benchmark::DoNotOptimize(eta);
  }
  state.SetComplexityN(d);
  state.counters["GFLOPS"] = benchmark::Counter(map_flops(double(d)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Scalar>
void BM_KlGaussian(benchmark::State& state) {
  const Index d = state.range(0);
  const auto q = bench_gaussian<Scalar>(d);
  auto p = bench_gaussian<Scalar>(d);
  p.mean.array() += Scalar(1);
  for (auto _ : state) {
    Scalar kl = kl_gaussian(q, p);
    benchmark::DoNotOptimize(kl);
  }
  state.SetComplexityN(d);
  // Two Cholesky factorisations (2·d³/3) and one d × d solve (2·d³).
  state.counters["GFLOPS"] = benchmark::Counter((2.0 / 3.0 + 2.0) * map_flops(double(d)) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_MomentsToNatural<double>)->RangeMultiplier(2)->Range(2, 512)->ArgName("d")->Complexity(benchmark::oNCubed);
BENCHMARK(BM_NaturalToExpectation<double>)->RangeMultiplier(2)->Range(2, 512)->ArgName("d")->Complexity(benchmark::oNCubed);
BENCHMARK(BM_ExpectationToNatural<double>)->RangeMultiplier(2)->Range(2, 512)->ArgName("d")->Complexity(benchmark::oNCubed);
BENCHMARK(BM_KlGaussian<double>)->RangeMultiplier(2)->Range(2, 512)->ArgName("d")->Complexity(benchmark::oNCubed);
BENCHMARK(BM_MomentsToNatural<mp50>)->RangeMultiplier(2)->Range(2, 32)->ArgName("d")->Complexity(benchmark::oNCubed);
BENCHMARK(BM_KlGaussian<mp50>)->RangeMultiplier(2)->Range(2, 32)->ArgName("d")->Complexity(benchmark::oNCubed);

}  // namespace
}  // namespace ngvi
