// The full eq. (15) NGD step of BM_NgdStepMp50 (draw, gather, rank-M update, natural update,
// conversion to μ and the running average) with the MPFR-backed 50-digit scalar `mpfr50` at d = 10,
// M = 32, to set next to BM_NgdStepMp50 (cpp_bin_float) and BM_NgdStep/d:10/M:32 (double).
// In its own translation unit, as every multiprecision instantiation.
#include <benchmark/benchmark.h>

#include "ngvi/data/synthetic.hpp"
#include "ngvi/models/linear_regression_data.hpp"
#include "ngvi/scalar/mpfr_types.hpp"
#include "ngd_step_loop.hpp"

namespace ngvi {
namespace {

void BM_NgdStepMpfr50(benchmark::State& state) {
  const Index d = state.range(0), m = state.range(1);
  const Dataset<double> raw = data::synthetic_regression(4096, d, 1.0, 1.0, 77);
  const LinearRegression<mpfr50> model(
      Dataset<mpfr50>{data::cast_matrix<mpfr50>(raw.X), data::cast_vector<mpfr50>(raw.y)}, Mat<mpfr50>::Identity(d, d),
      mpfr50(1));
  bench::ngd_step_loop<mpfr50>(state, model, m, /*convert=*/true);
}

BENCHMARK(BM_NgdStepMpfr50)->ArgNames({"d", "M"})->Args({10, 32})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
