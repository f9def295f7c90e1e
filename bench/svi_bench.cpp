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
#include <vector>

#include "ngvi/data/lda_synthetic.hpp"
#include "ngvi/models/lda.hpp"
#include "ngvi/optim/steppers/svi.hpp"

namespace ngvi {
namespace {

struct SviBenchInstance {
  lda::SyntheticLda syn;
  lda::LdaOptions<double> opt;
  lda::Topics<double> lambda;  // after one pass from the default initialisation
};

const SviBenchInstance& instance(long K, long V) {
  static std::map<std::pair<long, long>, SviBenchInstance> cache;
  auto it = cache.find({K, V});
  if (it != cache.end()) return it->second;
  SviBenchInstance in{lda::synthetic_lda(K, V, 2000, 0, 80, 0.05, 0.1, 7), {}, {}};
  in.opt.topics = K;
  in.opt.alpha = 1.0 / double(K);
  in.opt.eta = 1.0 / double(K);
  const lda::LdaModel<double> model(in.syn.train, in.opt);
  svi::SviOptions<double> so;
  so.passes = 1;
  in.lambda = run_svi(model, model.initial_lambda(7), svi::SviSchedule<double>(0.7, 10.0, 1.0), so).last;
  return cache.emplace(std::make_pair(K, V), std::move(in)).first->second;
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

BENCHMARK(BM_LdaEStep)->ArgNames({"K", "V", "S"})->Args({5, 200, 1})->Args({5, 200, 128})->Args({20, 2000, 1})->Args({20, 2000, 128})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LdaSviPass)->ArgNames({"K", "V"})->Args({5, 200})->Args({20, 2000})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ngvi
