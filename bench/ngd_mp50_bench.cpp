// The full eq. (15) NGD step (as BM_NgdStep: draw, gather, rank-M update, natural update, conversion to
// μ and the running average) in mp50 at d = 10, M = 32, to set next to BM_NgdStep/d:10/M:32 (double).
// In its own translation unit, as every multiprecision instantiation.
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/estimators/minibatch_gradient.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/optim/ngd_driver.hpp"
#include "ngvi/scalar/types.hpp"

namespace ngvi {
namespace {

void BM_NgdStepMp50(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  const Dataset<double> raw = data::synthetic_regression(4096, d, 1.0, 1.0, 77);
  const LinearRegression<mp50> model(Dataset<mp50>{data::cast_matrix<mp50>(raw.X), data::cast_vector<mp50>(raw.y)},
                                     Mat<mp50>::Identity(d, d), mp50(1));
  MinibatchGradient<mp50> est(model, m);
  random::Stream rng(1, 0);
  GaussianNatural<mp50> eta = standard_natural<mp50>(d);
  GaussianPair<mp50> g{Vec<mp50>::Zero(d), Mat<mp50>::Zero(d, d)};
  MomentWorkspace<mp50> ws(d);
  IterateAverage<mp50> avg;
  long t = 0;
  for (auto _ : state) {
    est.draw(rng);
    est.evaluate(g);
    ngd_step(eta, model.prior_natural(), g, mp50(2) / mp50(t + 2));
    ws.convert(eta);
    avg.add(ws.mu());
    ++t;
    benchmark::DoNotOptimize(eta.second.data());
  }
}

BENCHMARK(BM_NgdStepMp50)->ArgNames({"d", "M"})->Args({10, 32})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
