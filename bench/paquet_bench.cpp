// One sweep of Paquet's Algorithm 1 (optim/steppers/paquet_svb.hpp) on InstEval (73,421 ratings,
// scripts/export-insteval.sh), K = 5, ratings not centred: the sample drawn (at most C children of
// every hidden node, C = all or 1) and every node updated, option (a) or (b), the ELBO not computed
// (check_elbo off: the sweep alone). Counter `accesses_per_s`: ratings read per second (one access
// is one rating read in the update of one hidden node; a full sweep reads 2K|Ω| = 734,210, a sweep
// with C = 1 one per node, 20,500). Each timed sweep starts from the same initial point (reset
// outside the timer), so a run that would diverge over many sweeps (C = 1, ρ₁ = 1) is not timed
// on overflowed numbers. bench/compare_paquet.py sets the figures next to a numpy sweep.
// Skipped when the InstEval CSV is missing.
#include <benchmark/benchmark.h>

#include "paquet_common.hpp"

namespace ngvi {
namespace {

const data::RatingsTable* insteval() {
  static const data::RatingsTable* t = [] () -> const data::RatingsTable* {
    try {
      return new data::RatingsTable(data::read_ratings_csv(bench::insteval_path()));
    } catch (const std::exception&) {
      return nullptr;
    }
  }();
  return t;
}

void BM_PaquetSweep(benchmark::State& state) {
  const data::RatingsTable* table = insteval();
  if (table == nullptr) {
    state.SkipWithError(("InstEval CSV not found at " + bench::insteval_path() + " (scripts/export-insteval.sh)").c_str());
    return;
  }
  const RatingMatrix& d = table->ratings;
  constexpr Index K = 5;
  PaquetOptions o;
  o.children = state.range(0);
  o.option = state.range(1) == 0 ? PaquetOption::kSequential : PaquetOption::kSimultaneous;
  o.check_elbo = false;
  const MfNatural<double> q0 = bench::b7_init(d, K, 20240601);
  PaquetStepper<double> s(d, o, q0);
  PaquetSampler sampler(20240601, 1);
  PaquetSample dir;
  // ρ = 1/2: the cost of a sweep does not depend on ρ; a point strictly between the old and the new Λ.
  const double rho = 0.5;
  long t = 0;
  std::int64_t accesses = 0;
  for (auto _ : state) {
    const std::int64_t before = s.accesses();
    const StepStatus st = bench::paquet_sweep(s, sampler, dir, ++t, rho);
    accesses += s.accesses() - before;
    if (!st.ok) {
      state.SkipWithError("sweep diverged");
      break;
    }
    state.PauseTiming();
    s.reset(q0);
    state.ResumeTiming();
  }
  state.counters["accesses_per_s"] = benchmark::Counter(static_cast<double>(accesses), benchmark::Counter::kIsRate);
  state.counters["accesses_per_sweep"] = static_cast<double>(accesses) / static_cast<double>(std::max<long>(t, 1));
}

BENCHMARK(BM_PaquetSweep)->ArgsProduct({{0, 1}, {0, 1}})->ArgNames({"C", "option_b"})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ngvi
