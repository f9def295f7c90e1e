// The eq. (15) NGD step for Bayesian linear regression at (d, M) ∈ {(10, 32), (100, 256), (500, 256)}
// on n = 4096 rows (docs/math.md §5.2):
//   BM_NgdStep         draw M indices, gather the batch, form ĝ^ℓ by one symmetric rank-M update,
//                      η ← (1−γ)η + γ(η_p + ĝ^ℓ), convert η → (m, S) through one LDLᵀ inverse and
//                      add μ = (m, S + mmᵀ) to Theorem 1's running average (the full step, as in
//                      compare_frameworks.py);
//                      From order 128 the step's products are tiled (kernels/tiles.hpp) and the
//                      tiles run on a TilePool of all cores (real time is reported);
//   BM_NgdStepOneCore  the same step with no pool (the same tiles, in order, on one core);
//   BM_NgdStepNatural  the same without the conversion and the average;
//   BM_GramFloor       the rank-M update X_bᵀX_b on an already gathered batch alone, through the
//                      estimator's routine on the step's pool (symmetric_gram: the rank update,
//                      the general product for a batch of at most 1024 entries, or from order 128
//                      column tiles; then the mirror): the floor.
//   BM_GramGeneral     the same product as one general product into the full matrix (twice the
//                      multiply-adds; for comparison only).
//   BM_Thm1Replicate   one Theorem 1 replicate (n = 12, d = 3, M = 2, T = 1000 with averaging),
//                      reported as replicates per second.
//   BM_Thm1Workload    the Theorem 1 verification workload: R = 1000 replicates of T = 10^4
//                      averaged NGD steps at d = 10, M = 32 (n = 4096) on the thread pool, at 1 and
//                      2 threads; wall time per workload and replicate-steps per second.
//   BM_Thm1WorkloadLanes  the same workload through run_ngd_minibatch_lanes: the replicates in groups
//                      of kNgdLanes, one replicate per SIMD lane (optim/ngd_lanes.hpp), the groups
//                      on the thread pool.
//   BM_LongTrajectory  T = 10^6 averaged steps at d = 10, M = 32 recorded every 1000 steps: the
//                      recorder's bytes and the process's peak resident set (run it alone, see
//                      bench/README.md, so the peak is this benchmark's).
// Everything is allocated before the timed loop; nothing is validated inside it.
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <map>

#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/data/synthetic_regression.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/optim/ngd_lanes.hpp"
#include "ngvi/parallel/replicates.hpp"
#include "ngd_step_loop.hpp"

