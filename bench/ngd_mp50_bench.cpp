// The full eq. (15) NGD step (as BM_NgdStep: draw, gather, rank-M update, natural update, conversion to
// μ and the running average) in mp50 at d = 10, M = 32, to set next to BM_NgdStep/d:10/M:32 (double).
// In its own translation unit, as every multiprecision instantiation.
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/scalar/types.hpp"
#include "ngd_step_loop.hpp"

namespace ngvi {
namespace {

void BM_NgdStepMp50(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  const Dataset<double> raw = data::synthetic_regression(4096, d, 1.0, 1.0, 77);
  const LinearRegression<mp50> model(Dataset<mp50>{data::cast_matrix<mp50>(raw.X), data::cast_vector<mp50>(raw.y)},
                                     Mat<mp50>::Identity(d, d), mp50(1));
  bench::ngd_step_loop<mp50>(state, model, m, /*convert=*/true);
}

BENCHMARK(BM_NgdStepMp50)->ArgNames({"d", "M"})->Args({10, 32})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
