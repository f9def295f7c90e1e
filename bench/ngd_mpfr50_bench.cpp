// The full eq. (15) NGD step of BM_NgdStepMp50 (draw, gather, rank-M update, natural update,
// conversion to μ and the running average) with the MPFR-backed 50-digit scalar `mpfr50` at d = 10,
// M = 32, to set next to BM_NgdStepMp50 (cpp_bin_float) and BM_NgdStep/d:10/M:32 (double).
// In its own translation unit, as every multiprecision instantiation.
#include <benchmark/benchmark.h>

#include "ngvi/scalar/mpfr_types.hpp"
#include "ngd_step_loop.hpp"

namespace ngvi {
namespace {

void BM_NgdStepMpfr50(benchmark::State& state) { bench::full_step_in<mpfr50>(state); }

BENCHMARK(BM_NgdStepMpfr50)->ArgNames({"d", "M"})->Args({10, 32})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ngvi