namespace ngvi {
namespace {

const LinearRegression<double>& bench_model(Index d) {
  static std::map<Index, LinearRegression<double>> cache;
  auto it = cache.find(d);
  if (it == cache.end())
    it = cache.emplace(d, bench::step_model<double>(d)).first;
  return it->second;
}

// FLOPs of the rank-M update of the lower triangle: M d(d+1)/2 multiply-adds.
double gram_flops(double d, double m) { return m * d * (d + 1.0); }

// The pool of the step's tiled products: every core, as a single trajectory runs by default.
parallel::TilePool& all_cores() {
  static parallel::TilePool pool(0);
  return pool;
}

void step_bench(benchmark::State& state, bool convert, parallel::TilePool* pool) {
  const Index d = state.range(0), m = state.range(1);
  bench::ngd_step_loop<double>(state, bench_model(d), m, convert, pool);
  state.counters["GFLOPS"] = benchmark::Counter(gram_flops(double(d), double(m)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_NgdStep(benchmark::State& state) { step_bench(state, true, &all_cores()); }
void BM_NgdStepOneCore(benchmark::State& state) { step_bench(state, true, nullptr); }
void BM_NgdStepNatural(benchmark::State& state) { step_bench(state, false, &all_cores()); }

void BM_GramFloor(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  const auto& model = bench_model(d);
  Mat<double> xb = model.data().X.topRows(m).transpose();  // gathered batch, d × M as in the step
  Mat<double> gram = Mat<double>::Zero(d, d);
  for (auto _ : state) {
    symmetric_gram(gram, xb, -0.5, &all_cores());  // the estimator's Gram routine, on the step's pool
    benchmark::DoNotOptimize(gram.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(gram_flops(double(d), double(m)) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// The same Gram product as one general product X_bᵀX_b into the full d × d matrix (M d² multiply-adds,
// twice the rank update's): not the kit's route, kept for comparison with floors measured that way.
void BM_GramGeneral(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  const auto& model = bench_model(d);
  Mat<double> xb = model.data().X.topRows(m).transpose();
  Mat<double> gram = Mat<double>::Zero(d, d);
  for (auto _ : state) {
    gram.noalias() = xb * xb.transpose();
    benchmark::DoNotOptimize(gram.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * double(m) * double(d) * double(d) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
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

void BM_Thm1Workload(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  constexpr long kReplicates = 1000, kSteps = 10000;
  const auto& model = bench_model(10);
  NgdOptions opt;
  opt.steps = kSteps;
  for (auto _ : state) {
    const auto out = parallel::run_replicates(kReplicates, threads, [&](long r) {
      MinibatchGradient<double> est(model, 32);
      random::Stream rng(11, static_cast<std::uint64_t>(r));
      return run_ngd_minibatch(model, standard_natural<double>(10), est, rng, StepSchedule<double>::theorem1(), opt).average->first(0);
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["replicate_steps/s"] =
      benchmark::Counter(double(kReplicates * kSteps), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Thm1WorkloadLanes(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  constexpr long kReplicates = 1000, kSteps = 10000, kGroups = (kReplicates + kNgdLanes - 1) / kNgdLanes;
  const auto& model = bench_model(10);
  NgdOptions opt;
  opt.steps = kSteps;
  for (auto _ : state) {
    const auto out = parallel::run_replicates(kGroups, threads, [&](long g) {
      std::vector<random::Stream> streams;
      for (long r = g * kNgdLanes; r < std::min(kReplicates, (g + 1) * kNgdLanes); ++r) streams.emplace_back(11, static_cast<std::uint64_t>(r));
      const auto res = run_ngd_minibatch_lanes(model, standard_natural<double>(10), 32, streams, StepSchedule<double>::theorem1(), opt);
      return res.front().average->first(0);
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["replicate_steps/s"] =
      benchmark::Counter(double(kReplicates * kSteps), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_LongTrajectory(benchmark::State& state) {
  constexpr long kSteps = 1000000, kEvery = 1000;
  const auto& model = bench_model(10);
  NgdOptions opt;
  opt.steps = kSteps;
  std::size_t bytes = 0;
  for (auto _ : state) {
    MinibatchGradient<double> est(model, 32);
    random::Stream rng(13, 0);
    TrajectoryRecorder<double> rec(kEvery, [](long, const GaussianNatural<double>&) { return TrajectoryPoint<double>{}; });
    const auto res = run_ngd_minibatch(model, standard_natural<double>(10), est, rng, StepSchedule<double>::theorem1(), opt, RecordTrajectory{&rec});
    benchmark::DoNotOptimize(res.average);
    bytes = rec.points().capacity() * sizeof(TrajectoryPoint<double>);
    for (const auto& pt : rec.points()) bytes += sizeof(double) * std::size_t(pt.eta.first.size() + pt.eta.second.size());
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["recorder_MB"] = double(bytes) / 1e6;
  state.counters["peak_RSS_MB"] = double(ru.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

void sizes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"d", "M"});
  for (auto [d, m] : {std::pair<int, int>{10, 32}, {100, 256}, {500, 256}}) b->Args({d, m});
}

BENCHMARK(BM_NgdStep)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_NgdStepOneCore)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_NgdStepNatural)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_GramFloor)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_GramGeneral)->Apply(sizes)->UseRealTime();
BENCHMARK(BM_Thm1Replicate)->Unit(benchmark::kMillisecond);
// One workload takes seconds: a fixed count of 3 repetitions whatever --benchmark_repetitions says.
BENCHMARK(BM_Thm1Workload)->ArgName("threads")->Arg(1)->Arg(2)->Iterations(1)->Repetitions(3)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_Thm1WorkloadLanes)->ArgName("threads")->Arg(1)->Arg(2)->Iterations(1)->Repetitions(3)->UseRealTime()->Unit(benchmark::kSecond);
BENCHMARK(BM_LongTrajectory)->Iterations(1)->Repetitions(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace ngvi
