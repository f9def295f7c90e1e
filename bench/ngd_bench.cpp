// The eq. (15) NGD step for Bayesian linear regression at (d, M) ∈ {(10, 32), (100, 256), (500, 256)}
// on n = 4096 rows (ngvi-math.md §5.2):
//   BM_NgdStep         draw M indices, gather the batch, form ĝ^ℓ by one symmetric rank-M update,
//                      η ← (1−γ)η + γ(η_p + ĝ^ℓ), convert η → (m, S) → μ through one Cholesky and
//                      add μ to Theorem 1's running average (the full step, as in compare_frameworks.py);
//   BM_NgdStepNatural  the same without the conversion and the average;
//   BM_GramFloor       the rank-M update X_bᵀX_b on an already gathered batch alone: the floor.
//   BM_Thm1Replicate   one Theorem 1 replicate (n = 12, d = 3, M = 2, T = 1000 with averaging),
//                      reported as replicates per second.
// Everything is allocated before the timed loop; nothing is validated inside it.
#include <benchmark/benchmark.h>

#include <map>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/optim/ngd_driver.hpp"

namespace ngvi {
namespace {

constexpr Index kRows = 4096;

const LinearRegression<double>& bench_model(Index d) {
  static std::map<Index, LinearRegression<double>> cache;
  auto it = cache.find(d);
  if (it == cache.end())
    it = cache.emplace(d, LinearRegression<double>(data::synthetic_regression(kRows, d, 1.0, 1.0, 77), Mat<double>::Identity(d, d), 1.0)).first;
  return it->second;
}

// FLOPs of the rank-M update of the lower triangle: M d(d+1)/2 multiply-adds.
double gram_flops(double d, double m) { return m * d * (d + 1.0); }

void step_bench(benchmark::State& state, bool convert) {
  const Index d = state.range(0), m = state.range(1);
  const auto& model = bench_model(d);
  MinibatchGradient<double> est(model, m);
  random::Stream rng(1, 0);
  GaussianNatural<double> eta = standard_natural<double>(d);
  GaussianPair<double> g{Vec<double>::Zero(d), Mat<double>::Zero(d, d)};
  MomentWorkspace<double> ws(d);
  IterateAverage<double> avg;
  long t = 0;
  for (auto _ : state) {
    est.draw(rng);
    est.evaluate(g);
    ngd_step(eta, model.prior_natural(), g, 2.0 / static_cast<double>(t + 2));
    if (convert) {
      ws.convert(eta);
      avg.add(ws.mu());
    }
    ++t;
    benchmark::DoNotOptimize(eta.second.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(gram_flops(double(d), double(m)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_NgdStep(benchmark::State& state) { step_bench(state, true); }
void BM_NgdStepNatural(benchmark::State& state) { step_bench(state, false); }

void BM_GramFloor(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  const auto& model = bench_model(d);
  Mat<double> xb = model.data().X.topRows(m).transpose();  // gathered batch, d × M as in the step
  Mat<double> gram = Mat<double>::Zero(d, d);
  for (auto _ : state) {
    gram.setZero();
    gram.selfadjointView<Eigen::Lower>().rankUpdate(xb, -0.5);
    benchmark::DoNotOptimize(gram.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(gram_flops(double(d), double(m)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Thm1Replicate(benchmark::State& state) {
  const LinearRegression<double> model(data::synthetic_regression(12, 3, 1.0, 0.7, 1), Mat<double>::Identity(3, 3), 0.5);
  NgdOptions opt;
  opt.steps = 1000;
  long r = 0;
  for (auto _ : state) {
    MinibatchGradient<double> est(model, 2);
    random::Stream rng(5, static_cast<std::uint64_t>(r++));
    auto res = run_ngd_minibatch(model, standard_natural<double>(3), est, rng, StepSchedule<double>::theorem1(), opt);
    benchmark::DoNotOptimize(res.average);
  }
  state.counters["replicates/s"] = benchmark::Counter(1.0, benchmark::Counter::kIsIterationInvariantRate);
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"d", "M"});
  for (auto [d, m] : {std::pair<int, int>{10, 32}, {100, 256}, {500, 256}}) b->Args({d, m});
}

BENCHMARK(BM_NgdStep)->Apply(sizes);
BENCHMARK(BM_NgdStepNatural)->Apply(sizes);
BENCHMARK(BM_GramFloor)->Apply(sizes);
BENCHMARK(BM_Thm1Replicate)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ngvi
