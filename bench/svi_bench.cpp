// Online LDA by SVI (models/lda.hpp, optim/steppers/svi.hpp) on the synthetic benchmark of
// docs/systems.md A.4 (K = 5 topics over V = 200 words, mean document length 80) and on a wider
// instance (K = 20, V = 2000): the E-step of one document and of a minibatch of |S| = 128 at a fixed
// λ (documents/s), and a whole pass of SVI over D = 2000 training documents with scikit-learn's
// defaults (κ = 0.7, τ₀ = 10, |S| = 128, data order; documents/s), each on one core (no pool).
// Inputs (corpus, λ after one pass so that the E-step sees realistic topics) are built outside the
// timed loop. The E-step is templated on Scalar; the benchmark runs double.
#include <benchmark/benchmark.h>

#include <map>
#include <numeric>
#include <tuple>
#include <vector>

#include "ngvi/data/lda_synthetic.hpp"
#include "ngvi/models/lda.hpp"
#include "ngvi/optim/steppers/svi.hpp"
#include "ngvi/special/gamma_functions.hpp"

namespace ngvi {
namespace {

struct SviBenchInstance {
  lda::SyntheticLda syn;
  lda::LdaOptions<double> opt;
  lda::Topics<double> lambda;  // after one pass from the default initialisation
};

// A synthetic corpus of D documents of mean length L over V words (K true topics, K fitted, α = η = 1/K)
// and λ after one pass of SVI from the default initialisation, built once per key and kept.
const SviBenchInstance& instance(long K, long V, long D = 2000, long L = 80) {
  static std::map<std::tuple<long, long, long, long>, SviBenchInstance> cache;
  const auto key = std::make_tuple(K, V, D, L);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  SviBenchInstance in{lda::synthetic_lda(K, V, D, 0, double(L), 0.05, 0.1, 7), {}, {}};
  in.opt.topics = K;
  in.opt.alpha = 1.0 / double(K);
  in.opt.eta = 1.0 / double(K);
  const lda::LdaModel<double> model(in.syn.train, in.opt);
  svi::SviOptions<double> so;
  so.passes = 1;
  in.lambda = run_svi(model, model.initial_lambda(7), svi::SviSchedule<double>(0.7, 10.0, 1.0), so).last;
  return cache.emplace(key, std::move(in)).first->second;
}

// The E-step of documents [0, |S|) at a fixed λ, with the sufficient statistics (what one SVI step
// computes before its global update); |S| = 1 is the per-document cost including the K × V
// E[log β] and exp that every minibatch pays once.
void BM_LdaEStep(benchmark::State& state) {
  const long K = state.range(0), V = state.range(1), S = state.range(2);
  const auto& in = instance(K, V);
  const lda::LdaModel<double> model(in.syn.train, in.opt);
  std::vector<long> batch(static_cast<std::size_t>(S));
  std::iota(batch.begin(), batch.end(), 0L);
  lda::Topics<double> ss;
  long iters = 0;
  for (auto _ : state) {
    const auto res = model.e_step(in.lambda, batch, 0, &ss);
    for (int i : res.iterations) iters += i;
    benchmark::DoNotOptimize(ss.data());
  }
  state.counters["docs_per_s"] = benchmark::Counter(double(S), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["gamma_updates_per_doc"] = double(iters) / double(S) / double(state.iterations());
}

// One pass of online LDA over the 2000 training documents (16 minibatch steps), from λ₀.
void BM_LdaSviPass(benchmark::State& state) {
  const long K = state.range(0), V = state.range(1);
  const auto& in = instance(K, V);
  const lda::LdaModel<double> model(in.syn.train, in.opt);
  const auto lambda0 = model.initial_lambda(7);
  svi::SviOptions<double> so;
  so.passes = 1;
  const svi::SviSchedule<double> sch(0.7, 10.0, 1.0);
  for (auto _ : state) {
    auto tr = run_svi(model, lambda0, sch, so);
    benchmark::DoNotOptimize(tr.last.data());
  }
  state.counters["docs_per_s"] = benchmark::Counter(double(in.syn.train.n_docs()), benchmark::Counter::kIsIterationInvariantRate);
}

// The E-step of a minibatch of |S| = 128 on the sweep's corpora (bench/compare_lda.py --sweep: the
// kit's synthetic generator, K true topics over V = 10000 words, mean length L tokens), at λ after
// two minibatch steps from the default initialisation; the counter ns_per_word_topic_update is the
// time over Σ_d (γ updates of d) · n_d · K, the unit of the floor below.
void BM_LdaEStepSweep(benchmark::State& state) {
  const long K = state.range(0), L = state.range(1), S = 128;
  const auto& in = instance(K, 10000, 2 * S, L);
  const lda::LdaModel<double> model(in.syn.train, in.opt);
  std::vector<long> batch(static_cast<std::size_t>(S));
  std::iota(batch.begin(), batch.end(), 0L);
  lda::Topics<double> ss;
  double units = 0, words = 0;
  for (auto _ : state) {
    const auto res = model.e_step(in.lambda, batch, 0, &ss);
    for (long i = 0; i < S; ++i) {
      const double nd = double(in.syn.train.doc_ptr[static_cast<std::size_t>(i) + 1] - in.syn.train.doc_ptr[static_cast<std::size_t>(i)]);
      units += double(res.iterations[static_cast<std::size_t>(i)]) * nd * double(K);
      words += nd;
    }
    benchmark::DoNotOptimize(ss.data());
  }
  state.counters["docs_per_s"] = benchmark::Counter(double(S), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["distinct_words_per_doc"] = words / double(S) / double(state.iterations());
  state.counters["ns_per_word_topic_update"] =
      benchmark::Counter(units / 1e9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The floor of an E-step update, per (word, topic): its arithmetic is two multiply-adds (phinorm and
// acc) per (word, topic) and one division per word, so the floor is 2 t_fma + t_div / K, each at the
// core's best rate for independent operations on data in registers or the first-level cache:
// BM_FmaPeak times 64 independent chains of x ← x·a + b (vectorised by the compiler), BM_DivPeak a
// vectorised division of two 1024-entry arrays. bench/compare_lda.py --sweep divides by the E-step's figure.
void BM_FmaPeak(benchmark::State& state) {
  constexpr int kChains = 64, kRounds = 256;
  alignas(64) double x[kChains];
  for (int u = 0; u < kChains; ++u) x[u] = 1.0 + 1e-3 * u;
  const double a = 0.999999, b = 1e-7;
  for (auto _ : state) {
    for (int r = 0; r < kRounds; ++r)
      for (int u = 0; u < kChains; ++u) x[u] = x[u] * a + b;
    benchmark::DoNotOptimize(x);
  }
  state.counters["ns_per_fma"] =
      benchmark::Counter(double(kChains) * kRounds / 1e9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_DivPeak(benchmark::State& state) {
  constexpr int kN = 1024;
  alignas(64) double c[kN], n[kN], r[kN];
  for (int u = 0; u < kN; ++u) {
    c[u] = 1.0 + u % 7;
    n[u] = 0.5 + 1e-3 * u;
  }
  for (auto _ : state) {
    for (int u = 0; u < kN; ++u) r[u] = c[u] / n[u];
    benchmark::DoNotOptimize(r);
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_div"] = benchmark::Counter(double(kN) / 1e9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The update's fixed cost: ψ of a double as the E-step calls it (special::digamma), over the kind of γ
// an update with K = 100 sees (90 topics near α = 0.01, 10 between 5 and 15), independent calls.
void BM_DigammaPeak(benchmark::State& state) {
  constexpr int kN = 100;
  alignas(64) double x[kN], y[kN];
  for (int u = 0; u < kN; ++u) x[u] = u < 90 ? 0.01 + 1e-4 * u : 5.0 + u - 90;
  for (auto _ : state) {
    for (int u = 0; u < kN; ++u) y[u] = special::digamma(x[u]);
    benchmark::DoNotOptimize(y);
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_digamma"] = benchmark::Counter(double(kN) / 1e9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_LdaEStep)->ArgNames({"K", "V", "S"})->Args({5, 200, 1})->Args({5, 200, 128})->Args({20, 2000, 1})->Args({20, 2000, 128})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LdaSviPass)->ArgNames({"K", "V"})->Args({5, 200})->Args({20, 2000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LdaEStepSweep)->ArgNames({"K", "L"})->ArgsProduct({{5, 20, 50, 100}, {20, 110, 650}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FmaPeak);
BENCHMARK(BM_DivPeak);
BENCHMARK(BM_DigammaPeak);

}  // namespace
}  // namespace ngvi
